package main

// The launcher is the agent's one approval point (interp.ChannelGate,
// approval.go): it makes the channel before the agent starts and asks the
// human on its own terminal, the one guardsh --launch was started from.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/guardsh/guardsh/interp"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// approvalFD is the channel's descriptor number in the agent.
const approvalFD = 3

// approvalPoint is the launcher's end of the channel.
type approvalPoint struct {
	agentEnd *os.File // inherited by the agent (fd approvalFD)
	srv      *os.File
	tty      *os.File // the human's terminal; nil: every ask is "no human"
	fg       *foreground
}

// startApprovalPoint makes the channel and serves it. The human's
// terminal is the launcher's controlling terminal; without one (CI, a
// pipe) every ask is answered "no human" at once.
func startApprovalPoint() (*approvalPoint, error) {
	syscall.ForkLock.Lock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.Unlock()
	if err != nil {
		return nil, err
	}
	p := &approvalPoint{srv: os.NewFile(uintptr(fds[0]), "approval-server"), agentEnd: os.NewFile(uintptr(fds[1]), "approval")}
	srv := &interp.ApprovalServer{}
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		if term.IsTerminal(int(tty.Fd())) {
			unix.CloseOnExec(int(tty.Fd()))
			p.tty = tty
			p.fg = &foreground{tty: tty}
			srv.Gate = &foregroundGate{fg: p.fg, gate: interp.NewTerminalGate(tty)}
			srv.Note = func(s string) { io.WriteString(tty, "\r\n"+s+"\r\n") }
		} else {
			tty.Close()
		}
	}
	go srv.Serve(p.srv)
	return p, nil
}

// close stops serving.
func (p *approvalPoint) close() {
	unix.Shutdown(int(p.srv.Fd()), unix.SHUT_RDWR)
	p.agentEnd.Close()
}

// foreground moves the terminal between the agent's process group and
// the launcher's: while the launcher asks, the agent cannot read the
// human's keys (its reads stop it, as a background job's do) nor draw
// over the question.
type foreground struct {
	mu    sync.Mutex
	tty   *os.File
	agent int // the agent's process group, 0 until it runs in one
}

// setAgent records the agent's process group and gives it the terminal,
// when the launcher holds the terminal's foreground itself.
func (f *foreground) setAgent(pgid int) {
	if f == nil {
		return
	}
	if fg, err := unix.IoctlGetInt(int(f.tty.Fd()), unix.TIOCGPGRP); err != nil || fg != unix.Getpgrp() {
		return // started in the background: the terminal is not the launcher's to give
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	signal.Ignore(syscall.SIGTTOU, syscall.SIGTTIN) // the launcher sets the foreground from the background
	if unix.IoctlSetPointerInt(int(f.tty.Fd()), unix.TIOCSPGRP, pgid) == nil {
		f.agent = pgid
	}
	syscall.Kill(-pgid, syscall.SIGCONT) // a read before this stopped it
}

// restore gives the terminal back to the launcher's own process group.
func (f *foreground) restore() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.agent > 0 {
		unix.IoctlSetPointerInt(int(f.tty.Fd()), unix.TIOCSPGRP, unix.Getpgrp())
		f.agent = 0
	}
}

// stopped is called when the agent was stopped (Ctrl-Z, or a read from
// the background): the launcher gives the terminal back and stops too, so
// that the shell it was started from gets control as it would have
// without the launcher; when continued (fg), it gives the terminal back
// to the agent and continues it.
func (f *foreground) stopped() {
	if f == nil {
		return
	}
	f.mu.Lock()
	pg := f.agent
	f.mu.Unlock()
	if pg == 0 {
		return
	}
	f.restore()
	// The stop takes hold when the kernel gets to it (other threads run
	// on meanwhile): wait for the SIGCONT that ends it.
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	<-cont
	f.setAgent(pg)
}

// foregroundGate asks with the launcher in the terminal's foreground.
type foregroundGate struct {
	fg   *foreground
	gate *interp.TerminalGate
}

// Approve implements interp.Gate.
func (g *foregroundGate) Approve(ctx context.Context, req interp.GateRequest) interp.GateAnswer {
	g.fg.mu.Lock()
	defer g.fg.mu.Unlock()
	fd := int(g.fg.tty.Fd())
	if g.fg.agent > 0 {
		unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, unix.Getpgrp())
		defer func() {
			unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, g.fg.agent)
			syscall.Kill(-g.fg.agent, syscall.SIGCONT)  // a read stopped it meanwhile
			syscall.Kill(-g.fg.agent, syscall.SIGWINCH) // redraw over the question
		}()
	}
	fmt.Fprint(g.fg.tty, "\r\nguardsh --launch: the agent's shell asks:")
	return g.gate.Approve(ctx, req)
}
