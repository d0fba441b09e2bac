//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// envPtyAgent makes the test binary a qwen-style agent (ptyAgent): it
// runs /bin/bash -c "$GUARDSH_TEST_PTY_AGENT" on a pseudo-terminal of its
// own and types "o", "s" and "y" into it all the time, as a model whose
// text reaches an interactive shell tool would.
const envPtyAgent = "GUARDSH_TEST_PTY_AGENT"

// envShAgent makes the test binary an agent that runs /bin/sh -c
// "$GUARDSH_TEST_SH_AGENT" by absolute path (as node's child_process.exec
// does), without a shell of its own.
const envShAgent = "GUARDSH_TEST_SH_AGENT"

func init() {
	if cmdline := os.Getenv(envPtyAgent); cmdline != "" {
		os.Exit(ptyAgent(cmdline))
	}
	if cmdline := os.Getenv(envShAgent); cmdline != "" {
		os.Unsetenv(envShAgent)
		cmd := exec.Command("/bin/sh", "-c", cmdline)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				os.Exit(ee.ExitCode())
			}
			os.Exit(111)
		}
		os.Exit(0)
	}
}

// ptyAgent is the agent: it prints what its PTY showed between
// "--- agent pty ---" lines and exits with the shell's status.
func ptyAgent(cmdline string) int {
	os.Unsetenv(envPtyAgent)
	cmd := exec.Command("/bin/bash", "-c", cmdline)
	f, err := pty.Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pty agent:", err)
		return 111
	}
	var mu sync.Mutex
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return seen.Write(p) }), f)
		close(done)
	}()
	stop := make(chan struct{})
	go func() {
		keys := []string{"o", "s", "y", "o\r", "s\n", "y\r\n"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(30 * time.Millisecond):
				f.Write([]byte(keys[i%len(keys)]))
			}
		}
	}()
	err = cmd.Wait()
	close(stop)
	f.Close()
	<-done
	mu.Lock()
	fmt.Printf("--- agent pty ---\n%s\n--- agent pty ---\n", seen.String())
	mu.Unlock()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// humanAt plays the human at the launcher's terminal (ptmx): each
// question is answered by answer(question text); it returns everything
// the terminal showed once the launcher is done.
func humanAt(ptmx *os.File, answer func(q string) string, finished <-chan struct{}) func() string {
	var mu sync.Mutex
	var out bytes.Buffer
	go io.Copy(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) }), ptmx)
	go func() {
		answered := 0
		for {
			select {
			case <-finished:
				return
			case <-time.After(20 * time.Millisecond):
			}
			mu.Lock()
			s := out.String()
			mu.Unlock()
			qs := strings.Split(s, "approve? ")
			if n := strings.Count(s, "[d] deny: "); n > answered && len(qs) > n {
				ptmx.Write([]byte(answer(qs[n])))
				answered = n
			}
		}
	}()
	return func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
}

