package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentRun runs the agent on a fresh project against a fake model playing
// turns, with getenv falling back to the process environment (as main's
// os.Getenv), and returns its stdout, stderr and audit log. It skips when
// the sandbox is wanted and none is available.
func agentRun(t *testing.T, config string, turns []string, args ...string) (out, errs, audit string) {
	t.Helper()
	out, errs, audit, noSandbox := agentRunTry(t, config, turns, args...)
	if noSandbox {
		t.Skipf("no sandbox here: %s", errs)
	}
	return out, errs, audit
}

// agentRunTry is agentRun, reporting instead of skipping when the sandbox
// is wanted and none is available.
func agentRunTry(t *testing.T, config string, turns []string, args ...string) (out, errs, audit string, noSandbox bool) {
	t.Helper()
	return agentRunPrep(t, config, nil, turns, args...)
}

// agentRunWith is agentRun with prep called on the fake HOME and
// XDG_CONFIG_HOME before the run.
func agentRunWith(t *testing.T, prep func(home, config string), turns []string, args ...string) (out, errs, audit string) {
	t.Helper()
	out, errs, audit, noSandbox := agentRunPrep(t, "", prep, turns, args...)
	if noSandbox {
		t.Skipf("no sandbox here: %s", errs)
	}
	return out, errs, audit
}

func agentRunPrep(t *testing.T, config string, prep func(home, config string), turns []string, args ...string) (out, errs, audit string, noSandbox bool) {
	t.Helper()
	dir, env := setup(t)
	lastAgentDir = dir
	if prep != nil {
		prep(os.Getenv("HOME"), env("XDG_CONFIG_HOME"))
	}
	if config != "" {
		p := filepath.Join(env("XDG_CONFIG_HOME"), "guardsh", "config.toml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(&fakeChat{turns: turns})
	defer srv.Close()
	t.Setenv("OLLAMA_HOST", srv.URL) // the agent's own variable, scrubbed for the commands below
	getenv := func(k string) string {
		if v := env(k); v != "" {
			return v
		}
		return os.Getenv(k)
	}
	var o, e bytes.Buffer
	args = append(append([]string{"--mode", "bypass"}, args...), "--workdir", dir, "task")
	code := run(context.Background(), args, &o, &e, getenv)
	a, _ := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "guardsh", "audit.jsonl"))
	return o.String(), e.String(), string(a), code == 2 && strings.Contains(e.String(), "no sandbox backend")
}

// lastAgentDir is the project of agentRun's last run.
var lastAgentDir string

func shellTurn(cmd string, timeout int) string {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(cmd)
	if timeout > 0 {
		return `[{"function":{"name":"run_shell","arguments":{"command":"` + q + `","timeout_s":` + strconv.Itoa(timeout) + `}}}]`
	}
	return `[{"function":{"name":"run_shell","arguments":{"command":"` + q + `"}}}]`
}

// TestAgentScrubsEnv: the model's commands run without the secret-looking
// variables (on by default for the agent, sandboxed or not), while the
// agent itself still reaches Ollama through OLLAMA_HOST, which the
// configuration scrubs from the commands; an allowlisted variable is
// there; --scrub-env=false gives the whole environment back.
func TestAgentScrubsEnv(t *testing.T) {
	t.Setenv("GH_TOKEN", "gh_AGENTV4LUE")
	t.Setenv("ANTHROPIC_API_KEY", "ant_AGENTV4LUE")
	t.Setenv("NPM_TOKEN", "npm_kept")
	const probe = `echo "[$GH_TOKEN][$ANTHROPIC_API_KEY][$OLLAMA_HOST][$NPM_TOKEN]"; env | grep -c AGENTV4LUE; bash -c 'echo "b[$GH_TOKEN]"'`
	config := "[env]\nkeep = [\"NPM_TOKEN\"]\nscrub = [\"OLLAMA_*\"]\n"
	for _, noSandbox := range []bool{false, true} {
		var args []string
		if noSandbox {
			args = []string{"--no-sandbox"}
		}
		out, errs, audit := agentRun(t, config, []string{shellTurn(probe, 0)}, args...)
		if !strings.Contains(out, "[][][][npm_kept]\n0\nb[]") {
			t.Errorf("noSandbox=%v: the commands saw secrets, or the kept one is missing:\n%s\n%s", noSandbox, out, errs)
		}
		for _, n := range []string{"GH_TOKEN", "ANTHROPIC_API_KEY", "OLLAMA_HOST"} {
			if !strings.Contains(out, "commands run without ") || !strings.Contains(out, n) {
				t.Errorf("noSandbox=%v: no note that %s was removed:\n%s", noSandbox, n, out)
			}
		}
		if !strings.Contains(audit, `"env_scrubbed":[`) || strings.Contains(audit, "gh_AGENTV4LUE") {
			t.Errorf("noSandbox=%v: audit log:\n%s", noSandbox, audit)
		}
	}
	out, errs, _ := agentRun(t, config, []string{shellTurn(probe, 0)}, "--scrub-env=false")
	if !strings.Contains(out, "[gh_AGENTV4LUE][ant_AGENTV4LUE]") || !strings.Contains(errs, "secret scrubbing is off") {
		t.Errorf("--scrub-env=false:\n%s\n%s", out, errs)
	}
	out, _, _ = agentRun(t, "[env]\nscrub_secrets = false\n", []string{shellTurn(probe, 0)})
	if !strings.Contains(out, "[gh_AGENTV4LUE]") {
		t.Errorf("scrub_secrets = false:\n%s", out)
	}
}

