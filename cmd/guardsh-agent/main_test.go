package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/version"
)

// fakeChat is a minimal Ollama /api/chat: it streams each scripted reply
// (native tool calls) as NDJSON and records the model asked for.
type fakeChat struct {
	mu     sync.Mutex
	models []string
	status int
	turns  []string // raw tool_calls JSON arrays
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	n := len(f.models)
	f.models = append(f.models, req.Model)
	f.mu.Unlock()
	if f.status != 0 {
		w.WriteHeader(f.status)
		fmt.Fprintf(w, `{"error":"model %q not found, try pulling it first"}`, req.Model)
		return
	}
	calls := `[{"function":{"name":"finish","arguments":{"summary":"script over"}}}]`
	if n < len(f.turns) {
		calls = f.turns[n]
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	fmt.Fprintf(w, `{"model":%q,"created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"Working on it."},"done":false}`+"\n", req.Model)
	fmt.Fprintf(w, `{"model":%q,"created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":%s},"done":false}`+"\n", req.Model, calls)
	fmt.Fprintf(w, `{"model":%q,"created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`+"\n", req.Model)
}

// setup makes a project and a fake HOME and state directory.
func setup(t *testing.T) (dir string, env func(string) string) {
	base := t.TempDir()
	dir = filepath.Join(base, "proj")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\n"), 0o644)
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	vars := map[string]string{"GUARDSH_MODEL": "tiny:1b", "XDG_CONFIG_HOME": filepath.Join(base, "config")}
	return dir, func(k string) string { return vars[k] }
}

func TestRunAndUndo(t *testing.T) {
	dir, env := setup(t)
	f := &fakeChat{turns: []string{
		`[{"function":{"name":"write_file","arguments":{"path":"NOTES.md","content":"hello\n"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":"true"}}}]`,
		`[{"function":{"name":"finish","arguments":{"summary":"wrote the notes"}}}]`,
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--host", srv.URL, "--workdir", dir, "--test-cmd", "true", "--mode", "auto", "write notes"}, &out, &errb, env)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"Working on it.", "-> write_file", "== done: wrote the notes", "verification: tests pass (true", "take it all back: guardsh-agent undo", "run record"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// One audit log: the file tools' decisions (this process) and the
	// shell's (the session process).
	audit, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), ".local", "state", "guardsh", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"argv":["write_file","NOTES.md"]`, `"via":"agent"`, `"counts":{"true":1}`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("audit log lacks %s:\n%s", want, audit)
		}
	}
	if f.models[0] != "tiny:1b" {
		t.Errorf("model %q, want GUARDSH_MODEL's", f.models[0])
	}
	out.Reset()
	if code := run(context.Background(), []string{"undo", "--workdir", dir}, &out, &errb, env); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "NOTES.md")); err == nil || !strings.Contains(out.String(), "removed  NOTES.md") {
		t.Errorf("undo did not remove NOTES.md:\n%s", out.String())
	}
}

func TestModelNotFound(t *testing.T) {
	dir, env := setup(t)
	srv := httptest.NewServer(&fakeChat{status: 404})
	defer srv.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--host", srv.URL, "--workdir", dir, "--model", "nosuch:7b", "task"}, &out, &errb, env)
	if code != 1 || !strings.Contains(errb.String(), "model not found: run `ollama pull nosuch:7b`") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// TestVersion: --version prints the version and runs nothing.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--version"}, &out, &errb, func(string) string { return "" })
	if want := "guardsh-agent " + version.Of(Version) + "\n"; code != 0 || out.String() != want || errb.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, out.String(), errb.String(), want)
	}
}

func TestUsageErrors(t *testing.T) {
	dir, env := setup(t)
	for _, args := range [][]string{{}, {"--workdir", dir}, {"--mode", "yolo", "task"}, {"--bogus", "task"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb, env); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "http://127.0.0.1:11434",
		"localhost":              "http://localhost:11434",
		"10.0.0.5:8080":          "http://10.0.0.5:8080",
		"https://ollama.example": "https://ollama.example",
		"http://box:11434/":      "http://box:11434/",
	} {
		_, got, err := ollamaURL(in)
		if err != nil || got != want {
			t.Errorf("ollamaURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// outsideTarget is a path outside /tmp and outside every test project,
// for attacks that write outside the project.
func outsideTarget(t *testing.T, prefix string) string {
	t.Helper()
	realHome, _ := os.UserHomeDir()
	outside, err := os.MkdirTemp(realHome, prefix)
	if err != nil {
		t.Skipf("no directory outside /tmp and the project: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	return filepath.Join(outside, "pwned")
}

// writeOutside has the model run_shell a redirection to target in mode,
// with or without the sandboxed session, and reports whether the write
// landed (removing it) and what the agent printed.
func writeOutside(t *testing.T, target, mode string, noSandbox bool) (landed bool, out, errs string) {
	t.Helper()
	dir, env := setup(t)
	args := []string{"--workdir", dir, "--mode", mode, "task"}
	if noSandbox {
		args = append([]string{"--no-sandbox"}, args...)
	}
	out, errs = runAgentTurns(t, env, args,
		`[{"function":{"name":"run_shell","arguments":{"command":"echo pwned > `+target+`; echo status=$?"}}}]`)
	_, statErr := os.Stat(target)
	os.Remove(target)
	return statErr == nil, out, errs
}

// runAgentTurns runs guardsh-agent with args against a fake model playing
// turns (--host is added) and returns what it printed; it skips t when
// this machine has no sandbox backend.
func runAgentTurns(t *testing.T, env func(string) string, args []string, turns ...string) (out, errs string) {
	t.Helper()
	srv := httptest.NewServer(&fakeChat{turns: turns})
	defer srv.Close()
	var o, e bytes.Buffer
	code := run(context.Background(), append([]string{"--host", srv.URL}, args...), &o, &e, env)
	if code == 2 && strings.Contains(e.String(), "no sandbox backend") {
		t.Skipf("no sandbox here: %s", e.String())
	}
	return o.String(), e.String()
}

// TestSandboxedSession: in bypass mode the rules let a write outside the
// project through, and the kernel sandbox of the agent's shell session
// still stops it; without the sandbox (the control) it lands.
func TestSandboxedSession(t *testing.T) {
	target := outsideTarget(t, ".guardsh-agent-escape-")
	landed, out, _ := writeOutside(t, target, "bypass", false)
	if landed {
		t.Fatalf("the sandboxed session wrote outside the project:\n%s", out)
	}
	if !strings.Contains(out, "sandbox landlock") && !strings.Contains(out, "sandbox bwrap") {
		t.Errorf("no sandbox named in the header:\n%s", out)
	}
	if landed, out, errs := writeOutside(t, target, "bypass", true); !landed {
		t.Fatalf("control: without the sandbox the write should land:\n%s\n%s", out, errs)
	}
}

// TestShellRedirectJailed: the agent's shell opens redirection targets
// through the path jail, with or without the sandboxed session, so a write
// outside the project that the mode does not allow never lands.
func TestShellRedirectJailed(t *testing.T) {
	target := outsideTarget(t, ".guardsh-agent-jail-")
	for _, noSandbox := range []bool{true, false} {
		landed, out, errs := writeOutside(t, target, "auto", noSandbox)
		if landed {
			t.Fatalf("noSandbox=%v: the shell wrote outside the project:\n%s\n%s", noSandbox, out, errs)
		}
		if !strings.Contains(out, "outside-project") {
			t.Errorf("noSandbox=%v: the refusal does not name its rule:\n%s", noSandbox, out)
		}
	}
}

// TestMain lets a test start this binary as guardsh-agent itself.
func TestMain(m *testing.M) {
	if os.Getenv("GUARDSH_AGENT_TEST_MAIN") == "1" {
		os.Args = append([]string{"guardsh-agent"}, strings.Split(os.Getenv("GUARDSH_AGENT_TEST_ARGS"), "\x1f")...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestCtrlC: Ctrl-C (SIGINT to the whole foreground process group, as a
// terminal sends it) during a command stops the run cleanly: the command
// is gone, the agent says so and exits 130.
func TestCtrlC(t *testing.T) {
	for _, noSandbox := range []bool{false, true} {
		dir, _ := setup(t)
		const marker = "40.3917"
		f := &fakeChat{turns: []string{`[{"function":{"name":"run_shell","arguments":{"command":"sleep ` + marker + `"}}}]`}}
		srv := httptest.NewServer(f)
		args := []string{"--host", srv.URL, "--workdir", dir, "--mode", "auto", "wait"}
		if noSandbox {
			args = append([]string{"--no-sandbox"}, args...)
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "GUARDSH_AGENT_TEST_MAIN=1", "GUARDSH_AGENT_TEST_ARGS="+strings.Join(args, "\x1f"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200 && len(sleeping(marker)) == 0; i++ {
			time.Sleep(25 * time.Millisecond)
		}
		if len(sleeping(marker)) == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the command never started:\n%s\n%s", out.String(), errb.String())
		}
		start := time.Now()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("the agent did not stop on Ctrl-C:\n%s", out.String())
		}
		srv.Close()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit %d, want 130\n%s\n%s", code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "== stopped: interrupted") {
			t.Errorf("no clean stop message:\n%s", out.String())
		}
		if p := sleeping(marker); len(p) > 0 {
			t.Errorf("command still running after Ctrl-C: %v", p)
		}
		t.Logf("stopped in %v (sandbox off: %v)", time.Since(start), noSandbox)
	}
}

// sleeping lists processes whose command line contains s.
func sleeping(s string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && !strings.Contains(string(b), "GUARDSH_AGENT") && strings.HasPrefix(string(b), "sleep") {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestSessionRestarts: a command that kills the sandboxed session does not
// end the run: the next command gets a new session, and the model is told.
func TestSessionRestarts(t *testing.T) {
	dir, env := setup(t)
	out, errs := runAgentTurns(t, env, []string{"--workdir", dir, "--mode", "bypass", "task"},
		`[{"function":{"name":"run_shell","arguments":{"command":"cd /tmp; kill -9 $$"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":"echo alive in $PWD"}}}]`)
	for _, want := range []string{"shell session ended during the command", "this is a new one in the project root", "alive in " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, out, errs)
		}
	}
}

// killAgentAfter runs guardsh-agent on dir as a separate process against a
// fake model playing turns, and SIGKILLs it after delay.
func killAgentAfter(t *testing.T, dir string, turns []string, delay time.Duration) {
	t.Helper()
	srv := httptest.NewServer(&fakeChat{turns: turns})
	defer srv.Close()
	args := []string{"--host", srv.URL, "--workdir", dir, "--mode", "auto", "--no-sandbox", "--test-cmd", "true", "churn"}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "GUARDSH_AGENT_TEST_MAIN=1", "GUARDSH_AGENT_TEST_ARGS="+strings.Join(args, "\x1f"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	cmd.Process.Kill()
	cmd.Wait()
}

// TestKillAnyTimeThenUndo: the agent killed (SIGKILL) at any moment of a
// run full of writes leaves a record undo can use: every file comes back
// to what it was before the run.
func TestKillAnyTimeThenUndo(t *testing.T) { killAnyTimeThenUndo(t, false) }

// TestKillAnyTimeThenUndoGit is the same in a git repository: undo also
// brings the repository back to its start branch, clean.
func TestKillAnyTimeThenUndoGit(t *testing.T) { killAnyTimeThenUndo(t, true) }

// killAnyTimeThenUndo kills the agent at several moments of a run full of
// writes, runs undo, and checks that every file is back (and, with git,
// that the repository is on its start branch, clean).
func killAnyTimeThenUndo(t *testing.T, git bool) {
	var turns []string
	for i := 0; i < 12; i++ {
		turns = append(turns,
			fmt.Sprintf(`[{"function":{"name":"read_file","arguments":{"path":"f%d.txt"}}},{"function":{"name":"write_file","arguments":{"path":"f%d.txt","content":"changed %d\n"}}},{"function":{"name":"write_file","arguments":{"path":"new/n%d.txt","content":"new\n"}}}]`, i%4, i%4, i, i))
	}
	for _, delay := range []time.Duration{0, 20, 40, 60, 90, 130, 200} {
		dir, _ := setup(t)
		for i := 0; i < 4; i++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintf("original %d\n", i)), 0o644)
		}
		if git {
			gitIn(t, dir, "init", "-q", "-b", "main")
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "commit", "-q", "-m", "start")
		}
		killAgentAfter(t, dir, turns, delay*time.Millisecond)
		if git {
			time.Sleep(300 * time.Millisecond) // a git command the agent started finishes on its own
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"undo", "--workdir", dir}, &out, &errb, nil)
		if code != 0 && !strings.Contains(errb.String(), "no guardsh-agent run recorded") {
			t.Fatalf("delay %v: undo: %d %s", delay, code, errb.String())
		}
		for i := 0; i < 4; i++ {
			b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)))
			if string(b) != fmt.Sprintf("original %d\n", i) {
				t.Errorf("delay %v: f%d.txt = %q after undo\n%s", delay, i, b, out.String())
			}
		}
		if git {
			if b := gitIn(t, dir, "symbolic-ref", "--short", "HEAD"); b != "main" {
				t.Errorf("delay %v: on %s after undo\n%s", delay, b, out.String())
			}
			if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("delay %v: not clean after undo: %s\n%s", delay, st, out.String())
			}
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "new")); len(ents) > 0 {
			t.Errorf("delay %v: created files left after undo: %d", delay, len(ents))
		}
	}
}

