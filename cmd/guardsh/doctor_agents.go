package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// agentHost is what guardsh --doctor looks at to tell how an agent would
// run its commands: the agent's environment, its working directory (its
// project settings live there), guardsh's own binary and the user's login
// shell from the password database.
type agentHost struct {
	env        func(string) string
	cwd        string
	self       string
	loginShell string
}

func (h agentHost) home() string { return h.env("HOME") }

// expand resolves a leading ~/ (and $HOME, ${HOME}) against HOME.
func (h agentHost) expand(p string) string {
	home := h.home()
	for _, pre := range []string{"~/", "$HOME/", "${HOME}/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && home != "" {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// shellChoice is the shell an agent would start for its commands and how
// it found it, in the agent's own terms.
type shellChoice struct {
	path string
	how  string
	note string // a setting the agent ignores, and why
}

// hookReport says whether guardsh's pre-tool hook is registered for an
// agent and whether the agent would really run it.
type hookReport struct {
	file      string // where it is registered; "" none
	effective bool
	detail    string // effective: how; else why not
	fix       string // one line, when registered but not effective
	notes     []string
}

// agentInfo says how one coding agent picks the shell it runs commands
// in, and how guardsh's hook is registered for it, if guardsh speaks its
// hook protocol.
type agentInfo struct {
	bin   string // executable name on PATH
	title string
	shell func(agentHost) shellChoice
	hook  func(agentHost) hookReport // nil: no hook guardsh speaks
	proto string                     // the --hook protocol name
	// fix is the one line that makes the agent's commands reach guardsh
	// when neither its shell nor a hook does.
	fix func(agentHost) string
	// note, when set, is said of the agent whatever its state.
	note string
}

func launchFix(bin string) func(agentHost) string {
	return func(agentHost) string { return "guardsh --launch --mode auto -- " + bin }
}

// knownAgents are the agents guardsh --doctor looks for.
var knownAgents = []agentInfo{
	{bin: "claude", title: "Claude Code", shell: claudeShell, hook: claudeHook, proto: "claude",
		fix: func(h agentHost) string {
			return `guardsh --launch --mode auto -- claude, or "env": {"CLAUDE_CODE_SHELL": "` + filepath.Join(h.home(), ".local/share/guardsh/shims/bash") + `"} in ~/.claude/settings.json (the absolute path: Claude Code does not expand ~; install.sh makes the shims), or the hook (docs/agents.md#claude-code)`
		}},
	{bin: "codex", title: "Codex CLI", shell: codexShell, hook: codexHook, proto: "codex",
		note: "its exec_command tool runs the login shell by absolute path: the hook covers it, and guardsh --launch does where it can make that path guardsh",
		fix: func(agentHost) string {
			return "register and trust guardsh's hook (docs/agents.md#codex-cli), or guardsh --launch --mode auto -- codex"
		}},
	{bin: "gemini", title: "Gemini CLI", shell: bashOnPath, hook: geminiHook, proto: "gemini", fix: launchFix("gemini")},
	{bin: "opencode", title: "opencode", shell: opencodeShell, fix: launchFix("opencode")},
	{bin: "pi", title: "pi", shell: piShell,
		fix: func(h agentHost) string {
			return `guardsh --launch --mode auto -- pi where the launcher makes /bin/bash guardsh, or "shellPath": "~/.local/share/guardsh/shims/bash" in ` + piSettingsFile(h)
		}},
	{bin: "qwen", title: "qwen-code", shell: bashOnPath, fix: launchFix("qwen"),
		note: "it runs commands in a pseudo-terminal it owns, where the agent could answer a prompt: asks must reach the human through guardsh --launch (docs/agents.md#qwen-code)"},
	{bin: "goose", title: "goose", shell: gooseShell, fix: launchFix("goose session")},
	{bin: "aider", title: "Aider", shell: shellVar, fix: launchFix("aider")},
	{bin: "cline", title: "Cline", shell: shellVar, fix: launchFix("cline")},
	{bin: "openhands", title: "OpenHands", shell: func(agentHost) shellChoice {
		return shellChoice{path: "/bin/bash", how: "absolute path, local runtime"}
	}, fix: func(agentHost) string {
		return "the Docker runtime with guardsh as the image's /bin/bash (docs/agents.md#openhands)"
	}},
}

// claudeShell follows Claude Code 2.1: CLAUDE_CODE_SHELL (its settings'
// "env" wins over the environment) when it names bash or zsh and can run;
// else $SHELL when it names bash or zsh; else the first of bash on PATH,
// /bin/bash, /usr/bin/bash... (zsh first unless SHELL is bash).
func claudeShell(h agentHost) shellChoice {
	var note string
	s, from := claudeSetting(h, "CLAUDE_CODE_SHELL")
	if s != "" {
		how := "CLAUDE_CODE_SHELL"
		if from != "" {
			how += " in " + from
		}
		// the path as Node takes it: relative to the working directory,
		// a leading ~ or $HOME not expanded
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.cwd, p)
		}
		if (strings.Contains(s, "bash") || strings.Contains(s, "zsh")) && executable(p) {
			return shellChoice{path: p, how: how}
		}
		note = fmt.Sprintf("CLAUDE_CODE_SHELL=%s is ignored: Claude Code takes it only when the path names bash or zsh and runs (a link named bash to guardsh does)", s)
		if strings.HasPrefix(s, "~") || strings.HasPrefix(s, "$") {
			note += "; it does not expand ~ or $HOME: write the absolute path"
		}
	}
	shell := h.env("SHELL")
	if (strings.Contains(shell, "bash") || strings.Contains(shell, "zsh")) && executable(shell) {
		return shellChoice{path: shell, how: "SHELL", note: note}
	}
	names := []string{"zsh", "bash"}
	if strings.Contains(shell, "bash") {
		names = []string{"bash", "zsh"}
	}
	var cands []string
	if p, err := lookPathIn(names[0], h.env("PATH")); err == nil {
		cands = append(cands, p)
	}
	for _, n := range names {
		for _, d := range []string{"/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"} {
			cands = append(cands, d+"/"+n)
		}
	}
	if p, err := lookPathIn(names[1], h.env("PATH")); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		if executable(c) {
			return shellChoice{path: c, how: "first bash/zsh found (SHELL is not one)", note: note}
		}
	}
	return shellChoice{how: "no bash or zsh found", note: note}
}