// TestAgentShellTimeoutKillsAll: a run_shell command that times out is
// stopped with everything it started (a background job, a nested bash's
// child, a grandchild its parent left behind), sandboxed or not; a command
// reading stdin gets end-of-file at once.
func TestAgentShellTimeoutKillsAll(t *testing.T) {
	const tag = "93.17"
	cmd := `sleep 100` + tag + `1 & bash -c 'sleep 100` + tag + `2 & sleep 100` + tag + `3'`
	for _, noSandbox := range []bool{false, true} {
		var args []string
		if noSandbox {
			args = []string{"--no-sandbox"}
		}
		start := time.Now()
		out, errs, _ := agentRun(t, "", []string{shellTurn(`cat; read x; echo "stdin done $?"`, 0), shellTurn(cmd, 1)}, args...)
		if !strings.Contains(out, "stdin done 1") {
			t.Errorf("noSandbox=%v: stdin not empty:\n%s\n%s", noSandbox, out, errs)
		}
		if !strings.Contains(out, "exit 124 in 1") {
			t.Errorf("noSandbox=%v: no timeout reported:\n%s\n%s", noSandbox, out, errs)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("noSandbox=%v: took %v", noSandbox, d)
		}
		if p := sleeping("100" + tag); len(p) > 0 {
			t.Errorf("noSandbox=%v: still running after the time limit: %v", noSandbox, p)
			for _, pid := range p {
				if n, err := strconv.Atoi(pid); err == nil {
					syscall.Kill(n, syscall.SIGKILL)
				}
			}
		}
	}
}