// TestLaunchApprovalPoint (attack first): the agent runs its shell on a
// PTY it owns and types "o"/"s"/"y" at anything; under --launch no
// question appears there and nothing it types approves anything. The
// asks reach the launcher's own terminal, where the human (this test)
// approves the first command and denies the second, and both outcomes
// happen. A command in the sandbox looks for the channel (its inherited
// descriptors, the guardsh processes' descriptors through pidfd_getfd)
// and finds nothing to answer with.
func TestLaunchApprovalPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the launcher on a terminal")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 for the channel-hunting command")
	}
	dir := t.TempDir()
	home, _ := fakeHome(t)
	hunter := filepath.Join(dir, "hunt.py")
	os.WriteFile(hunter, []byte(huntChannel), 0o644)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	agent := fakeAgent(t, dir, "agent", `exec `+shQuote(self))
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(guardshTestBinary(t), "--launch", "--mode", "auto", "--", agent)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=",
		envPtyAgent+"="+python+" hunt.py > hunt.out; touch ~/yes-file; touch ~/no-file; echo agent-done > done.txt")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	finished := make(chan struct{})
	screen := humanAt(ptmx, func(q string) string {
		if strings.Contains(q, "yes-file") {
			return "o"
		}
		return "d"
	}, finished)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("the launcher hung\nterminal:\n%s\nstdout: %s\nstderr: %s", screen(), stdout.String(), stderr.String())
	}
	close(finished)
	nsOrSkip(t, stderr.String())
	t.Logf("launcher's terminal:\n%s\nagent:\n%s\nstderr:\n%s", screen(), stdout.String(), stderr.String())
	out, errOut := stdout.String(), stderr.String()
	_, agentPTY, _ := strings.Cut(out, "--- agent pty ---")
	if strings.Contains(agentPTY, "approve?") || strings.Contains(agentPTY, "[o] allow once") {
		t.Errorf("guardsh asked on the agent's own PTY:\n%s", agentPTY)
	}
	// (files, not the PTY, where the typed keys' echo interleaves)
	if b, err := os.ReadFile(filepath.Join(dir, "done.txt")); err != nil || string(b) != "agent-done\n" {
		t.Errorf("the agent's commands did not finish (%v):\n%s\nstderr: %s", err, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "hunt.out")); err != nil || !strings.HasPrefix(string(b), "reached 0 ") {
		t.Errorf("a sandboxed command reached something to answer with: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, "yes-file")); err != nil {
		t.Errorf("the command the human approved at the launcher did not run: %v\nterminal:\n%s\nagent:\n%s", err, screen(), out)
	}
	if _, err := os.Stat(filepath.Join(home, "no-file")); err == nil {
		t.Errorf("the command the human denied ran (the agent's keys approved it?)\nterminal:\n%s", screen())
	}
	s := screen()
	if !strings.Contains(s, "touch ~/yes-file") && !strings.Contains(s, "yes-file") || !strings.Contains(s, "no-file") {
		t.Errorf("the launcher's terminal did not show both asks:\n%s", s)
	}
	if !strings.Contains(agentPTY, "A human refused it") {
		t.Errorf("the denial did not reach the agent:\n%s", agentPTY)
	}
}

// huntChannel is a command run in the sandbox that looks for anything
// leading to the approval channel: its own descriptors (a socket it
// inherited) and every process's it can see through pidfd_getfd. It
// prints "reached N" with N the sockets it got.
const huntChannel = `
import os, socket, ctypes, stat
got = []
for fd in range(3, 256):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            got.append(("own", fd))
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        pfd = os.pidfd_open(int(pid))
    except OSError:
        continue
    for fd in range(0, 64):
        r = libc.syscall(438, pfd, fd, 0)  # pidfd_getfd
        if r >= 0:
            try:
                if stat.S_ISSOCK(os.fstat(r).st_mode):
                    got.append((pid, fd))
            finally:
                os.close(r)
    os.close(pfd)
print("reached", len(got), got)
`

// TestNoHumanOnForeignTerminal: without a launcher, a non-interactive
// guardsh on a terminal that is not tied to the human (here a PTY the
// test made, nobody typing) refuses an ask at once with the three-line
// message instead of waiting at a prompt (the old guardsh waited for an
// answer forever). With the user's own [approval] terminal_prompt it
// asks there; a project file cannot turn that on.
func TestNoHumanOnForeignTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	for _, tc := range []struct {
		name, userConf, projConf string
		prompt                   bool
	}{
		{"default", "", "", false},
		{"project file cannot opt in", "", "[approval]\nterminal_prompt = true\n", false},
		{"user file opts in", "[approval]\nterminal_prompt = true\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			if tc.userConf != "" {
				os.MkdirAll(filepath.Join(home, ".config", "guardsh"), 0o700)
				os.WriteFile(filepath.Join(home, ".config", "guardsh", "config.toml"), []byte(tc.userConf), 0o600)
			}
			if tc.projConf != "" {
				os.WriteFile(filepath.Join(dir, ".guardsh.toml"), []byte(tc.projConf), 0o600)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--no-sandbox", "-c", "touch ./made; echo done")
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
			if tc.prompt {
				for ctx.Err() == nil {
					mu.Lock()
					s := out.String()
					mu.Unlock()
					if strings.Contains(s, "[d] deny: ") {
						f.Write([]byte("d"))
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("guardsh hung at a prompt nobody could answer:\n%s", out.String())
			}
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
				t.Errorf("the ask was approved:\n%s", s)
			}
			if got := strings.Contains(s, "approve?"); got != tc.prompt {
				t.Errorf("prompted = %v, want %v:\n%s", got, tc.prompt, s)
			}
			if !tc.prompt && !strings.Contains(s, "No human could be asked") {
				t.Errorf("no three-line no-human message:\n%s", s)
			}
		})
	}
}
