package interp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// pending maps a decided argv to its pendingCmd. mvdan's interpreter hands
// the ExecHandler the very slice the CallHandler returned, so the address
// of its first element identifies the command across the two handlers
// (also when pipeline members run concurrently). Builtins are not tracked
// (they never reach the ExecHandler); functions are, and their entries are
// dropped when the table grows past pendingMax.
var pending struct {
	sync.Mutex
	m map[*string]*pendingCmd
}

const pendingMax = 4096

func track(args []string, p *pendingCmd) {
	if len(args) == 0 {
		return
	}
	i := 0
	// "command git push" and "exec git push" reach the ExecHandler as
	// args[1:] (after the builtin's options).
	for i < len(args) && (args[i] == "command" || args[i] == "exec" || args[i] == "builtin") {
		i++
		for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
			i++
		}
		if i < len(args) && args[i] == "--" {
			i++
		}
	}
	if i >= len(args) || (i == 0 && interp.IsBuiltin(args[0])) {
		return
	}
	p.start = time.Now()
	pending.Lock()
	if pending.m == nil || len(pending.m) >= pendingMax {
		pending.m = make(map[*string]*pendingCmd)
	}
	pending.m[&args[i]] = p
	pending.Unlock()
}

func takePending(args []string) *pendingCmd {
	if len(args) == 0 {
		return nil
	}
	pending.Lock()
	defer pending.Unlock()
	p := pending.m[&args[0]]
	if p != nil {
		delete(pending.m, &args[0])
	}
	return p
}

// gateExec wraps the ExecHandler: a command the gate marked for escalation
// runs through Config.Escalate, and the audit log gets its exit record.
func (g *Runner) gateExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		p := takePending(args)
		if p == nil {
			return next(ctx, args)
		}
		var err error
		if p.escalate && g.cfg.Escalate != nil {
			err = g.cfg.Escalate(ctx, interp.HandlerCtx(ctx), args, p.v)
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
