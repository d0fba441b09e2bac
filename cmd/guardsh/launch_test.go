package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// fakeAgent writes an "agent": a script that reaches for a shell the way
// real agents do and runs CMD there. It is started with /bin/sh by absolute
// path, as an agent's own interpreter would be (only the shells it starts
// are meant to be guardsh).
func fakeAgent(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// launch runs guardsh --launch ARGS in dir with HOME=home and returns the
// exit status and both streams.
func launch(t *testing.T, dir, home string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(guardshTestBinary(t), append([]string{"--launch"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// agentShells are the ways agents call their shell, as they send them.
var agentShells = []struct {
	agent string
	call  string // shell command line that runs "$CMD" (single-quoted into place)
}{
	{"gemini: bash -c", `bash -c CMD`},
	{"sh -c", `sh -c CMD`},
	{"cline: $SHELL -c", `"$SHELL" -c CMD`},
	{"aider: $SHELL -i -c", `"$SHELL" -i -c CMD`},
	{"goose: $GOOSE_SHELL -c", `"$GOOSE_SHELL" -c CMD`},
	{"claude: $CLAUDE_CODE_SHELL -c", `"$CLAUDE_CODE_SHELL" -c CMD`},
	{"/usr/bin/env bash -c", `/usr/bin/env bash -c CMD`},
	{"codex: bash -lc", `bash -lc CMD`},
	{"gemini wrapper", `bash -c "{ $CMD_RAW; }; __code=\$?; pgrep -g 0 >$AGENT_TMP_FILE 2>&1; exit \$__code;"`},
	{"claude wrapper", `"$CLAUDE_CODE_SHELL" -c -l "shopt -u extglob 2>/dev/null || true && eval '$CMD_RAW' < /dev/null && pwd -P >| $AGENT_TMP_FILE"`},
}

// claudeCwdFile is where an agent's wrapper writes in /tmp (Claude Code's
// /tmp/claude-XXXX-cwd, Gemini CLI's /tmp/shell_pgrep_XXXX.tmp): a fresh
// path there, removed after the test.
func claudeCwdFile(t *testing.T) string {
	f, err := os.CreateTemp("/tmp", "claude-*-cwd")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fakeHome is a throwaway home directory outside the temporary
// directories (guardsh treats those as scratch space), with a canary file.
func fakeHome(t *testing.T) (home, canary string) {
	t.Helper()
	home = testenv.Outside(t)
	canary = filepath.Join(home, "precious")
	if err := os.WriteFile(canary, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, canary
}

// agentScript is the body of a fake agent that runs each of cmds through
// the shell call s, as the agent would send it.
func agentScript(s string, cmds []string, dir, cwdFile string) string {
	var b strings.Builder
	b.WriteString("TMPDIR_AGENT=" + shQuote(dir) + "\nAGENT_TMP_FILE=" + shQuote(cwdFile) + "\n")
	for _, c := range cmds {
		b.WriteString("CMD_RAW=" + shQuote(c) + "\n")
		if strings.Contains(s, "$CMD_RAW") {
			b.WriteString(s + "\n")
		} else {
			b.WriteString(strings.ReplaceAll(s, "CMD", shQuote(c)) + "\n")
		}
	}
	return b.String()
}

// TestLaunchAgentShells: however the agent reaches for a shell, it gets
// guardsh: rm -rf ~ is denied with guardsh's message (bash would have
// deleted the fake home's canary) and normal work runs, including Claude
// Code's working-directory file.
func TestLaunchAgentShells(t *testing.T) {
	for _, s := range agentShells {
		t.Run(s.agent, func(t *testing.T) {
			dir := t.TempDir()
			home, canary := fakeHome(t)

			// Auto mode: rm -rf ~ is denied, normal work runs.
			cwdFile := claudeCwdFile(t)
			agent := fakeAgent(t, dir, "agent", agentScript(s.call,
				[]string{`rm -rf ~`, `echo ran > ok.txt`}, dir, cwdFile))
			code, out, errOut := launch(t, dir, home, "--mode", "auto", "--", agent)
			if _, err := os.Stat(canary); err != nil {
				t.Fatalf("rm -rf ~ ran through %s: %v", s.agent, err)
			}
			if !strings.Contains(errOut, "guardsh: denied [") {
				t.Errorf("rm -rf ~ not denied by guardsh:\n%s", errOut)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "ran\n" {
				t.Errorf("the normal command did not run: %q %v (exit %d)\nstdout: %s\nstderr: %s", b, err, code, out, errOut)
			}
			// The wrappers' own plumbing (Claude Code's cwd file, Gemini's
			// pgrep file, both in /tmp) must not be refused.
			if strings.Contains(errOut, "needs approval") {
				t.Errorf("the agent's wrapper was refused:\n%s", errOut)
			}
			if strings.Contains(s.call, "pwd -P") {
				cwd, err := os.ReadFile(cwdFile)
				real, _ := filepath.EvalSymlinks(dir)
				if err != nil || strings.TrimSpace(string(cwd)) != real {
					t.Errorf("Claude Code's cwd file: %q (%v), want %q", cwd, err, real)
				}
			}
		})
	}
}

func TestLaunchExitStatusAndErrors(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	agent := fakeAgent(t, dir, "agent", `exit 7`)
	if code, _, errOut := launch(t, dir, home, "--", agent); code != 7 {
		t.Errorf("exit status %d, want the agent's 7 (%s)", code, errOut)
	}
	killed := fakeAgent(t, dir, "killed", `kill -TERM $$`)
	if code, _, _ := launch(t, dir, home, killed); code != 128+15 {
		t.Errorf("exit status %d for an agent killed by SIGTERM, want 143", code)
	}
	if code, _, errOut := launch(t, dir, home, "--", "no-such-agent-here"); code != 127 || !strings.Contains(errOut, "no-such-agent-here") {
		t.Errorf("missing agent: exit %d, stderr %q; want 127 and the name", code, errOut)
	}
	if code, _, errOut := launch(t, dir, home); code != 2 || !strings.Contains(errOut, "usage") {
		t.Errorf("no agent: exit %d, stderr %q; want 2 and usage", code, errOut)
	}
	if code, _, _ := launch(t, dir, home, "--mode", "yolo", "--", agent); code != 2 {
		t.Errorf("bad mode: exit %d, want 2", code)
	}
	// The mode reaches the shells; the shim directory is gone afterwards.
	env := fakeAgent(t, dir, "env", `echo "$GUARDSH_MODE $GUARDSH_LAUNCH_SHIM"`)
	code, out, _ := launch(t, dir, home, "--mode=plan", env)
	f := strings.Fields(out)
	if code != 0 || len(f) != 2 || f[0] != "plan" {
		t.Fatalf("mode and shim not passed: %q", out)
	}
	if _, err := os.Stat(f[1]); !os.IsNotExist(err) {
		t.Errorf("shim directory %s left behind (%v)", f[1], err)
	}
}

func TestLaunchEnv(t *testing.T) {
	env := launchEnv([]string{"PATH=/usr/bin:/bin", "SHELL=/bin/zsh", "HOME=/h", "CLAUDE_CODE_SHELL=/bin/bash", "GUARDSH_MODE=auto"}, "/shim", "plan")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	want := map[string]string{
		"PATH": "/shim:/usr/bin:/bin", "SHELL": "/shim/bash", "CLAUDE_CODE_SHELL": "/shim/bash",
		"GOOSE_SHELL": "/shim/bash", "GUARDSH_MODE": "plan", "HOME": "/h", launchEnvMarker: "/shim",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	// Without --mode, the caller's GUARDSH_MODE stays.
	for _, kv := range launchEnv([]string{"GUARDSH_MODE=auto"}, "/shim", "") {
		if strings.HasPrefix(kv, "GUARDSH_MODE=") && kv != "GUARDSH_MODE=auto" {
			t.Errorf("GUARDSH_MODE changed without --mode: %s", kv)
		}
	}
}

// TestLaunchConfine: with --confine the agent process itself cannot write
// outside the project (its own file tools included), while its shell is
// still guardsh and its state directory stays writable.
func TestLaunchConfine(t *testing.T) {
	dir := t.TempDir()
	home, canary := fakeHome(t)
	outside := filepath.Join(home, "outside.txt")
	agent := fakeAgent(t, dir, "claude", `
echo inside > inside.txt && echo inside-ok
echo escaped > `+shQuote(outside)+` && echo outside-written
echo state > "$HOME/.claude/state.txt" && echo state-ok
ln -sf /usr/bin/bash "$GUARDSH_LAUNCH_SHIM/bash" 2>/dev/null && echo shim-replaced
bash -c 'rm -rf ~'
bash -c 'echo via-shim > shim.txt'
echo "channel=$GUARDSH_APPROVAL_FD:$(readlink /proc/$$/fd/3)"
`)
	code, out, errOut := launch(t, dir, home, "--mode", "auto", "--confine", "--", agent)
	if strings.Contains(errOut, "no sandbox backend passed the probe") {
		t.Skip("no sandbox backend here:", errOut)
	}
	if code != 0 && !strings.Contains(out, "inside-ok") {
		t.Fatalf("confined agent failed: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"inside-ok", "state-ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("confined agent: %s missing\nstdout: %s\nstderr: %s", want, out, errOut)
		}
	}
	if _, err := os.Stat(outside); err == nil || strings.Contains(out, "outside-written") {
		t.Errorf("the confined agent wrote outside the project (%s)", outside)
	}
	if strings.Contains(out, "shim-replaced") {
		t.Errorf("the confined agent replaced its shim's bash")
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("rm -rf ~ ran in the confined agent: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "shim.txt")); err != nil || string(b) != "via-shim\n" {
		t.Errorf("the confined agent's shell did not run a normal command: %q %v\nstderr: %s", b, err, errOut)
	}
	if !strings.Contains(errOut, "guardsh: denied [") {
		t.Errorf("rm -rf ~ not denied by guardsh inside the confined agent:\n%s", errOut)
	}
	// the launcher's approval channel reaches the confined agent
	if !strings.Contains(out, "channel=3:socket:") {
		t.Errorf("the confined agent has no approval channel:\n%s", out)
	}
}

// claudeSnapshot is a shell snapshot as Claude Code writes it to
// ~/.claude/shell-snapshots/ and sources before every command: functions
// as base64 evals, shell options, aliases (with --), the ripgrep fallback,
// PATH. The function is mkcd() { mkdir -p "$1" && cd "$1"; }.
const claudeSnapshot = `# Snapshot file
# Unset all aliases to avoid conflicts with functions
unalias -a 2>/dev/null || true
# Functions
eval "$(echo 'bWtjZCAoKSAKeyAKICAgIG1rZGlyIC1wICIkMSIgJiYgY2QgIiQxIgp9Cg==' | base64 -d)" > /dev/null 2>&1
# Shell Options
shopt -u autocd
shopt -s checkwinsize
shopt -s cmdhist
shopt -u dotglob
shopt -s expand_aliases
shopt -s extquote
shopt -u globstar
shopt -s histappend
set -o braceexpand
set -o hashall
set -o histexpand
set -o interactive-comments
# Aliases
alias -- ll='ls -alF'
alias -- la='ls -A'
# Check for rg availability
if ! command -v rg >/dev/null 2>&1; then
  alias rg='/usr/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/x64-linux/rg'
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
`

// TestLaunchClaudeSnapshot runs Claude Code's whole per-command string
// through the shim: source the snapshot, then the wrapped command (here a
// snapshot function and a snapshot alias), then the cwd file.
func TestLaunchClaudeSnapshot(t *testing.T) {
	dir := t.TempDir()
	home, _ := fakeHome(t)
	snapDir := filepath.Join(home, ".claude", "shell-snapshots")
	os.MkdirAll(snapDir, 0o700)
	snap := filepath.Join(snapDir, "snapshot-bash-1764489600000-k3j2h1.sh")
	if err := os.WriteFile(snap, []byte(claudeSnapshot), 0o600); err != nil {
		t.Fatal(err)
	}
	cwdFile := claudeCwdFile(t)
	os.Remove(cwdFile) // Claude Code does not create it beforehand
	agent := fakeAgent(t, dir, "claude", `"$CLAUDE_CODE_SHELL" -c -l "source `+snap+
		` && shopt -u extglob 2>/dev/null || true && eval 'mkcd sub && ll -d . > listing.txt' < /dev/null && pwd -P >| `+cwdFile+`"`)
	code, out, errOut := launch(t, dir, home, "--mode", "auto", "--", agent)
	if code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr:\n%s\nstdout: %s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "listing.txt")); err != nil {
		t.Errorf("the snapshot's function and alias did not run: %v", err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if cwd, err := os.ReadFile(cwdFile); err != nil || strings.TrimSpace(string(cwd)) != filepath.Join(real, "sub") {
		t.Errorf("cwd file %q (%v), want %s/sub", cwd, err, real)
	}
}

// TestLaunchShimNotWritable: without --confine the agent runs outside the
// sandbox and finds its shell in the shim; the commands it sends run in
// guardsh sessions, which must not be able to replace the shim's bash
// with the real one (one allowed ln -sf would hand every later command to
// bash, without rules or sandbox). Auto mode: the rules refuse; bypass
// mode (root, a real sandbox): the kernel refuses. Afterwards the shim is
// still guardsh: rm -rf ~ is denied and the fake home's canary stays.
func TestLaunchShimNotWritable(t *testing.T) {
	modes := []string{"auto"}
	if os.Geteuid() == 0 {
		modes = append(modes, "bypass")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			home, canary := fakeHome(t)
			agent := fakeAgent(t, dir, "agent", `
"$SHELL" -c 'ln -sf /bin/bash "$SHELL"; ln -sf /bin/bash "$GUARDSH_LAUNCH_SHIM/sh"; echo x > "$GUARDSH_LAUNCH_SHIM/new"'
case "$(readlink "$SHELL")" in /bin/bash) echo shim-replaced;; esac
"$SHELL" -c 'rm -rf ~'
echo "shim=$GUARDSH_LAUNCH_SHIM"
`)
			code, out, errOut := launch(t, dir, home, "--mode", mode, "--", agent)
			if strings.Contains(errOut, "no sandbox backend could be verified") {
				t.Skip("no sandbox backend here")
			}
			if strings.Contains(out, "shim-replaced") {
				t.Errorf("a session replaced the shim's bash (exit %d)\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if _, err := os.Stat(canary); err != nil {
				t.Fatalf("rm -rf ~ ran through the shim: %v\nstderr: %s", err, errOut)
			}
			for _, l := range strings.Split(out, "\n") {
				if s, ok := strings.CutPrefix(l, "shim="); ok {
					for _, root := range []string{"/tmp/", "/var/tmp/", "/dev/shm/", dir + "/"} {
						if strings.HasPrefix(s+"/", root) {
							t.Errorf("the shim %s lies in %s, which every session may write", s, root)
						}
					}
				}
			}
		})
	}
}
