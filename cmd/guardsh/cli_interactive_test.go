package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptySession is guardsh running interactively on a pseudo-terminal.
type ptySession struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // output before this offset has been matched already
	done chan error
}

func startPty(t *testing.T, args ...string) *ptySession {
	t.Helper()
	return startPtyPS1(t, "PROMPT> ", args...)
}

func startPtyPS1(t *testing.T, ps1 string, args ...string) *ptySession {
	t.Helper()
	bin := guardshTestBinary(t)
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "PS1="+ps1, "GUARDSH_MODE=bypass", "TERM=dumb")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	s := &ptySession{t: t, tty: tty, cmd: cmd, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return s
}

// expect waits until the output after what was matched before matches re.
func (s *ptySession) expect(re string) {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		rest := s.out.Bytes()[s.seen:]
		if loc := rx.FindIndex(rest); loc != nil {
			s.seen += loc[1]
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t.Fatalf("no %q in output; after last match:\n%q", re, s.out.Bytes()[s.seen:])
}

func (s *ptySession) send(text string) {
	s.t.Helper()
	if _, err := s.tty.Write([]byte(text)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *ptySession) wait() int {
	s.t.Helper()
	select {
	case err := <-s.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			s.t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		s.t.Fatal("guardsh did not exit")
	}
	return -1
}

// TestInteractive drives guardsh on a terminal: prompt from PS1, line
// editing, history, Ctrl-C cancelling the line or the running command
// (not the shell), exit with a status.
func TestInteractive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	s := startPty(t)
	s.expect(`PROMPT> `)

	s.send("echo hello $((40+2))\r")
	s.expect(`hello 42\r?\n`)
	s.expect(`PROMPT> `)

	// Line editing: a typo fixed with backspace, and Ctrl-A to the start.
	s.send("ech x\x7f\x7f\x7fo edited\r")
	s.expect(`\necho edited\r?\n|edited\r?\n`)
	s.expect(`PROMPT> `)

	// History: the up arrow brings back the previous line.
	s.send("echo from-history\r")
	s.expect(`from-history\r?\n`)
	s.expect(`PROMPT> `)
	s.send("\x1b[A\r")
	s.expect(`from-history\r?\n`)
	s.expect(`PROMPT> `)

	// Ctrl-C on a half-typed line drops the line, the shell goes on.
	s.send("echo never-run\x03")
	s.expect(`\^C`)
	s.expect(`PROMPT> `)

	// Ctrl-C stops the running command and comes back to the prompt.
	s.send("sleep 111\r")
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) == 0 && time.Now().Before(deadline) {
		pids = findBelow(s.cmd.Process.Pid, []string{"sleep 111"})
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) == 0 {
		t.Fatal("sleep did not start")
	}
	s.send("\x03")
	s.expect(`PROMPT> `)
	time.Sleep(50 * time.Millisecond)
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("sleep %d still running after Ctrl-C", pid)
		}
	}
	s.send("echo status $?\r")
	s.expect(`status 130\r?\n`)

	// Continuation lines use PS2.
	s.send("for i in 1 2; do\r")
	s.expect(`> `)
	s.send("echo loop$i; done\r")
	s.expect(`loop1\r?\n`)
	s.expect(`loop2\r?\n`)

	s.send("exit 3\r")
	if st := s.wait(); st != 3 {
		t.Errorf("exit status %d, want 3", st)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Contains(s.out.String(), "never-run\r\n") {
		t.Error("the cancelled line ran")
	}
}

// TestInteractiveEOF: Ctrl-D on an empty line ends the shell like bash.
func TestInteractiveEOF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	s := startPty(t, "-i")
	s.expect(`PROMPT> `)
	s.send("false\r")
	s.expect(`PROMPT> `)
	s.send("\x04")
	s.expect(`exit`)
	if st := s.wait(); st != 1 {
		t.Errorf("exit status %d, want 1 (the last command's)", st)
	}
}

// TestInteractivePromptVars: PS1 is expanded as bash's promptvars does:
// $?, variables and command substitutions.
func TestInteractivePromptVars(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	s := startPtyPS1(t, `[$?|${X:-none}|$(echo dyn)]> `)
	s.expect(`\[0\|none\|dyn\]> `)
	s.send("X=set; false\r")
	s.expect(`\[1\|set\|dyn\]> `)
	s.send("echo $?\r")
	s.expect(`1\r?\n`)
	s.send("exit\r")
	s.wait()
}
