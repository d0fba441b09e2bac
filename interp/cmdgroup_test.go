package interp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// procsWith lists the pids of live (not zombie) processes whose command
// line contains s.
func procsWith(s string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		pids = append(pids, e.Name())
	}
	return pids
}

func agentRunner(t *testing.T) *Runner {
	t.Helper()
	dir := t.TempDir()
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Project: dir, Dir: dir,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunCommandTimeoutKillsGroup: when an agent command times out, every
// process it started is gone by the time RunCommand returns: the
// foreground one, a background job, one started by a nested bash, and a
// grandchild whose parent already exited (reparented away from guardsh).
func TestRunCommandTimeoutKillsGroup(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	const tag = "7.31"
	script := `sleep 100` + tag + `1 & bash -c 'sleep 100` + tag + `2 & sleep 100` + tag + `3'`
	if _, err := exec.LookPath("python3"); err == nil {
		script = `python3 -c 'import subprocess; subprocess.Popen(["sleep", "100` + tag + `4"])'; ` + script
	}
	r := agentRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	start := time.Now()
	st := r.RunCommand(ctx, script, &out, &errb)
	if st != 124 {
		t.Errorf("status %d, want 124 (%s)", st, errb.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v after a 1.5s time limit", d)
	}
	if p := procsWith("100" + tag); len(p) > 0 {
		t.Errorf("still running after the time limit: %v", p)
	}
	// The session goes on, and a background job of a command that ended
	// normally is left alone (a dev server started with &).
	out.Reset()
	if st := r.RunCommand(context.Background(), `sleep 100`+tag+`5 & echo started`, &out, &errb); st != 0 || !strings.Contains(out.String(), "started") {
		t.Fatalf("next command: %d %q %q", st, out.String(), errb.String())
	}
	time.Sleep(100 * time.Millisecond)
	if len(procsWith("100"+tag+"5")) != 1 {
		t.Errorf("the background job of a finished command is gone")
	}
	r.KillChildren(9, time.Second)
}

// TestRunCommandStdinEmpty: a command reading stdin gets end-of-file at
// once, never the agent's or the terminal's input.
func TestRunCommandStdinEmpty(t *testing.T) {
	r := agentRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	src := `cat; echo "cat=$?"; read x; echo "read=$?"; wc -c; head -1; echo end`
	if _, err := exec.LookPath("python3"); err == nil {
		src += `; python3 -c 'import sys; print("py=%d" % len(sys.stdin.read()))'`
	}
	start := time.Now()
	st := r.RunCommand(ctx, src, &out, &errb)
	if st != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("status %d after %v: %q %q", st, time.Since(start), out.String(), errb.String())
	}
	for _, want := range []string{"cat=0", "read=1", "\n0\n", "end"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q: %q", want, out.String())
		}
	}
	if strings.Contains(src, "python3") && !strings.Contains(out.String(), "py=0") {
		t.Errorf("python read something: %q", out.String())
	}
}

// TestKillNestedShell: kill of a nested shell's virtual PID stops the
// shell, as kill of a bash child does: it runs no further command, and wait
// reports 128+SIGTERM (bash 5.2: "rc=143", no "after").
func TestKillNestedShell(t *testing.T) {
	dir := t.TempDir()
	src := `bash -c 'touch ready; sleep 2; echo after' & p=$!
until [ -e ready ]; do sleep 0.01; done
kill $p; wait $p; echo "rc=$?"`
	out, errs, st := runScript(t, dir, src)
	if out != "rc=143\n" || st != 0 {
		t.Errorf("stdout %q status %d, want %q 0 (stderr %q)", out, st, "rc=143\n", errs)
	}
}
