package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestShellGateOnTerminal runs guardsh on a pseudo-terminal (its
// controlling terminal, so /dev/tty is the pty) with an ask, answers the
// prompt, and checks the result and the audit log. Without a terminal the
// same ask is refused with the instructions for the agent.
func TestShellGateOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	tests := []struct {
		name    string
		answer  string
		created bool
		want    []string
	}{
		{"allow once", "o", true, []string{"approve? [mode.default]", "$ touch ./made", "[o] allow once"}},
		{"allow for session", "s", true, []string{"stored for this session: allow touch ./made $"}},
		{"deny", "d", false, []string{"denied [mode.default]", "A human refused it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			optInTerminalPrompt(t, home) // guardsh -c asks on the terminal only where the user's file says so
			cmd := exec.Command(bin, "--no-sandbox", "-c", "touch ./made; touch ./made; echo done")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=default", "GUARDSH_PROJECT="+dir, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=")
			f, err := pty.Start(cmd)
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			defer f.Close()
			var mu sync.Mutex
			var out bytes.Buffer
			go io.Copy(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), f)
			answered := 0
			deadline := time.Now().Add(15 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				s := out.String()
				mu.Unlock()
				if n := strings.Count(s, "[d] deny: "); n > answered {
					f.Write([]byte(tt.answer))
					answered = n
				}
				if strings.Contains(s, "done") {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Wait()
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if _, err := os.Stat(filepath.Join(dir, "made")); (err == nil) != tt.created {
				t.Errorf("file created = %v, want %v; terminal:\n%s", err == nil, tt.created, s)
			}
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("terminal lacks %q:\n%s", w, s)
				}
			}
			wantPrompts := 2
			if tt.answer == "s" {
				wantPrompts = 1 // the second touch is covered by the session approval
			}
			if answered != wantPrompts {
				t.Errorf("%d prompts, want %d:\n%s", answered, wantPrompts, s)
			}
			log, err := os.ReadFile(filepath.Join(home, ".local/state/guardsh/audit.jsonl"))
			if err != nil || !strings.Contains(string(log), `"argv":["touch","./made"]`) || !strings.Contains(string(log), `"sandbox":"off (--no-sandbox)"`) {
				t.Errorf("audit log (%v):\n%s", err, log)
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

func TestShellAskWithoutTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	dir, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "--no-sandbox", "-c", "touch ./made")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=default", "GUARDSH_PROJECT="+dir, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=")
	cmd.SysProcAttr = newSessionAttr() // no controlling terminal
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 {
		t.Fatalf("exit %v, want 126; output:\n%s", err, out)
	}
	for _, w := range []string{"needs approval [mode.default]", "No human could be asked (no terminal)", "~/.config/guardsh/config.toml", `prefix = ["touch", "*"]`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the command ran")
	}
	// the refusal is at most three lines: the rule and why, what to do,
	// the rule a human would add
	_, refusal, _ := strings.Cut(string(out), "guardsh: needs approval")
	if n := strings.Count(strings.TrimRight(refusal, "\n"), "\n") + 1; n > 3 {
		t.Errorf("refusal of %d lines, want at most 3:\n%s", n, out)
	}
}

// optInTerminalPrompt writes home's user configuration file with
// [approval] terminal_prompt = true.
func optInTerminalPrompt(t *testing.T, home string) {
	t.Helper()
	d := filepath.Join(home, ".config", "guardsh")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte("[approval]\nterminal_prompt = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
