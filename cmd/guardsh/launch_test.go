package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	{"gemini wrapper", `bash -c "{ $CMD_RAW; }; __code=\$?; pgrep -g 0 >$TMPDIR_AGENT/shell_pgrep.tmp 2>&1; exit \$__code;"`},
	{"claude wrapper", `"$CLAUDE_CODE_SHELL" -c -l "shopt -u extglob 2>/dev/null || true && eval '$CMD_RAW' < /dev/null && pwd -P >| $TMPDIR_AGENT/claude-1a2b-cwd"`},
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestLaunchShellIsGuardsh: however the agent reaches for a shell, the
// process it gets is guardsh.
func TestLaunchShellIsGuardsh(t *testing.T) {
	bin := guardshTestBinary(t)
	for _, s := range agentShells {
		t.Run(s.agent, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			// The shell prints the binary behind its own process.
			cmd := `readlink /proc/$$/exe > exe.txt`
			body := "CMD_RAW=" + shQuote(cmd) + "\nTMPDIR_AGENT=" + shQuote(dir) + "\n" +
				strings.ReplaceAll(s.call, "CMD", shQuote(cmd))
			if strings.Contains(s.call, "$CMD_RAW") {
				body = "CMD_RAW=" + shQuote(cmd) + "\nTMPDIR_AGENT=" + shQuote(dir) + "\n" + s.call
			}
			agent := fakeAgent(t, dir, "agent", body)
			code, out, errOut := launch(t, dir, home, "--", agent)
			if code != 0 {
				t.Fatalf("agent exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			got, err := os.ReadFile(filepath.Join(dir, "exe.txt"))
			if err != nil {
				t.Fatalf("the shell did not run the command: %v\nstderr: %s", err, errOut)
			}
			if strings.TrimSpace(string(got)) != bin {
				t.Errorf("shell was %q, want guardsh %q", strings.TrimSpace(string(got)), bin)
			}
			if strings.Contains(s.call, "claude-1a2b-cwd") {
				cwd, err := os.ReadFile(filepath.Join(dir, "claude-1a2b-cwd"))
				real, _ := filepath.EvalSymlinks(dir)
				if err != nil || strings.TrimSpace(string(cwd)) != real {
					t.Errorf("Claude's cwd file: %q (%v), want %q", cwd, err, real)
				}
			}
		})
	}
}

// TestLaunchDeniesDestructive: through each shell an agent uses, a
// destructive command is refused by guardsh and a normal one runs.
func TestLaunchDeniesDestructive(t *testing.T) {
	if !rulesLanded() {
		t.Skip("the built-in rule catalogue does not deny rm -rf / yet")
	}
	for _, s := range agentShells {
		t.Run(s.agent, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			canary := filepath.Join(home, "precious")
			if err := os.WriteFile(canary, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			var body strings.Builder
			body.WriteString("TMPDIR_AGENT=" + shQuote(dir) + "\n")
			for _, c := range []string{`rm -rf ~`, `echo ran > ok.txt`} {
				body.WriteString("CMD_RAW=" + shQuote(c) + "\n")
				if strings.Contains(s.call, "$CMD_RAW") {
					body.WriteString(s.call + "\n")
				} else {
					body.WriteString(strings.ReplaceAll(s.call, "CMD", shQuote(c)) + "\n")
				}
			}
			agent := fakeAgent(t, dir, "agent", body.String())
			_, out, errOut := launch(t, dir, home, "--", agent)
			if _, err := os.Stat(canary); err != nil {
				t.Fatalf("rm -rf ~ ran through %s: %v", s.agent, err)
			}
			if !strings.Contains(errOut, "guardsh: denied [") {
				t.Errorf("no guardsh denial on stderr:\n%s\nstdout: %s", errOut, out)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "ran\n" {
				t.Errorf("the normal command did not run through %s: %q %v\nstderr: %s", s.agent, b, err, errOut)
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
