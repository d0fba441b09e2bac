// Package interp is guardsh's runner: mvdan.cc/sh/v3/interp with guardsh's
// handlers. Every simple command, after expansion, goes through one function
// that asks the policy (Runner.decide); every external command is started by
// guardsh's own exec handler; every file the interpreter opens itself goes
// through the FS hook that the path jail implements.
package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
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
	// Name is $0 and the prefix of error messages ("guardsh: line 1: ...");
	// "" means "guardsh". Params are $1...
	Name   string
	Params []string
	// Opts are shell options as for "set", e.g. "-e", "-u", "-o", "pipefail".
	Opts []string
	// Interactive makes the shell interactive ($- holds i, PS1 is set).
	Interactive bool
	// Escalate runs an approved command that needs more than the session
	// sandbox (network, a write outside the project) through the privileged
	// side, with exactly the rights in v.Effects. nil: no escalation
	// possible, such commands run in the session sandbox.
	Escalate func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error
	// Sandbox describes the session sandbox for audit records, e.g.
	// "landlock+seccomp (abi 7)" or "off (--no-sandbox)".
	Sandbox string
	// Gate answers the policy's asks (the terminal gate, the agent's UI, a
	// test). nil: nobody can be asked, every ask is refused (see gate.go).
	Gate Gate
	// Audit receives a record of every decision before the command runs
	// (package audit). nil: no audit log.
	Audit *audit.Log
	// Advisor, if set, rates every command the rules allowed outright
	// and refuses one rated at or above its threshold (advisor.go).
	Advisor Advisor
	// UserHome is the home directory the policy protects; "" means the
	// session's $HOME. guardsh-agent's clean environment points HOME at
	// a directory of the run's own and sets this to the user's.
	UserHome string

	// shared is set for nested shells (bash -c, scripts): they share the
	// parent's process table and job list.
	shared *shared
	// pin is what the session hands down to the programs it starts
	// (envpin.go); set once, from the first runner's environment.
	pin envPin
	// parentPid is the parent shell's $$ (a nested shell's $PPID).
	parentPid int
	// fds is the parent shell's fd table, which a nested shell's starts as
	// a copy of.
	fds *fdTable
	// group collects the processes of a nested shell (see procGroup).
	group *procGroup
	// dashEcho gives echo dash's behaviour (an "sh" child where /bin/sh
	// is dash, or a "dash" child).
	dashEcho bool
}

// Runner runs shell code under guardsh's policy.
type Runner struct {
	cfg    Config
	policy *guardsh.Policy
	r      *interp.Runner
	name   string // $0, and the prefix of error messages
	sh     *shared
	errW   *errWriter
	grp    *procGroup
	env    *dynEnviron
	// verbose is "set -v": input is echoed on stderr before it runs.
	verbose bool
	// lastStatus is $? for an interactive prompt's expansion.
	lastStatus int
	// dashC is set while the string of -c is parsed and run (bash words
	// its syntax errors "NAME: -c: line N: ...").
	dashC bool
	start time.Time // for $SECONDS
	// lastLine is the line of the last command, for errors mvdan reports
	// without a position (a refused redirection).
	lastLine atomic.Int64
	// pure caches the policy's verdicts of pure builtins (decide.go).
	pure pureCache
	// stmts are the statements as written, for the advisor
	// (advisor_source.go); empty when it is off.
	stmts stmtSources
	// bs is what guardsh's bash builtins remember (builtin_bash.go).
	bs bashState
	// own are the background jobs this shell's statements started
	// (nested_stdio.go).
	own ownJobs
	// fds are the shell's file descriptors from 3 up (compat_fds.go): its
	// own, as a process's are; a nested shell starts with duplicates of its
	// parent's.
	fds *fdTable
	// handoff is what the CallHandler leaves for the ExecHandler about one
	// command (protocol.go).
	handoff handoff
}

// New builds a Runner.
func New(cfg Config) (*Runner, error) {
	if cfg.Policy == nil {
		cfg.Policy = guardsh.NewPolicy(guardsh.ModeDefault)
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if !cfg.pin.set {
		cfg.pin = newEnvPin(cfg.Env)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Name == "" {
		cfg.Name = "guardsh"
	}
	sh := cfg.shared
	if sh == nil {
		sh = newShared()
	}
	g := &Runner{cfg: cfg, policy: cfg.Policy, name: cfg.Name, sh: sh, grp: cfg.group, start: time.Now()}
	g.fds = cfg.fds.clone()
	built := false
	defer func() {
		if !built {
			g.fds.closeAll()
		}
	}()
	g.env = newDynEnviron(g, shellEnv(cfg.Env))
	g.errW = &errWriter{g: g, w: cfg.Stderr}
	opts := []interp.RunnerOption{
		interp.Env(g.env),
		interp.StdIO(cfg.Stdin, cfg.Stdout, g.errW),
		interp.CallHandler(g.safeCall),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return g.safeExec(g.gateExec(g.exec)) }),
		interp.Interactive(cfg.Interactive),
	}
	if cfg.Dir != "" {
		opts = append(opts, interp.Dir(cfg.Dir))
	}
	open := interp.DefaultOpenHandler()
	if cfg.FS != nil {
		open = cfg.FS.Open
	}
	opts = append(opts, interp.OpenHandler(g.openHandler(open)))
	if cfg.FS != nil {
		opts = append(opts,
			interp.StatHandler(cfg.FS.Stat),
			interp.ReadDirHandler2(cfg.FS.ReadDir),
		)
		opts = append(opts, g.jailOptions()...) // fs.go: bind a JailFS, close mvdan's FIFO bypass
	}
	setOpts, verbose, _ := filterSetArgs(cfg.Opts)
	g.verbose = verbose
	params := append([]string{}, setOpts...)
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
	if cfg.shared == nil && cfg.Policy.Sandboxed {
		sh.roots = sessionRoots(g.cfg.Project, cfg.Env)
		sh.netState = expand.ListEnviron(cfg.Env...).Get(sandbox.EnvNet).String()
	}
	g.r = r
	// The prelude is guardsh's, not the script's: "bash -x" does not trace it.
	g.sh.traceQuiet.Add(1)
	err = g.prelude()
	g.sh.traceQuiet.Add(-1)
	if err != nil {
		return nil, err
	}
	// mvdan's Reset, which reads $TMPDIR for its FIFO directory, has run
	// (prelude): the jail's answer for it costs a stack walk per lookup and
	// is not needed any more.
	if fe, ok := g.env.list.(fifoEnviron); ok {
		g.env.list = fe.Environ
	}
	built = true
	return g, nil
}

