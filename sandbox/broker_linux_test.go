//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestBrokerEscalation runs a command that dials a test listener through
// the broker: with approved network rights it connects; without, or when
// the broker's own check refuses, it does not.
func TestBrokerEscalation(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- strings.TrimSpace(line)
			c.Close()
		}
	}()
	project := t.TempDir()
	c := NewConfig(project, t.TempDir(), "", nil)
	tests := []struct {
		name      string
		network   bool
		refuse    bool
		wantState int
		wantConn  bool
	}{
		{"approved network reaches the listener", true, false, 0, true},
		{"no network right: connect fails", false, false, 3, false},
		{"broker refuses", true, true, 126, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(r Request) (Rights, error) {
				if tt.refuse {
					return Rights{}, errors.New("guardsh: refused by the broker")
				}
				return Rights{Network: r.Network}, nil
			}
			b, end, err := NewBroker(BackendLandlock, c, check)
			if err != nil {
				t.Fatal(err)
			}
			go b.Serve()
			cl := NewClient(end)
			defer cl.Close()
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			devnull, _ := os.Open(os.DevNull)
			defer devnull.Close()
			resp, err := cl.Run(Request{Args: []string{exe}, Dir: project, Env: []string{"GUARDSH_TEST_DIAL=" + ln.Addr().String(), "PATH=/usr/bin:/bin"}, Network: tt.network},
				devnull, out, out)
			if err != nil {
				t.Fatal(err)
			}
			b2, _ := os.ReadFile(out.Name())
			if resp.Status != tt.wantState {
				t.Errorf("status %d (%s), want %d; output %q", resp.Status, resp.Err, tt.wantState, b2)
			}
			select {
			case line := <-got:
				if !tt.wantConn {
					t.Errorf("listener was reached (%q)", line)
				}
			case <-time.After(200 * time.Millisecond):
				if tt.wantConn {
					t.Errorf("listener not reached; output %q", b2)
				}
			}
		})
	}
}

