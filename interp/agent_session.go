package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/interp"
)

// RunCommand runs one command line of the bundled agent in the runner's
// persistent session: the working directory, variables, exported variables
// and functions it leaves behind are there for the next call. Output goes to
// stdout and stderr for this call only; stdin is empty. Every simple command
// goes through the same policy and gate as any other script.
//
// The status is the shell's exit status; 124 when ctx's deadline passed and
// 130 when ctx was cancelled (the running command is interrupted, then
// killed). A syntax error is reported on stderr with status 2.
func (g *Runner) RunCommand(ctx context.Context, src string, stdout, stderr io.Writer) int {
	file, err := g.Parse(strings.NewReader(src), g.name)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := interp.StdIO(nil, stdout, stderr)(g.r); err != nil {
		fmt.Fprintf(stderr, "guardsh: %v\n", err)
		return 1
	}
	defer interp.StdIO(g.cfg.Stdin, g.cfg.Stdout, g.cfg.Stderr)(g.r)
	// Statement by statement: running a whole *syntax.File would count as
	// the end of the shell (EXIT trap), and the session must outlive it.
	var runErr error
	for _, st := range file.Stmts {
		runErr = g.r.Run(ctx, st)
		if g.r.Exited() || ctx.Err() != nil {
			break
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return 124
	case ctx.Err() != nil:
		return 130
	case runErr == nil:
		return 0
	}
	if st, ok := interp.IsExitStatus(runErr); ok {
		return int(st)
	}
	fmt.Fprintf(stderr, "%s: %v\n", g.name, runErr)
	return 1
}

// Cwd is the session's current working directory.
func (g *Runner) Cwd() string { return g.r.Dir }

// ProjectRoot is the session's project root.
func (g *Runner) ProjectRoot() string { return g.cfg.Project }

// DecideAccess asks the session's policy about one file access of the
// agent's file tools; an ask goes to the same gate as a shell command, with
// show (the diff of a write, or the path) for the human to see.
func (g *Runner) DecideAccess(ctx context.Context, a guardsh.Access, show string) guardsh.Verdict {
	v := g.policy.ClassifyAccess(a)
	if v.Decision == guardsh.Ask {
		what := []string{a.Via, a.Path}
		if show != "" {
			what = append(what, show)
		}
		if g.ask(ctx, what, v) {
			v.Decision = guardsh.Allow
		}
	}
	return v
}
