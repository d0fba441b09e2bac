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

// agentInfo says how one coding agent picks the shell it runs commands in,
// and where its pre-tool hook would be configured, if it has one.
type agentInfo struct {
	name  string // executable name on PATH
	title string
	// shell returns the shell the agent would run and how it found it.
	shell func(env func(string) string) (path, how string)
	// hookFiles are settings files, relative to $HOME or to the working
	// directory, that may register guardsh --hook.
	hookFiles []string
	hook      string // the --hook protocol name
}

// knownAgents are the agents guardsh --doctor looks for.
var knownAgents = []agentInfo{
	{name: "claude", title: "Claude Code", shell: claudeShell, hook: "claude",
		hookFiles: []string{"~/.claude/settings.json", ".claude/settings.json", ".claude/settings.local.json"}},
	{name: "codex", title: "Codex CLI", shell: bashOnPath, hook: "codex",
		hookFiles: []string{"~/.codex/hooks.json", ".codex/hooks.json", "~/.codex/config.toml"}},
	{name: "gemini", title: "Gemini CLI", shell: bashOnPath, hook: "gemini",
		hookFiles: []string{"~/.gemini/settings.json", ".gemini/settings.json"}},
	{name: "aider", title: "Aider", shell: shellVar},
	{name: "cline", title: "Cline", shell: shellVar},
	{name: "goose", title: "goose", shell: gooseShell},
	{name: "openhands", title: "OpenHands", shell: func(func(string) string) (string, string) {
		return "/bin/bash", "absolute path, local runtime"
	}},
}

// claudeShell follows Claude Code: CLAUDE_CODE_SHELL, else $SHELL if it is
// bash or zsh, else bash from PATH.
func claudeShell(env func(string) string) (string, string) {
	if s := env("CLAUDE_CODE_SHELL"); s != "" {
		return s, "CLAUDE_CODE_SHELL"
	}
	if s := env("SHELL"); strings.Contains(filepath.Base(s), "bash") || strings.Contains(filepath.Base(s), "zsh") {
		return s, "SHELL"
	}
	return bashOnPath(env)
}

func bashOnPath(env func(string) string) (string, string) {
	p, err := lookPathIn("bash", env("PATH"))
	if err != nil {
		return "", "no bash on PATH"
	}
	return p, "bash on PATH"
}

func shellVar(env func(string) string) (string, string) {
	if s := env("SHELL"); s != "" {
		return s, "SHELL"
	}
	return "/bin/sh", "default /bin/sh (SHELL unset)"
}

func gooseShell(env func(string) string) (string, string) {
	if s := env("GOOSE_SHELL"); s != "" {
		return s, "GOOSE_SHELL"
	}
	return bashOnPath(env)
}

// lookPathIn is exec.LookPath over the directories of path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// isGuardsh reports whether the shell at path is guardsh: the guardsh binary
// itself (through any symbolic links) or a small wrapper script that execs
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
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if self != "" {
		if s, err := filepath.EvalSymlinks(self); err == nil && s == real {
			return true
		}
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

// hookConfigured reports which of files (~ for $HOME) registers guardsh's
// hook for protocol.
func hookConfigured(files []string, protocol, home string) string {
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f, "~/"); ok {
			if home == "" {
				continue
			}
			f = filepath.Join(home, rest)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if bytes.Contains(data, []byte("--hook "+protocol)) || bytes.Contains(data, []byte("--hook="+protocol)) {
			return f
		}
	}
	return ""
}

// loginShell is the current user's login shell from /etc/passwd, which
// Codex CLI uses (by absolute path) for its shell_command tool.
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

// doctorAgents reports, per coding agent found on PATH, whether its shell
// would be guardsh, and whether guardsh's pre-tool hook is registered for
// the agents that have one. It returns true when every agent found would run
// its shell commands through guardsh (by its shell or by the hook); an agent
// not installed is not a failure.
func doctorAgents(w io.Writer) bool {
	return doctorAgentsEnv(w, os.Getenv)
}

func doctorAgentsEnv(w io.Writer, env func(string) string) bool {
	self, _ := os.Executable()
	home := env("HOME")
	ok := true
	found := 0
	fmt.Fprintln(w, "agents:")
	for _, a := range knownAgents {
		bin, err := lookPathIn(a.name, env("PATH"))
		if err != nil {
			continue
		}
		found++
		shell, how := a.shell(env)
		guarded := isGuardsh(shell, self)
		status := "NOT guardsh"
		if guarded {
			status = "guardsh"
		}
		fmt.Fprintf(w, "  %-11s %s\n", a.title, bin)
		fmt.Fprintf(w, "    shell: %s (%s): %s\n", orNone(shell), how, status)
		hooked := ""
		if a.hook != "" {
			hooked = hookConfigured(a.hookFiles, a.hook, home)
			if hooked != "" {
				fmt.Fprintf(w, "    hook:  guardsh --hook %s registered in %s\n", a.hook, hooked)
				if _, err := lookPathIn("guardsh", env("PATH")); err != nil {
					fmt.Fprintf(w, "    warn:  the hook runs `guardsh` by name, but guardsh is not on PATH: the agent treats a missing hook as a non-blocking error and runs the command unchecked; name guardsh by absolute path in the hook\n")
				}
			} else {
				fmt.Fprintf(w, "    hook:  not registered (see README: guardsh --hook %s)\n", a.hook)
			}
		}
		if a.name == "codex" {
			if ls := loginShell(); ls != "" && !isGuardsh(ls, self) {
				fmt.Fprintf(w, "    note:  Codex's shell_command tool runs your login shell %s by absolute path; only the hook covers it\n", ls)
			}
		}
		if !guarded && hooked == "" {
			ok = false
			fmt.Fprintf(w, "    fix:   guardsh --launch -- %s\n", a.name)
		}
	}
	if found == 0 {
		fmt.Fprintln(w, "  none of claude, codex, gemini, aider, cline, goose, openhands found on PATH")
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
