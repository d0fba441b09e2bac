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

// gateExec wraps the ExecHandler: a command the gate marked for escalation
// runs through Config.Escalate, and the audit log gets its exit record.
func (g *Runner) gateExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		p := g.handoff.takePending(args)
		if p == nil {
			return next(ctx, args)
		}
		var err error
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
