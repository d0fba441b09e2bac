//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/guardsh/guardsh/sandbox"
	"github.com/ollama/ollama/api"
)

// TestAdvisorSandboxedSession runs the real binary in a Landlock+seccomp
// session with the advisor on, pointed at a fake Ollama server: the
// confined interpreter has no network, so every rating it gets came
// through the privileged side (the broker's advise requests). With
// --no-sandbox the interpreter asks the server itself.
func TestAdvisorSandboxedSession(t *testing.T) {
	needLandlockSession(t)
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		if slices.Contains(argv, "truncate") {
			return advisortest.Rating(90, "empties the database")
		}
		return advisortest.Rating(0, "harmless")
	})
	f := newFixture(t)
	writeConfig := func(host string) { f.writeAdvisorConfig(t, host, "5s") }
	writeConfig(srv.URL)
	data := filepath.Join(f.project, "data.db")
	os.WriteFile(data, []byte("precious"), 0o644)
	audit := filepath.Join(f.base, "state", "guardsh", "audit.jsonl")
	const refused = "guardsh: refused [advisor.destructive]: the advisor rated this command 90% likely to irreversibly destroy data. Narrow the target or run it yourself if this is intentional.\n"

	// The confined interpreter itself cannot reach the server.
	_, stderr, code := f.run(t, sandbox.BackendLandlock, "exec 3<>/dev/tcp/"+strings.TrimPrefix(srv.URL, "http://")+" && echo connected")
	if code == 0 {
		t.Fatalf("the confined interpreter reached the fake server (stderr %q): this test would prove nothing", stderr)
	}

	stdout, stderr, code := f.run(t, sandbox.BackendLandlock, "touch marker; truncate -s 0 data.db; truncate -s 0 data.db; echo status $?")
	if got, _ := os.ReadFile(data); string(got) != "precious" {
		t.Fatalf("data.db = %q: truncate ran (stderr %q)", got, stderr)
	}
	if _, err := os.Stat(filepath.Join(f.project, "marker")); err != nil {
		t.Errorf("touch did not run: stderr %q", stderr)
	}
	if code != 0 || stdout != "status 126\n" || strings.Count(stderr, refused) != 2 {
		t.Errorf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if n := srv.Hits(); n != 2 {
		t.Errorf("%d requests, want 2 (touch, truncate; the second truncate from the broker's cache)", n)
	}
	log, _ := os.ReadFile(audit)
	for _, want := range []string{`"rule":"advisor.destructive"`, `"advisor":{"percent":90,"reason":"empties the database","model":"tiny:1b"`, `"cached":true`, `"sandbox":"landlock`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}

	// No server: visible, and the command runs.
	writeConfig("http://127.0.0.1:1")
	_, stderr, code = f.run(t, sandbox.BackendLandlock, "touch marker2")
	if _, err := os.Stat(filepath.Join(f.project, "marker2")); err != nil || code != 0 {
		t.Errorf("code %d: the command must go on without a rating", code)
	}
	if want := "guardsh: advisor unavailable: no Ollama server at http://127.0.0.1:1"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr = %q, want %q...", stderr, want)
	}

	// --no-sandbox: the interpreter asks the model itself.
	writeConfig(srv.URL)
	before := srv.Hits()
	cmdline := "truncate -s 0 data.db"
	stdout, stderr, code = f.runArgs(t, f.env(sandbox.BackendLandlock), "--no-sandbox", "-c", cmdline)
	if got, _ := os.ReadFile(data); string(got) != "precious" || code != 126 || !strings.Contains(stderr, refused) || srv.Hits() != before+1 {
		t.Errorf("--no-sandbox: data %q, code %d, stderr %q, %d new requests", got, code, stderr, srv.Hits()-before)
	}
	_ = stdout
}

// needLandlockSession skips t unless a Landlock session can be tested:
// not with -short (it builds guardsh), as root (CI), Landlock ABI >= 2.
func needLandlockSession(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	if os.Geteuid() != 0 {
		t.Skip("sandboxed sessions are tested as root (CI runs as root); skipping as non-root")
	}
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock (ABI < 2)")
	}
}