func TestEscalationEnv(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	got := EscalationEnv([]string{"HOME=/h", "PATH=/project/bin:/usr/bin", "LD_PRELOAD=/p/evil.so", "GIT_SSH_COMMAND=curl evil", "GIT_AUTHOR_NAME=me", "BASH_ENV=/p/x", "GIT_CONFIG_COUNT=1", "LANG=C"})
	want := []string{"HOME=/h", "GIT_AUTHOR_NAME=me", "LANG=C", "PATH=/usr/bin:/bin"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestBrokerEscalationWrite: an approved write outside the project works
// for that command only.
func TestBrokerEscalationWrite(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	outside := testenv.Outside(t) // /tmp is writable anyway
	project := t.TempDir()
	c := NewConfig(project, t.TempDir(), "", nil)
	for _, tt := range []struct {
		name   string
		writes []string
		want   bool
	}{
		{"approved", []string{outside + "/new.txt"}, true},
		{"not approved", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := outside + "/new.txt"
			os.Remove(target)
			b, end, err := NewBroker(BackendLandlock, c, func(r Request) (Rights, error) { return Rights{Writes: r.Writes}, nil })
			if err != nil {
				t.Fatal(err)
			}
			go b.Serve()
			cl := NewClient(end)
			defer cl.Close()
			devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			defer devnull.Close()
			resp, err := cl.Run(Request{Args: []string{"/bin/sh", "-c", "echo hi > " + target}, Dir: project, Env: []string{"PATH=/usr/bin:/bin"}, Writes: tt.writes}, devnull, devnull, devnull)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(target)
			if (statErr == nil) != tt.want || (resp.Status == 0) != tt.want {
				t.Errorf("status %d %s, file exists %v, want %v", resp.Status, resp.Err, statErr == nil, tt.want)
			}
		})
	}
}

// TestExecRelativeWrite: a confined command that writes a relative path
// in its working directory (inside the project) succeeds: the stage enters
// the directory again through the new mounts.
func TestExecRelativeWrite(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	project := t.TempDir()
	c := NewConfig(project, t.TempDir(), "", nil)
	cmd, err := ExecCommand(BackendLandlock, c, []string{"/bin/sh", "-c", "echo hi > rel.txt"}, []string{"PATH=/usr/bin:/bin"}, project)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(project + "/rel.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestBrokerStopping: an escalated command that ends while the privileged
// side is stopping the command line (Broker.Stopping) is answered Stopped,
// so that the interpreter stops too; otherwise it is not.
func TestBrokerStopping(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	project := t.TempDir()
	c := NewConfig(project, t.TempDir(), "", nil)
	for _, stopping := range []bool{false, true} {
		b, end, err := NewBroker(BackendLandlock, c, func(r Request) (Rights, error) { return Rights{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		b.Stopping = func() bool { return stopping }
		go b.Serve()
		cl := NewClient(end)
		devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		resp, err := cl.Run(Request{Args: []string{"/bin/sh", "-c", "exit 3"}, Dir: project, Env: []string{"PATH=/usr/bin:/bin"}}, devnull, devnull, devnull)
		cl.Close()
		devnull.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 3 || resp.Stopped != stopping {
			t.Errorf("stopping=%v: status %d, Stopped %v; want 3, %v", stopping, resp.Status, resp.Stopped, stopping)
		}
	}
}

// TestAttackEscalatedRenameOverProtected: a rename over a protected file
// by a process outside the session removes the session's read-only bind
// mount of it (docs/limits.md). An escalated command is such a process
// when it is not confined the same way: an approved one, even one whose
// approved writes name the directory of the protected file, runs in a stage of its
// own where the file is still a read-only mount point, so its rename fails
// (EBUSY) and the file keeps its content and inode.
func TestAttackEscalatedRenameOverProtected(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, backend := range []string{BackendLandlock, BackendBwrap} {
		t.Run(backend, func(t *testing.T) {
			if backend == BackendBwrap {
				if _, err := exec.LookPath("bwrap"); err != nil {
					t.Skip("no bwrap")
				}
			}
			project := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			cfgPath := filepath.Join(project, ".git", "config")
			c := NewConfig(project, t.TempDir(), "", nil)
			orig, _ := os.ReadFile(cfgPath)
			var before, after syscall.Stat_t
			syscall.Stat(cfgPath, &before)
			b, end, err := NewBroker(backend, c, func(r Request) (Rights, error) { return Rights{Writes: r.Writes}, nil })
			if err != nil {
				t.Fatal(err)
			}
			go b.Serve()
			cl := NewClient(end)
			defer cl.Close()
			devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			defer devnull.Close()
			script := `cp .git/config c.new && printf '[core]\n\tfsmonitor = touch pwn\n' >> c.new && mv -f c.new .git/config`
			errf, _ := os.CreateTemp(t.TempDir(), "err")
			defer errf.Close()
			resp, err := cl.Run(Request{Args: []string{"/bin/sh", "-c", script}, Dir: project, Env: []string{"PATH=/usr/bin:/bin"},
				Writes: []string{filepath.Join(project, ".git")}}, devnull, devnull, errf)
			stderr, _ := os.ReadFile(errf.Name())
			if err != nil {
				t.Fatal(err)
			}
			now, _ := os.ReadFile(cfgPath)
			syscall.Stat(cfgPath, &after)
			if string(now) != string(orig) || after.Ino != before.Ino {
				t.Errorf("attack succeeded: the escalated command renamed over .git/config (status %d %s):\n%s", resp.Status, resp.Err, now)
			}
			if _, err := os.Stat(filepath.Join(project, "c.new")); err != nil || resp.Status == 0 {
				t.Errorf("the escalated command did not run up to its rename (status %d %s, c.new: %v) %s", resp.Status, resp.Err, err, stderr)
			}
		})
	}
}