// codexShell: Codex CLI runs the user's login shell, as the password
// database names it, by absolute path (`/bin/bash -lc CMD`).
func codexShell(h agentHost) shellChoice {
	if h.loginShell == "" {
		return shellChoice{how: "no login shell in /etc/passwd"}
	}
	return shellChoice{path: h.loginShell, how: "login shell from /etc/passwd, run by absolute path as " + h.loginShell + " -lc"}
}

func bashOnPath(h agentHost) shellChoice {
	p, err := lookPathIn("bash", h.env("PATH"))
	if err != nil {
		return shellChoice{how: "no bash on PATH"}
	}
	return shellChoice{path: p, how: "bash on PATH"}
}

func shellVar(h agentHost) shellChoice {
	if s := h.env("SHELL"); s != "" {
		if filepath.IsAbs(s) {
			return shellChoice{path: s, how: "absolute path from SHELL"}
		}
		return shellChoice{path: s, how: "SHELL"}
	}
	return shellChoice{path: "/bin/sh", how: "default /bin/sh (SHELL unset)"}
}

func gooseShell(h agentHost) shellChoice {
	if s := h.env("GOOSE_SHELL"); s != "" {
		return shellChoice{path: s, how: "GOOSE_SHELL"}
	}
	return bashOnPath(h)
}

// opencodeShell follows opencode: $SHELL unless it is fish or nu, else
// bash on PATH, else /bin/sh.
func opencodeShell(h agentHost) shellChoice {
	s := h.env("SHELL")
	if s != "" {
		if b := filepath.Base(s); b != "fish" && b != "nu" {
			return shellChoice{path: s, how: "SHELL"}
		}
		c := bashOnPath(h)
		if c.path != "" {
			c.how += "; SHELL " + s + " is skipped"
			return c
		}
		return shellChoice{path: "/bin/sh", how: "/bin/sh; SHELL " + s + " is skipped"}
	}
	if c := bashOnPath(h); c.path != "" {
		return c
	}
	return shellChoice{path: "/bin/sh", how: "/bin/sh"}
}

// piDir is pi's agent directory: PI_CODING_AGENT_DIR, else ~/.pi/agent.
func piDir(h agentHost) string {
	if d := h.env("PI_CODING_AGENT_DIR"); d != "" {
		return h.expand(d)
	}
	return filepath.Join(h.home(), ".pi", "agent")
}

func piSettingsFile(h agentHost) string { return filepath.Join(piDir(h), "settings.json") }