// Name returns $0 of the shell, the prefix of its error messages.
func (g *Runner) Name() string { return g.name }

// Parse parses a script in bash syntax with guardsh's rewrites applied.
// A syntax error is returned formatted as bash would print it (without the
// trailing newline).
func (g *Runner) Parse(src io.Reader, name string) (*syntax.File, error) {
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", g.name, err)
	}
	file, _, err := g.parse(data, name)
	return file, err
}

// Run parses src (named name, which becomes $0) and runs it. It returns the
// shell's exit status; a parse error is reported on Stderr with status 2.
func (g *Runner) Run(ctx context.Context, src io.Reader, name string) int {
	data, err := io.ReadAll(src)
	if err != nil {
		fmt.Fprintf(g.cfg.Stderr, "%s: %v\n", g.name, err)
		return 2
	}
	if g.verbose {
		g.cfg.Stderr.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			io.WriteString(g.cfg.Stderr, "\n")
		}
	}
	file, data, err := g.parse(data, name)
	if err != nil {
		// Like bash, run the commands before the one that does not parse,
		// then report the error with status 2 (unless they exited).
		if prefix, end := g.parsePrefix(data, name); prefix != nil {
			if v, ok := g.lineCheck(string(data[:end])); !ok {
				fmt.Fprintln(g.cfg.Stderr, v.Message())
				return 126
			}
			st := g.RunFile(ctx, prefix)
			if g.r.Exited() || ctx.Err() != nil {
				return st
			}
		}
		fmt.Fprintln(g.cfg.Stderr, err)
		return 2
	}
	if v, ok := g.lineCheck(string(data)); !ok {
		fmt.Fprintln(g.cfg.Stderr, v.Message())
		return 126
	}
	return g.RunFile(ctx, file)
}

// RunDashC runs the string of "-c": like Run, except that an unbound
// variable under "set -u" ends it with status 127, as in bash.
func (g *Runner) RunDashC(ctx context.Context, cmd, name string) int {
	g.sh.unbound.Store(false)
	g.dashC = true
	st := g.Run(ctx, strings.NewReader(cmd), name)
	g.dashC = false
	if st == 1 && g.r.Exited() && g.sh.unbound.Load() {
		return 127
	}
	return st
}

// RunFile runs a parsed script and returns its exit status. A panic of
// the interpreter (an input it does not handle) ends the script with a
// bash-style error and status 2 instead of a Go stack trace.
func (g *Runner) RunFile(ctx context.Context, file *syntax.File) (status int) {
	defer func() {
		if p := recover(); p != nil {
			g.errW.flushTrace()
			fmt.Fprintf(g.cfg.Stderr, "%s: %v\n", g.name, panicText(p))
			status = 2
		}
	}()
	err := g.r.Run(ctx, file)
	g.errW.flushTrace()
	return g.statusOf(err)
}

// panicText words a recovered interpreter panic as a shell error.
func panicText(p any) string {
	msg := fmt.Sprint(p)
	if e, ok := p.(error); ok {
		msg = e.Error()
	}
	return "unsupported by the interpreter: " + strings.TrimPrefix(msg, "runtime error: ")
}

// Exited reports whether the last run ended the shell ("exit", errexit).
func (g *Runner) Exited() bool { return g.r.Exited() }

// Dir is the shell's current directory.
func (g *Runner) Dir() string { return g.r.Dir }

// Var returns the value of a shell variable.
func (g *Runner) Var(name string) string {
	if v, ok := g.r.Vars[name]; ok {
		return v.String()
	}
	return g.env.Get(name).String()
}

func (g *Runner) statusOf(err error) int {
	if err == nil {
		return 0
	}
	if st, ok := isExit(err); ok {
		return int(st)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted) {
		return 130
	}
	fmt.Fprintf(g.cfg.Stderr, "%s: %v\n", g.name, err)
	return 1
}