// writeAdvisorConfig writes the fixture's user config: the advisor on,
// model tiny:1b at host, with the given timeout.
func (f *fixture) writeAdvisorConfig(t *testing.T, host, timeout string) {
	t.Helper()
	cfg := "[advisor]\nenabled = true\nmodel = \"tiny:1b\"\nhost = \"" + host + "\"\ntimeout = \"" + timeout + "\"\n"
	p := filepath.Join(f.home, ".config", "guardsh", "config.toml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAdvisorCtrlC: a Ctrl-C (SIGINT to the process group, as a terminal
// sends it) while the model is rating a command: the command does not run,
// the rest of the script neither, and guardsh ends with 130 without
// waiting for the model; sandboxed (the privileged side is asking) and
// not.
func TestAdvisorCtrlC(t *testing.T) {
	needLandlockSession(t)
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		r := advisortest.Rating(0, "harmless")
		r.Hold = hold // the model never answers in time
		return r
	})
	f := newFixture(t)
	f.writeAdvisorConfig(t, srv.URL, "60s")
	for i, args := range [][]string{{"-c"}, {"--no-sandbox", "-c"}} {
		marker := filepath.Join(f.project, "marker"+strconv.Itoa(i))
		cmd := exec.Command(f.bin, append(args, "touch "+marker+"; touch "+marker+".after")...)
		cmd.Dir = f.project
		cmd.Env = f.env(sandbox.BackendLandlock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var e bytes.Buffer
		cmd.Stderr = &e
		before := srv.Hits()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.Now().Add(10 * time.Second)
		for srv.Hits() == before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if srv.Hits() == before {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%q: the model was never asked; stderr %q", args, e.String())
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%q: guardsh still waits for the model after Ctrl-C", args)
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		for _, m := range []string{marker, marker + ".after"} {
			if _, err := os.Stat(m); err == nil {
				t.Errorf("%q: %s exists: a command ran after Ctrl-C", args, filepath.Base(m))
			}
		}
		if code != 130 {
			t.Errorf("%q: exit status %d, want 130; stderr %q", args, code, e.String())
		}
	}
}

// TestAdvisorSandboxedContext: in a Landlock session the privileged side's
// model sees what the argv does not show: a redirection truncating an
// existing file (attack A1) and the statement as written (a DROP piped into
// a database CLI). Both are refused; the file is intact.
func TestAdvisorSandboxedContext(t *testing.T) {
	needLandlockSession(t)
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		p := advisortest.UserText(req)
		if strings.Contains(p, "DROP") || strings.HasPrefix(p, "shell redirection: truncates existing file") {
			return advisortest.Rating(100, "destroys data")
		}
		return advisortest.Rating(0, "harmless")
	})
	f := newFixture(t)
	f.writeAdvisorConfig(t, srv.URL, "5s")
	data := filepath.Join(f.project, "data.db")
	os.WriteFile(data, []byte("precious"), 0o644)
	stdout, stderr, _ := f.run(t, sandbox.BackendLandlock, ": > data.db; exec 3>data.db; echo 'DROP TABLE users;' | sqlite3 app.db; echo 'tmp' > $TMPDIR/x; : > $TMPDIR/x; echo done")
	if got, _ := os.ReadFile(data); string(got) != "precious" {
		t.Fatalf("data.db = %q (stderr %q)", got, stderr)
	}
	if n := strings.Count(stderr, "guardsh: refused [advisor.destructive]: the advisor rated this redirection 100%"); n != 2 {
		t.Errorf("%d redirections refused, want 2: stderr %q", n, stderr)
	}
	if !strings.Contains(stderr, "guardsh: refused [advisor.destructive]: the advisor rated this command 100%") {
		t.Errorf("the DROP pipeline was not refused: stderr %q", stderr)
	}
	if stdout != "done\n" {
		t.Errorf("stdout %q", stdout)
	}
}
