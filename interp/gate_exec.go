package interp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/interp"
)

// pendingCmd is an allowed command between its decision (CallHandler) and
// its execution (ExecHandler): the exit record to write, and whether it
// runs through Config.Escalate.
type pendingCmd struct {
	id       uint64
	audit    *audit.Log
	escalate bool
	v        guardsh.Verdict
	start    time.Time
}

// gateExec wraps the ExecHandler: a command allowed as a possible function
// call is decided again as a program (Runner.recheck), a command the gate
// marked for escalation runs through Config.Escalate, and the audit log
// gets its exit record.
func (g *Runner) gateExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) (err error) {
		if g.handoff.takeRecheck(args) {
			// allowed as a function call, it is a program: decided again
			// (its first record gets the exit status too)
			if first := g.handoff.takePending(args); first != nil {
				defer func() { first.audit.Exit(first.id, exitCode(err), time.Since(first.start)) }()
			}
			if args, err = g.recheck(ctx, args); err != nil {
				return err
			}
		}
		p := g.handoff.takePending(args)
		if p == nil {
			return next(ctx, args)
		}
		if p.escalate && g.cfg.Escalate != nil {
			hc := interp.HandlerCtx(ctx)
			if args[0] == inputCmd { // the input read before deciding (protocol.go)
				var in io.Reader
				if in, args = g.handoff.takeInput(args); in != nil {
					hc.Stdin = in
				}
			}
			err = g.cfg.Escalate(ctx, hc, args, p.v)
		} else {
			err = next(ctx, args)
		}
		p.audit.Exit(p.id, exitCode(err), time.Since(p.start))
		return err
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if st, ok := isExit(err); ok {
		return int(st)
	}
	return 1
}

var osTempDirOnce = sync.OnceValue(func() string {
	d := os.TempDir()
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return d
})

func osTempDir() string { return osTempDirOnce() }