// piShell follows pi: "shellPath" from the project's .pi/settings.json or
// the agent directory's settings.json, else /bin/bash by absolute path,
// else bash on PATH, else sh.
func piShell(h agentHost) shellChoice {
	for _, f := range []string{filepath.Join(h.cwd, ".pi", "settings.json"), piSettingsFile(h)} {
		var s struct {
			ShellPath string `json:"shellPath"`
		}
		if readJSON(f, &s) && s.ShellPath != "" {
			return shellChoice{path: s.ShellPath, how: "shellPath in " + f}
		}
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		return shellChoice{path: "/bin/bash", how: "absolute path, no shellPath in settings"}
	}
	return bashOnPath(h)
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// lookPathIn is exec.LookPath over the directories of path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if executable(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// isGuardsh reports whether the shell at path is guardsh: the guardsh
// binary itself by file identity (a link, a hard link, a bind mount over
// /bin/bash), a binary named guardsh, or a small wrapper script that execs
// it.
func isGuardsh(path, self string) bool {
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		p, err := exec.LookPath(path)
		if err != nil {
			return false
		}
		path = p
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if self != "" {
		if si, err := os.Stat(self); err == nil && os.SameFile(fi, si) {
			return true
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if filepath.Base(real) == "guardsh" {
		return true
	}
	f, err := os.Open(real)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return false
	}
	// A wrapper script: a line "exec [/path/]guardsh ...".
	for _, line := range strings.Split(string(head), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "exec" && filepath.Base(strings.Trim(f[1], `"'`)) == "guardsh" {
			return true
		}
	}
	return false
}

// loginShell is the current user's login shell from /etc/passwd, which
// Codex CLI runs by absolute path for its exec_command tool.
func loginShell() string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	uid := strconv.Itoa(os.Getuid())
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 7 && fields[2] == uid {
			return fields[6]
		}
	}
	return ""
}

// doctorAgents reports, per coding agent found on PATH, the shell it would
// really run and whether that is guardsh, whether guardsh's pre-tool hook
// is registered and effective for the agents that have one, and one line
// saying how to fix what is not. It returns true when every agent found
// would run its shell commands through guardsh (by its shell or by an
// effective hook); an agent not installed is not a failure.
func doctorAgents(w io.Writer) bool {
	return doctorAgentsEnv(w, os.Getenv)
}

func doctorAgentsEnv(w io.Writer, env func(string) string) bool {
	self, _ := os.Executable()
	h := agentHost{env: env, self: self, loginShell: loginShell()}
	if d := env("PWD"); filepath.IsAbs(d) {
		h.cwd = d
	} else if d, err := os.Getwd(); err == nil {
		h.cwd = d
	}
	ok := true
	found := 0
	fmt.Fprintln(w, "agents:")
	for _, a := range knownAgents {
		bin, err := lookPathIn(a.bin, env("PATH"))
		if err != nil {
			continue
		}
		found++
		sh := a.shell(h)
		guarded := isGuardsh(sh.path, self)
		status := "NOT guardsh"
		if guarded {
			status = "guardsh"
		}
		fmt.Fprintf(w, "  %-11s %s\n", a.title, bin)
		if sh.note != "" {
			fmt.Fprintf(w, "    note:  %s\n", sh.note)
		}
		fmt.Fprintf(w, "    shell: %s (%s): %s\n", orNone(sh.path), sh.how, status)
		hooked, hookFixed := false, false
		if a.hook != nil {
			r := a.hook(h)
			switch {
			case r.file == "":
				fmt.Fprintf(w, "    hook:  not registered (docs/agents.md: guardsh --hook %s)\n", a.proto)
			case r.effective:
				hooked = true
				fmt.Fprintf(w, "    hook:  guardsh --hook %s in %s: effective (%s)\n", a.proto, r.file, r.detail)
			default:
				fmt.Fprintf(w, "    hook:  guardsh --hook %s in %s: NOT effective: %s\n", a.proto, r.file, r.detail)
				if r.fix != "" {
					hookFixed = true
					fmt.Fprintf(w, "    fix:   %s\n", r.fix)
				}
			}
			for _, n := range r.notes {
				fmt.Fprintf(w, "    note:  %s\n", n)
			}
		}
		if a.note != "" {
			fmt.Fprintf(w, "    note:  %s\n", a.note)
		}
		if !guarded && !hooked {
			ok = false
			if !hookFixed { // else the hook's own fix is the one line
				fmt.Fprintf(w, "    fix:   %s\n", a.fix(h))
			}
		}
	}
	if found == 0 {
		var names []string
		for _, a := range knownAgents {
			names = append(names, a.bin)
		}
		fmt.Fprintf(w, "  none of %s found on PATH\n", strings.Join(names, ", "))
	}
	if shim := env(launchEnvMarker); shim != "" {
		fmt.Fprintf(w, "  running under guardsh --launch (shim %s)\n", shim)
	}
	return ok
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
