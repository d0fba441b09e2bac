package interp

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// childSysProcAttr is how children start. They stay in guardsh's process
// group, as with bash: a Ctrl-C or a signal an agent sends to the group
// reaches them directly. What bash does not do, guardsh does on SIGTERM and
// SIGHUP: it tracks its children and ends them and their descendants.
func childSysProcAttr() *syscall.SysProcAttr { return nil }

// interrupt records a SIGINT for the running command.
func (s *shared) interrupt() {
	s.interrupted.Store(true)
	s.intOnce.Do(func() { close(s.intCh) })
}

// waitInterrupted reports whether guardsh got SIGINT, waiting up to d for
// a signal that is on its way (a child that died of SIGINT from a Ctrl-C
// and its shell get it at the same time).
func (s *shared) waitInterrupted(d time.Duration) bool {
	if s.interrupted.Load() {
		return true
	}
	select {
	case <-s.intCh:
		return true
	case <-time.After(d):
		return false
	}
}

// KillChildren ends every child guardsh still has, and their descendants:
// sig first, then SIGKILL for whatever is left after grace.
func (g *Runner) KillChildren(sig syscall.Signal, grace time.Duration) {
	pids := g.sh.runningPids()
	var all []int
	for _, pid := range pids {
		all = append(all, descendants(pid)...)
		all = append(all, pid)
	}
	if len(all) == 0 {
		return
	}
	for _, pid := range all {
		syscall.Kill(pid, sig)
		syscall.Kill(pid, syscall.SIGCONT)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range all {
			if processAlive(pid) {
				alive = true
				break
			}
		}
		if !alive {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, pid := range all {
		if processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// Give the Wait calls a moment to reap them: no zombies left behind.
	for i := 0; i < 100 && len(g.sh.runningPids()) > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// WatchSignals installs the signal handling of a non-interactive shell and
// returns a context for the script. SIGINT ends the running command and the
// script (status 130, as bash). SIGTERM and SIGHUP end every child and
// grandchild guardsh started, then guardsh itself with 128+N. stop undoes
// the handling.
func (g *Runner) WatchSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				sig := s.(syscall.Signal)
				if sig == syscall.SIGINT {
					g.sh.interrupt()
					cancel()
					continue
				}
				g.KillChildren(sig, time.Second)
				os.Exit(128 + int(sig))
			case <-quit:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(quit)
		cancel()
	}
}
