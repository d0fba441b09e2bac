package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLaunchConfinePlant: under guardsh --launch --confine the agent's own
// file tools (not its shell) write the protected files that did not exist
// when it started (no read-only mount can cover a missing file): the
// launcher removes them when the agent exits, and says so, so that the
// user's git afterwards reads none of them.
func TestLaunchConfinePlant(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	backendsUnderTest(t)
	f := newFixture(t)
	agent := fakeAgent(t, f.base, "claude", `
printf '[core]\n\tfsmonitor = touch "%s/ran-worktree"\n' "$OUT" > .git/config.worktree && echo planted-worktree
echo ../.planted > .git/commondir && echo planted-commondir
`)
	cmd := exec.Command(f.bin, "--launch", "--mode", "auto", "--confine", "--", agent)
	cmd.Dir = f.project
	cmd.Env = f.env("", "GUARDSH_MODE=auto")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
			cmd.Env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "planted-worktree") || !strings.Contains(string(out), "planted-commondir") {
		t.Skipf("the confined agent could not plant here (a read-only mount?): %v\n%s", err, out)
	}
	for _, p := range []string{".git/config.worktree", ".git/commondir"} {
		if _, err := os.Lstat(filepath.Join(f.project, p)); err == nil {
			t.Errorf("%s planted by the confined agent is still there after it exited\n%s", p, out)
		}
		if !strings.Contains(string(out), p+": created") {
			t.Errorf("the removal of %s is not said:\n%s", p, out)
		}
	}
}

// TestAttackLaunchConfineAgentSettings: the confined agent's state
// directory is writable (it keeps its sessions there), and in it lie the
// agent's own settings, which name programs the agent runs at its next
// start: Claude Code's hooks in ~/.claude/settings.json, Codex's notify
// program in ~/.codex/config.toml. Written by the confined agent's file
// tools, they would run outside any sandbox the next time the user starts
// the agent without --confine. The launcher restores them when the agent
// exits (removes a created one, rewrites a changed one) and says so.
func TestAttackLaunchConfineAgentSettings(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	backendsUnderTest(t)
	for _, tc := range []struct {
		agent, file, before string // before "": the file does not exist
	}{
		{"claude", ".claude/settings.json", ""},
		{"claude", ".claude/settings.json", "{\"model\": \"opus\"}\n"},
		{"codex", ".codex/config.toml", "model = \"o3\"\n"},
		{"gemini", ".gemini/settings.json", ""},
	} {
		t.Run(tc.agent+"/"+strings.ReplaceAll(tc.file, "/", "_")+fmt.Sprint(tc.before != ""), func(t *testing.T) {
			f := newFixture(t)
			p := filepath.Join(f.home, tc.file)
			os.MkdirAll(filepath.Dir(p), 0o700)
			if tc.before != "" {
				os.WriteFile(p, []byte(tc.before), 0o600)
			}
			agent := fakeAgent(t, f.base, tc.agent, fmt.Sprintf(`printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch $OUT/ran"}]}]}}\n' > %s && echo planted-settings`, shQuote(p)))
			cmd := exec.Command(f.bin, "--launch", "--mode", "auto", "--confine", "--", agent)
			cmd.Dir = f.project
			cmd.Env = f.env("", "GUARDSH_MODE=auto")
			for i, kv := range cmd.Env {
				if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
					cmd.Env[i] = "GUARDSH_SANDBOX=auto"
				}
			}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "planted-settings") {
				t.Skipf("the confined agent could not write its settings here: %v\n%s", err, out)
			}
			b, err := os.ReadFile(p)
			switch {
			case tc.before == "" && err == nil:
				t.Errorf("%s created by the confined agent is still there after it exited:\n%s\n%s", tc.file, b, out)
			case tc.before != "" && string(b) != tc.before:
				t.Errorf("%s changed by the confined agent was not restored: %q\n%s", tc.file, b, out)
			}
			if !strings.Contains(string(out), p+": ") {
				t.Errorf("the restore of %s is not said:\n%s", tc.file, out)
			}
		})
	}
}

