package interp

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// builtin runs guardsh's own builtins (args[0] has internalPrefix).
func (g *Runner) builtin(ctx context.Context, hc interp.HandlerContext, args []string) error {
	name := strings.TrimPrefix(args[0], internalPrefix)
	st := 0
	switch name {
	case "err":
		// err STATUS MESSAGE: print MESSAGE like bash, return STATUS.
		st, _ = strconv.Atoi(args[1])
		if len(args) > 2 && args[2] != "" {
			g.errf(hc, "%s", args[2])
		}
	case "kill":
		st = g.kill(hc, args[1:])
	case "jobs":
		st = g.jobs(hc, args[1:])
	case "disown":
		st = g.disown(hc, args[1:])
	case "wait":
		st = g.wait(ctx, hc, args[1:])
	case "printf":
		out, status := g.printf(hc, args[1:])
		fmt.Fprint(hc.Stdout, out)
		st = status
	case "test":
		st = g.testBuiltin(ctx, hc, args[1], args[2:])
	case "out":
		// out STATUS TEXT: print TEXT, return STATUS.
		st, _ = strconv.Atoi(args[1])
		io.WriteString(hc.Stdout, args[2])
	case "fd":
		st = g.fdBuiltin(ctx, hc, args[1:])
	case "fdsave", "fdrestore":
		n, _ := strconv.Atoi(args[1])
		if name == "fdsave" {
			g.fds.save(n)
		} else {
			g.fds.restore(n)
			if len(args) > 2 {
				st, _ = strconv.Atoi(args[2])
			}
		}
	case "dashecho":
		io.WriteString(hc.Stdout, dashEcho(args[1:]))
	case "echo":
		if _, err := io.WriteString(hc.Stdout, echo(args[1:])); err != nil {
			g.errf(hc, "echo: write error: %s", errnoText(err))
			st = 1
		}
	case "umask":
		st = g.umask(hc, args[1:])
	case "ulimit":
		st = g.ulimit(hc, args[1:])
	case "times":
		st = g.times(hc)
	case "ps":
		st, _ = strconv.Atoi(args[3])
		g.sh.pipeStatusReport(args[1], args[2], st)
	case "psret":
		st = g.sh.pipeStatusRet(args[1])
	case "timeend":
		if len(args) > 1 {
			st, _ = strconv.Atoi(args[1])
		}
		g.sh.timeEnd(hc.Stderr)
	default:
		var ok bool
		if st, ok = g.bashBuiltin(hc, name, args[1:]); !ok {
			g.errf(hc, "%s: not a guardsh builtin", name)
			st = 127
		}
	}
	if st == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(st))
}

// builtinErr prints an error of a builtin like bash: "NAME: line N: ...".
func (g *Runner) builtinErr(hc interp.HandlerContext, format string, a ...any) {
	g.errf(hc, format, a...)
}
