package interp

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestKillDescendants: what appeared after the snapshot is stopped, with
// its children; a process of the snapshot is left alone with what it
// forks later (stopping only its child would let it go on to its next
// step); a process in pass is left alone, not its children.
func TestKillDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux /proc")
	}
	old := exec.Command("sh", "-c", "sleep 0.3; sleep 30.51")
	old.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-old.Process.Pid, syscall.SIGKILL)
	time.Sleep(50 * time.Millisecond)
	before := Descendants(os.Getpid())
	passed := exec.Command("sh", "-c", "sleep 30.53 & wait")
	newer := exec.Command("sh", "-c", "sleep 30.52 & wait")
	for _, c := range []*exec.Cmd{passed, newer} {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
	time.Sleep(400 * time.Millisecond) // old has forked its second sleep
	pass := map[ProcKey]bool{}
	for k := range Descendants(os.Getpid()) {
		if k.Pid == passed.Process.Pid {
			pass[k] = true
		}
	}
	stopped := KillDescendants(os.Getpid(), before, pass, time.Second)
	names := map[string]int{}
	for _, p := range stopped {
		names[p.Name]++
		if p.Pid == old.Process.Pid || p.Pid == passed.Process.Pid {
			t.Errorf("stopped %d (%s), which it should leave alone", p.Pid, p.Name)
		}
	}
	if names["sh"] != 1 || names["sleep"] != 2 {
		t.Errorf("stopped %v, want newer's sh and sleep and passed's sleep", stopped)
	}
	if err := newer.Wait(); err == nil {
		t.Errorf("newer was not stopped")
	}
	for _, c := range []*exec.Cmd{old, passed} {
		if err := syscall.Kill(c.Process.Pid, 0); err != nil {
			t.Errorf("%v, which it should leave alone, is gone: %v", c.Args, err)
		}
	}
}

// TestProcTableFallback: the tree read through the children files is the
// one the scan of every process finds.
func TestProcTableFallback(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux /proc")
	}
	c := exec.Command("sh", "-c", "sleep 30.54 & sleep 30.55 & wait")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	self := os.Getpid()
	fast := descendantsIn(procTable(self), self, nil, nil)
	all := descendantsIn(procTableAll(), self, nil, nil)
	slices.Sort(fast)
	slices.Sort(all)
	if len(fast) < 3 || !slices.Equal(fast, all) {
		t.Errorf("children files: %v, scan: %v", fast, all)
	}
}

// BenchmarkDescendants is what a run_shell call pays for its snapshot of
// the process tree (one read of /proc/*/stat).
func BenchmarkDescendants(b *testing.B) {
	for b.Loop() {
		Descendants(os.Getpid())
	}
}
