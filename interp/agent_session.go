package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/guardsh/guardsh/audit"
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
	// Programs write to a writer that is not a file through os/exec's
	// copying goroutines, which go on while later commands write and after
	// RunCommand returned (a background job): the writers are serialised,
	// and cut off when the call ends, so the caller owns its buffers again.
	outW, errW := newCallWriters(stdout, stderr)
	defer outW.close()
	defer errW.close()
	stdout, stderr = outW.writer(), errW.writer()
	if err := interp.StdIO(nil, stdout, stderr)(g.r); err != nil {
		fmt.Fprintf(stderr, "guardsh: %v\n", err)
		return 1
	}
	defer interp.StdIO(g.cfg.Stdin, g.cfg.Stdout, g.cfg.Stderr)(g.r)
	// Everything the command starts goes into process groups of its own;
	// when it times out or is cancelled, all of them go, background jobs
	// and orphaned grandchildren included (cmdgroup.go).
	cg := g.sh.beginCmdGroups()
	// A program that left the groups (setsid, a daemon) is still this
	// process's descendant when it is a subreaper (reap_linux.go): what
	// appeared during the call goes too (not what an earlier call's
	// background job forks: it stays with its parent), and the orphans it
	// adopted are waited for.
	var before map[ProcKey]bool
	if subreaper.Load() {
		before = Descendants(os.Getpid())
	}
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		cg.kill(time.Second)
		if before != nil {
			gone := KillDescendants(os.Getpid(), before, nil, time.Second)
			cg.mu.Lock()
			started := cg.started
			cg.mu.Unlock()
			reapAdopted(gone, started)
		}
		close(killed)
	})
	defer func() {
		if !stop() {
			<-killed // stopped: return once the groups are gone
		}
	}()
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
	if st, ok := isExit(runErr); ok {
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
// agent's file tools (tool is the tool's name, e.g. "edit_file"); an ask goes
// to the same gate as a shell command, showing diff (the change a write
// would make), unless the human already allowed it for the session. The
// decision is in the audit log before DecideAccess returns.
func (g *Runner) DecideAccess(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict {
	if a.Via == "" {
		a.Via = "agent"
	}
	v := g.policy.ClassifyAccess(a)
	policyDecision := v.Decision
	c := guardsh.Command{Args: []string{tool, a.Path}, Dir: a.Dir, Project: g.cfg.Project, Home: a.Home, Via: a.Via}
	answer := ""
	if v.Decision == guardsh.Ask {
		sessionMu.RLock()
		for _, r := range g.policy.Session {
			if r.Matches(c.Args) {
				v.Decision, answer = guardsh.Allow, "session-rule"
				break
			}
		}
		sessionMu.RUnlock()
		if answer == "" {
			var ga GateAnswer
			v, ga = g.gatekeep(ctx, c, v, diff)
			answer = ga.String()
		}
	}
	if g.cfg.Audit != nil {
		eff := guardsh.Effects{Reads: []string{a.Resolved}}
		if a.Write {
			eff = guardsh.Effects{Writes: []string{a.Resolved}}
		}
		g.cfg.Audit.Decide(&audit.Record{
			Cwd:      a.Dir,
			Project:  g.cfg.Project,
			Argv:     c.Args,
			Via:      a.Via,
			Mode:     g.policy.Mode,
			Decision: policyDecision.String(),
			Rule:     v.Rule,
			Reason:   v.Reason,
			Gate:     answer,
			Effects:  eff,
			Sandbox:  g.cfg.Sandbox,
		})
	}
	return v
}
