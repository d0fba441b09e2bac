package interp

import (
	"errors"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Process groups for the agent's commands. Every program
// that one RunCommand call starts, in the foreground or the background,
// directly or from a nested in-process shell, goes into a process group of
// that call's own (not guardsh's), so that when the call times out or is
// cancelled the whole group goes: the program, its children and
// grandchildren, even those left behind by a parent that exited (a
// "sleep 1000 &" in a script, a daemon that forked without setsid). The
// guardsh shell itself does not use this: its children stay in its
// process group, as with bash, so that a terminal's Ctrl-C reaches them.

// cmdGroups are the process groups of one RunCommand call.
type cmdGroups struct {
	mu      sync.Mutex
	cur     int          // the group the next program joins; 0: it leads a new one
	pgids   []int        // every group made for the call
	started map[int]bool // every process started for the call (its waiter is exec.go's)
	killed  bool         // the call was stopped: nothing more starts in it
}

// subreaper is set once BecomeSubreaper made this process a child
// subreaper (reap_linux.go): a command's orphans stay its descendants.
var subreaper atomic.Bool

// errStopped refuses a program that would start after its call was
// stopped.
var errStopped = errors.New("the command was stopped (time limit or cancellation)")

// groups returns the groups programs started now join, nil outside an
// agent command.
func (s *shared) groups() *cmdGroups {
	return s.cmdGroup.Load()
}

// beginCmdGroups starts a new set of groups for an agent command: programs
// started from now on (until the next call) go there.
func (s *shared) beginCmdGroups() *cmdGroups {
	cg := &cmdGroups{}
	s.cmdGroup.Store(cg)
	return cg
}

// startCmd starts cmd, in the current agent command's process group when
// there is one. It returns the started command (a copy when the group had
// to be made anew).
func (s *shared) startCmd(cmd *exec.Cmd) (*exec.Cmd, error) {
	cg := s.groups()
	if cg == nil {
		return cmd, cmd.Start()
	}
	// Held across Start: the first program of a pipeline makes the group
	// that the others join.
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.killed {
		return cmd, errStopped
	}
	for range 2 {
		attr := syscall.SysProcAttr{}
		if cmd.SysProcAttr != nil {
			attr = *cmd.SysProcAttr
		}
		attr.Setpgid, attr.Pgid = true, cg.cur
		cmd.SysProcAttr = &attr
		err := cmd.Start()
		if err == nil {
			if cg.started == nil {
				cg.started = map[int]bool{}
			}
			cg.started[cmd.Process.Pid] = true
			if cg.cur == 0 {
				cg.cur = cmd.Process.Pid
				cg.pgids = append(cg.pgids, cg.cur)
			}
			return cmd, nil
		}
		if cg.cur == 0 || !errors.Is(err, syscall.EPERM) {
			return cmd, err
		}
		// Every process of the group ended: the next one leads a new one.
		cg.cur = 0
		cmd = cmdCopy(cmd)
	}
	return cmd, syscall.EPERM
}

// kill ends every process of the call's groups: SIGTERM (and SIGCONT, for
// stopped ones), then SIGKILL for whatever is left after grace. It returns
// once they are all gone or killed.
func (cg *cmdGroups) kill(grace time.Duration) {
	cg.mu.Lock()
	cg.killed = true
	pgids := append([]int(nil), cg.pgids...)
	cg.mu.Unlock()
	for _, pg := range pgids {
		syscall.Kill(-pg, syscall.SIGTERM)
		syscall.Kill(-pg, syscall.SIGCONT)
	}
	deadline := time.Now().Add(grace)
	for _, pg := range pgids {
		for syscall.Kill(-pg, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(-pg, syscall.SIGKILL)
	}
}
