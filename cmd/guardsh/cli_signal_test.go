package main

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignals starts guardsh running each script, waits until the processes named
// by wantChildren (command lines) run below it, sends sig (to guardsh alone,
// or to its whole process group), and requires the exit status and that
// none of those processes is left.
func TestSignals(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	tests := []struct {
		name     string
		script   string
		children []string // cmdlines that must be running before the signal
		sig      syscall.Signal
		group    bool // send to the process group, as a terminal's Ctrl-C does
		status   int
	}{
		{"ctrl-c", "sleep 101; echo not reached", []string{"sleep 101"}, syscall.SIGINT, true, 130},
		{"ctrl-c-pipeline", "sleep 102 | cat; echo not reached", []string{"sleep 102"}, syscall.SIGINT, true, 130},
		{"ctrl-c-background", "sleep 110 & sleep 103", []string{"sleep 110", "sleep 103"}, syscall.SIGINT, true, 130},
		{"sigterm", "sleep 104; echo not reached", []string{"sleep 104"}, syscall.SIGTERM, false, 143},
		{"sighup", "sleep 105", []string{"sleep 105"}, syscall.SIGHUP, false, 129},
		{"sigterm-background", "sleep 106 & sleep 107", []string{"sleep 106", "sleep 107"}, syscall.SIGTERM, false, 143},
		{"sigterm-nested-shell", "bash -c 'sleep 108; echo no'", []string{"sleep 108"}, syscall.SIGTERM, false, 143},
		{"sigterm-grandchild", `python3 -c 'import subprocess; subprocess.run(["sleep", "109"])'`, []string{"sleep 109"}, syscall.SIGTERM, false, 143},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.script, "python3") {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("python3 not installed")
				}
			}
			cmd := exec.Command(bin, "-c", tc.script)
			cmd.Env = append(os.Environ(), "GUARDSH_MODE=bypass")
			cmd.Dir = t.TempDir()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}()
			var pids []int
			deadline := time.Now().Add(10 * time.Second)
			for {
				pids = findBelow(cmd.Process.Pid, tc.children)
				if len(pids) == len(tc.children) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("children %q did not start (found %v)", tc.children, pids)
				}
				time.Sleep(20 * time.Millisecond)
			}
			target := cmd.Process.Pid
			if tc.group {
				target = -target
			}
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				status := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					status = ee.ExitCode()
					if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						status = 128 + int(ws.Signal())
					}
				}
				if status != tc.status {
					t.Errorf("guardsh exited %d, want %d", status, tc.status)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("guardsh did not exit after %v", tc.sig)
			}
			// Nothing guardsh started may outlive it: not running, and not
			// a zombie either. A stopped child is gone once its new parent
			// has reaped it, which a loaded machine may delay; a survivor
			// (the sleeps last 100 s and more) is still there after 10 s.
			for _, pid := range pids {
				for i := 0; i < 200 && alive(pid); i++ {
					time.Sleep(50 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("child %d (%s) still running after guardsh exited", pid, cmdline(pid))
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// findBelow returns the PIDs of the descendants of root whose command
// lines are in want.
func findBelow(root int, want []string) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		parent[pid] = ppid(pid)
	}
	var out []int
	for _, w := range want {
		for pid := range parent {
			if cmdline(pid) != w {
				continue
			}
			for p := parent[pid]; p > 1; p = parent[p] {
				if p == root {
					out = append(out, pid)
					break
				}
			}
		}
	}
	return out
}

func ppid(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func cmdline(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

// alive reports whether pid exists (zombies count: nobody reaped it).
func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// TestBackgroundOutlivesExit: as in bash, a background job (also one a
// nested shell started) keeps running after guardsh exits normally (an
// agent's dev server); only SIGTERM/SIGHUP to guardsh end them.
func TestBackgroundOutlivesExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	cmd := exec.Command(bin, "-c", `sleep 121 >/dev/null 2>&1 & bash -c 'sleep 122 >/dev/null 2>&1 &'; echo started`)
	cmd.Env = append(os.Environ(), "GUARDSH_MODE=bypass")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	time.Sleep(100 * time.Millisecond)
	for _, want := range []string{"sleep 121", "sleep 122"} {
		pids := findAll(want)
		if len(pids) == 0 {
			t.Errorf("%q did not outlive guardsh", want)
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// findAll returns the PIDs of the processes whose command line is want.
func findAll(want string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && cmdline(pid) == want {
			out = append(out, pid)
		}
	}
	return out
}