// TestAgentEscalatedTimeout: a command the privileged side runs for the
// session (escalated: a rule grants it the network) is stopped by
// run_shell's time limit too, not left to run to its end.
func TestAgentEscalatedTimeout(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 needed")
	}
	t.Setenv("PATH", "/usr/bin:/bin") // not a version manager's shims
	const marker = "time.sleep(1007.129)"
	config := "[[rule]]\nid = \"user.slow-net\"\ndecision = \"allow\"\nprefix = [\"python3\", \"-c\"]\nnetwork = true\n"
	start := time.Now()
	out, errs, audit := agentRun(t, config, []string{shellTurn(`python3 -c 'import time; `+marker+`'; echo after`, 1)}, "--mode", "default")
	if !strings.Contains(audit, `"escalated":true`) {
		t.Skipf("python3 was not escalated:\n%s\n%s\n%s", out, errs, audit)
	}
	if d := time.Since(start); d > 20*time.Second || !strings.Contains(out, "exit 124 in ") || strings.Contains(out, "\nafter\n") {
		t.Errorf("the escalated command was not stopped at the time limit (%v):\n%s\n%s", d, out, errs)
	}
	if p := procsWith(marker); len(p) > 0 {
		t.Errorf("still running: %v", p)
		for _, pid := range p {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// procsWith lists the live processes whose command line contains s.
func procsWith(s string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err == nil && strings.Contains(string(b), s) && !strings.Contains(string(b), "GUARDSH_AGENT") && !bytes.Contains(st, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestAgentProcEnviron: the agent process keeps its whole environment (it
// started with it), but blanks the secrets in the copy the kernel shows
// in /proc/<agent>/environ. From the sandboxed session no command can
// read any other process's environ anyway; without the sandbox the
// commands run in the agent's own process (/proc/$$/environ is the
// agent's), and still find nothing.
func TestAgentProcEnviron(t *testing.T) {
	const probe = `for f in /proc/[0-9]*/environ; do if grep -aq gh_PROCV4LU[E] "$f" 2>/dev/null; then echo "LEAK $f"; fi; done; echo "[$GH_TOKEN] scanned"`
	for _, noSandbox := range []bool{false, true} {
		dir, _ := setup(t)
		srv := httptest.NewServer(&fakeChat{turns: []string{shellTurn(probe, 0)}})
		args := []string{"--host", srv.URL, "--workdir", dir, "--mode", "bypass", "scan"}
		if noSandbox {
			args = append([]string{"--no-sandbox"}, args...)
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "GH_TOKEN=gh_PROCV4LUE", "GUARDSH_AGENT_TEST_MAIN=1", "GUARDSH_AGENT_TEST_ARGS="+strings.Join(args, "\x1f"))
		out, err := cmd.CombinedOutput()
		srv.Close()
		if strings.Contains(string(out), "no sandbox backend") {
			t.Skipf("no sandbox here: %s", out)
		}
		if err != nil || !strings.Contains(string(out), "[] scanned") {
			t.Fatalf("noSandbox=%v: %v\n%s", noSandbox, err, out)
		}
		if strings.Contains(string(out), "LEAK /proc/") {
			t.Errorf("noSandbox=%v: a command read the secret from /proc:\n%s", noSandbox, out)
		}
		if testing.Verbose() {
			t.Logf("noSandbox=%v: %s", noSandbox, out)
		}
	}
}

// TestAgentSetsidSurvivor: a program that leaves run_shell's
// process groups (setsid) and whose parent exits is stopped, sandboxed or
// not: when the call that started it times out (at once, before the result
// comes back), and when the run ends (before the final checkpoint, diff and
// verification): nothing the model started outlives the agent, and
// nothing writes to the project after the run reported.
func TestAgentSetsidSurvivor(t *testing.T) {
	const survivor = `setsid sh -c 'sleep 4.0371; echo survived > survived.txt' >/dev/null 2>&1 & echo started`
	const inTimeout = `setsid sh -c 'sleep 4.0372; echo survived > timedout.txt' >/dev/null 2>&1 & sleep 10; echo not-killed`
	const check = `sleep 0.3; for p in /proc/[0-9]*/cmdline; do if tr '\0' ' ' <"$p" 2>/dev/null | grep -q '^sleep 4.037[2]'; then echo "ALIVE $p"; fi; done; echo checked`
	start := time.Now()
	dirs := map[string]string{}
	var lastStart time.Time
	for _, v := range []struct{ name, sandbox, flag string }{
		{"sandbox (first backend)", "", ""},
		{"bwrap", "bwrap", ""}, // the stage and bwrap's own processes are not the commands'
		{"no sandbox", "", "--no-sandbox"},
	} {
		t.Setenv("GUARDSH_SANDBOX", v.sandbox)
		var args []string
		if v.flag != "" {
			args = []string{v.flag}
		}
		lastStart = time.Now()
		out, errs, _, noSandbox := agentRunTry(t, "", []string{shellTurn(survivor, 0), shellTurn(inTimeout, 1), shellTurn(check, 0)}, args...)
		if noSandbox {
			t.Logf("%s: not available here: %s", v.name, errs)
			continue
		}
		dirs[v.name] = lastAgentDir
		if testing.Verbose() {
			t.Logf("%s, %v after the start:\n%s\n%s", v.name, time.Since(start), out, errs)
		}
		if !strings.Contains(out, "started") || !strings.Contains(out, "exit 124 in 1") || !strings.Contains(out, "checked") {
			t.Fatalf("%s: unexpected run:\n%s\n%s", v.name, out, errs)
		}
		if strings.Contains(out, "ALIVE") {
			t.Errorf("%s: the setsid'd process of the timed-out call still runs after the result came back:\n%s", v.name, out)
		}
		alive := append(procsWith("sleep 4.0371"), procsWith("sleep 4.0372")...)
		if len(alive) > 0 {
			t.Errorf("%s: processes outlive the run: %v", v.name, alive)
			for _, p := range alive {
				defer syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
	if len(dirs) < 2 {
		t.Errorf("ran in %d configurations only", len(dirs))
	}
	// Wait past the sleeps of the last run: nothing appears in any
	// project.
	time.Sleep(time.Until(lastStart.Add(5 * time.Second)))
	for name, dir := range dirs {
		for _, f := range []string{"survived.txt", "timedout.txt"} {
			if fi, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s: %s written after the run (%v after the start)", name, f, fi.ModTime().Sub(start))
			}
		}
	}
}

// TestAgentReapAfterSessionRestart: a background job of a session that a
// command killed is adopted by the agent; the new session's processes are
// left alone, but that job is stopped when the run ends, before the report.
func TestAgentReapAfterSessionRestart(t *testing.T) {
	out, errs, _ := agentRun(t, "", []string{shellTurn(`sleep 30.0373 & kill -9 $$`, 0), shellTurn(`echo alive`, 0)})
	if !strings.Contains(out, "this is a new one") && !strings.Contains(errs, "this is a new one") {
		t.Fatalf("the session did not restart:\n%s\n%s", out, errs)
	}
	if !strings.Contains(out, "alive") || !regexp.MustCompile(`stopped 1 process\(es\) the commands left running: \d+ \(sleep\)\n`).MatchString(out) {
		t.Errorf("the old session's job was not stopped at the end of the run (or more was):\n%s\n%s", out, errs)
	}
	if p := procsWith("sleep 30.0373"); len(p) > 0 {
		t.Errorf("still running: %v", p)
		for _, pid := range p {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