// gitIn runs git in dir (a throwaway identity, no signing) and returns its
// trimmed output; a failure fails the test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestEscalation: a command whose configured rule grants a write outside
// the project runs through the agent's privileged side with exactly that
// right; the same write without a rule is refused (no human to ask).
func TestEscalation(t *testing.T) {
	realHome, _ := os.UserHomeDir()
	outside, err := os.MkdirTemp(realHome, ".guardsh-agent-grant-")
	if err != nil {
		t.Skipf("no directory outside /tmp and the project: %v", err)
	}
	defer os.RemoveAll(outside)
	dir, env := setup(t)
	cfgDir := filepath.Join(env("XDG_CONFIG_HOME"), "guardsh")
	os.MkdirAll(cfgDir, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(fmt.Sprintf(`
[[rule]]
id = "user.touch-granted"
decision = "allow"
prefix = ["touch", %q]
write = [%q]
`, outside+"/granted", outside)), 0o644)
	out, errs := runAgentTurns(t, env, []string{"--workdir", dir, "--mode", "auto", "task"},
		`[{"function":{"name":"run_shell","arguments":{"command":"touch `+outside+`/granted; echo granted=$?"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":"touch `+outside+`/other; echo other=$?"}}}]`)
	if _, err := os.Stat(filepath.Join(outside, "granted")); err != nil {
		t.Errorf("the granted write did not happen:\n%s\n%s", out, errs)
	}
	if _, err := os.Stat(filepath.Join(outside, "other")); err == nil {
		t.Errorf("a write without a rule happened:\n%s", out)
	}
	audit, _ := os.ReadFile(filepath.Join(os.Getenv("HOME"), ".local", "state", "guardsh", "audit.jsonl"))
	if !strings.Contains(string(audit), `"rule":"user.touch-granted"`) || !strings.Contains(string(audit), `"escalated":true`) {
		t.Errorf("the audit log does not show the escalation:\n%s", audit)
	}
}

// TestGoCacheInSandbox: the sandboxed session has a Go build cache it can
// write (its own, not the user's), so go test works in it.
func TestGoCacheInSandbox(t *testing.T) {
	realHome, _ := os.UserHomeDir()
	home, err := os.MkdirTemp(realHome, ".guardsh-agent-home-")
	if err != nil {
		t.Skipf("no home outside /tmp: %v", err)
	}
	defer os.RemoveAll(home)
	dir, env := setup(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("GOCACHE", "")
	os.Unsetenv("GOCACHE")
	out, errs := runAgentTurns(t, env, []string{"--workdir", dir, "--mode", "bypass", "task"},
		`[{"function":{"name":"run_shell","arguments":{"command":"touch \"$(go env GOCACHE)/probe\" && echo cache=writable; go env GOCACHE"}}}]`)
	if !strings.Contains(out, "cache=writable") || !strings.Contains(out, filepath.Join(home, ".cache", "guardsh", "agent-go-build")) {
		t.Errorf("no writable agent Go cache in the session:\n%s\n%s", out, errs)
	}
}
