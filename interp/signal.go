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
	// Deepest first, a moment apart: a parent still alive reaps its
	// child, so nothing is left as a zombie of an orphan.
	var levels [][]int
	var all []int
	for _, pid := range pids {
		for d, l := range descendantLevels(pid) {
			for len(levels) <= d {
				levels = append(levels, nil)
			}
			levels[d] = append(levels[d], l...)
			all = append(all, l...)
		}
		if len(levels) == 0 {
			levels = append(levels, nil)
		}
		levels[0] = append(levels[0], pid)
		all = append(all, pid)
	}
	if len(all) == 0 {
		return
	}
	for d := len(levels) - 1; d >= 0; d-- {
		for _, pid := range levels[d] {
			syscall.Kill(pid, sig)
			syscall.Kill(pid, syscall.SIGCONT)
		}
		if d > 0 {
			time.Sleep(30 * time.Millisecond)
		}
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
				// Stop the script first, so that it does not go on
				// (or end with another status) while the children go.
				g.sh.terminating.Store(int32(sig))
				cancel()
				g.KillChildren(sig, time.Second)
				g.cfg.Audit.Flush() // the session's counts
				os.Exit(128 + int(sig))
			case <-quit:
				return
			}
		}
	}()
	// stop does not cancel ctx: background jobs outlive a normal exit, as
	// in bash (their commands watch ctx).
	return ctx, func() {
		signal.Stop(ch)
		close(quit)
	}
}

// Finish returns the exit status of the shell, unless a terminating signal
// is being handled: then it waits for the handler, which ends the process
// with 128+N once the children are gone.
func (g *Runner) Finish(status int) int {
	if g.sh.terminating.Load() != 0 {
		select {}
	}
	g.sh.settleJobs(200 * time.Millisecond)
	if g.sh.interrupted.Load() {
		// Interrupted (Ctrl-C): nothing it started outlives it, background
		// jobs included. A normal exit leaves background jobs running, as
		// bash does (agents start dev servers so; Gemini CLI reports them).
		g.KillChildren(syscall.SIGTERM, 500*time.Millisecond)
	}
	return status
}

// settleJobs waits (at most d) until the background jobs started last have
// started their processes: bash forks them before it goes on, guardsh
// starts them from goroutines, which must not be cut short by the exit.
func (s *shared) settleJobs(d time.Duration) {
	deadline := time.Now().Add(d)
	s.mu.Lock()
	var pending []*job
	for _, j := range s.jobs {
		if !j.resolved {
			pending = append(pending, j)
		}
	}
	s.mu.Unlock()
	for _, j := range pending {
		if !s.awaitPid(j, time.Until(deadline)) {
			return
		}
	}
}