// TestAttackNestedMarkerDropped: whether a guardsh shell inside an agent
// confined by --launch --confine stacks its own confinement (no network,
// writes to the project only) is read from $GUARDSH_SANDBOX_RUN, which
// the agent sets for the shells it starts. An agent whose environment for
// its shells the model can set (Claude Code's settings.json "env", Codex's
// shell_environment_policy) drops the marker, and the shell's commands
// then ran in the agent's sandbox as it is: its network open. The shell
// now tells that sandbox by its seccomp filter, which the agent cannot
// remove (sandbox.InNetworkSandbox), and stacks its own.
func TestAttackNestedMarkerDropped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	backendsUnderTest(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, tc := range []struct{ name, env string }{
		{"marker dropped", `GUARDSH_SANDBOX_RUN="${GUARDSH_SANDBOX_RUN%%, agent confined*}"`},
		{"sandbox off", `GUARDSH_SANDBOX=off`},
		{"both", `GUARDSH_SANDBOX=off GUARDSH_SANDBOX_RUN="${GUARDSH_SANDBOX_RUN%%, agent confined*}"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			reached := make(chan bool, 1)
			go func() {
				if c, err := ln.Accept(); err == nil {
					c.Close()
					reached <- true
				}
			}()
			f := newFixture(t)
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			// a program the rules do not read (python3 running a project file)
			os.WriteFile(filepath.Join(f.project, "net.py"), []byte("import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), 2)\nprint('connected')\n"), 0o644)
			agent := fakeAgent(t, f.base, "claude", tc.env+` exec bash -c `+shQuote(`python3 net.py `+port))
			cmd := exec.Command(f.bin, "--launch", "--mode", "auto", "--confine", "--", agent)
			cmd.Dir = f.project
			cmd.Env = f.env("", "GUARDSH_MODE=auto")
			for i, kv := range cmd.Env {
				if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
					cmd.Env[i] = "GUARDSH_SANDBOX=auto"
				}
			}
			out, _ := cmd.CombinedOutput()
			select {
			case <-reached:
				t.Errorf("a command of the agent's guardsh shell reached the machine's TCP listener:\n%s", out)
			case <-time.After(3 * time.Second):
				// the command ran, confined: its connect(2) failed
				if !strings.Contains(string(out), "Error") || strings.Contains(string(out), "connected") {
					t.Errorf("the shell's command did not run, or ran unconfined:\n%s", out)
				}
			}
		})
	}
}

// TestAttackNestedUnixSocket: GUARDSH_SANDBOX_UNIX=1 (AF_UNIX sockets on
// kernels whose Landlock cannot limit connect(2) by path), set by the
// agent for its shells, let their commands connect to any socket on the
// machine (a container engine's, a session bus) from the agent's sandbox.
// The stacked confinement ignores it there.
func TestAttackNestedUnixSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	backendsUnderTest(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	f := newFixture(t)
	sock := filepath.Join(f.outside, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan bool, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			reached <- true
		}
	}()
	os.WriteFile(filepath.Join(f.project, "unix.py"), []byte("import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\nprint('connected')\n"), 0o644)
	agent := fakeAgent(t, f.base, "claude", `GUARDSH_SANDBOX_UNIX=1 exec bash -c `+shQuote(`python3 unix.py `+sock))
	cmd := exec.Command(f.bin, "--launch", "--mode", "auto", "--confine", "--", agent)
	cmd.Dir = f.project
	cmd.Env = f.env("", "GUARDSH_MODE=auto")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
			cmd.Env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	out, _ := cmd.CombinedOutput()
	select {
	case <-reached:
		t.Errorf("a command of the agent's guardsh shell connected to a socket outside every writable root:\n%s", out)
	case <-time.After(3 * time.Second):
		if !strings.Contains(string(out), "Error") {
			t.Errorf("the shell's command did not run:\n%s", out)
		}
	}
}
