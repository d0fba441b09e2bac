// Package interp is guardsh's runner: mvdan.cc/sh/v3/interp with guardsh's
// handlers. Every simple command, after expansion, goes through one function
// that asks the policy (Runner.decide); every external command is started by
// guardsh's own exec handler; every file the interpreter opens itself goes
// through the FS hook that the path jail implements.
package interp

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// FS is the hook for every file access the interpreter does in-process:
// redirections, source, cd, globbing. The path jail implements it; the zero
// Config uses the plain operating system.
type FS interface {
	Open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error)
	Stat(ctx context.Context, path string, followSymlinks bool) (fs.FileInfo, error)
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
}

// Config is what a Runner needs to know about its session.
type Config struct {
	Policy  *guardsh.Policy // nil: guardsh.NewPolicy(guardsh.ModeDefault)
	Project string          // project root; "" means the starting directory
	Dir     string          // starting directory; "" means the process's
	Env     []string        // environment; nil means os.Environ()
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	FS      FS // nil: the operating system, unguarded
	// Name is $0; Params are $1...
	Name   string
	Params []string
	// Opts are shell options as for "set", e.g. "-e", "-u", "-o", "pipefail".
	Opts []string
	// Escalate runs an approved command that needs more than the session
	// sandbox (network, a write outside the project) through the privileged
	// side, with exactly the rights in v.Effects. nil: no escalation
	// possible, such commands run in the session sandbox.
	Escalate func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error
	// Sandbox describes the session sandbox for audit records, e.g.
	// "landlock+seccomp (abi 7)" or "off (--no-sandbox)".
	Sandbox string
}

// Runner runs shell code under guardsh's policy.
type Runner struct {
	cfg    Config
	policy *guardsh.Policy
	r      *interp.Runner
}

// deniedCmd replaces the argv of a refused command. It contains a NUL byte,
// so no function, alias or file can carry its name: the call always falls
// through to guardsh's exec handler, which reports the refusal.
const deniedCmd = "\x00guardsh-denied"

// New builds a Runner.
func New(cfg Config) (*Runner, error) {
	if cfg.Policy == nil {
		cfg.Policy = guardsh.NewPolicy(guardsh.ModeDefault)
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	g := &Runner{cfg: cfg, policy: cfg.Policy}
	opts := []interp.RunnerOption{
		interp.Env(expand.ListEnviron(cfg.Env...)),
		interp.StdIO(cfg.Stdin, cfg.Stdout, cfg.Stderr),
		interp.CallHandler(g.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return g.exec }),
	}
	if cfg.Dir != "" {
		opts = append(opts, interp.Dir(cfg.Dir))
	}
	if cfg.FS != nil {
		opts = append(opts,
			interp.OpenHandler(cfg.FS.Open),
			interp.StatHandler(cfg.FS.Stat),
			interp.ReadDirHandler2(cfg.FS.ReadDir),
		)
	}
	params := append([]string{}, cfg.Opts...)
	params = append(params, "--")
	params = append(params, cfg.Params...)
	opts = append(opts, interp.Params(params...))
	r, err := interp.New(opts...)
	if err != nil {
		return nil, err
	}
	if g.cfg.Project == "" {
		g.cfg.Project = r.Dir
	}
	g.r = r
	return g, nil
}

// Run parses src (named name in error messages) and runs it. It returns the
// shell's exit status; a parse error is reported on Stderr with status 2.
func (g *Runner) Run(ctx context.Context, src io.Reader, name string) int {
	file, err := syntax.NewParser().Parse(src, name)
	if err != nil {
		fmt.Fprintf(g.cfg.Stderr, "guardsh: %v\n", err)
		return 2
	}
	return g.RunFile(ctx, file)
}

// RunFile runs a parsed script and returns its exit status.
func (g *Runner) RunFile(ctx context.Context, file *syntax.File) int {
	err := g.r.Run(ctx, file)
	return statusOf(err, g.cfg.Stderr)
}

func statusOf(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if st, ok := interp.IsExitStatus(err); ok {
		return int(st)
	}
	if err == context.Canceled {
		return 130
	}
	fmt.Fprintf(stderr, "guardsh: %v\n", err)
	return 1
}

// command builds the policy's view of one simple command.
func (g *Runner) command(hc interp.HandlerContext, args []string) guardsh.Command {
	env := hc.Env
	return guardsh.Command{
		Args:    args,
		Dir:     hc.Dir,
		Project: g.cfg.Project,
		Home:    env.Get("HOME").String(),
		Env:     func(name string) string { return env.Get(name).String() },
		Via:     "shell",
	}
}

// call is the CallHandler: every simple command, expanded, is decided here.
func (g *Runner) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	v := g.decide(ctx, g.command(hc, args))
	if v.Decision == guardsh.Allow {
		return args, nil
	}
	return []string{deniedCmd, v.Message()}, nil
}

// exec is the ExecHandler for everything that is neither a builtin nor a
// function.
func (g *Runner) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	if args[0] == deniedCmd {
		msg := ""
		if len(args) > 1 {
			msg = args[1]
		}
		fmt.Fprintln(hc.Stderr, strings.TrimRight(msg, "\n"))
		return interp.ExitStatus(126)
	}
	return g.startExternal(ctx, hc, args)
}
