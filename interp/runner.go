// Package interp is guardsh's runner: mvdan.cc/sh/v3/interp with guardsh's
// handlers. Every simple command, after expansion, goes through one function
// that asks the policy (Runner.decide); every external command is started by
// guardsh's own exec handler; every file the interpreter opens itself goes
// through the FS hook that the path jail implements.
package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
	"golang.org/x/term"
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
	// (see audit.go). nil: no audit log.
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
	g.env = newDynEnviron(g, shellEnv(cfg.Env))
	g.errW = &errWriter{g: g, w: cfg.Stderr}
	opts := []interp.RunnerOption{
		interp.Env(g.env),
		interp.StdIO(cfg.Stdin, cfg.Stdout, g.errW),
		interp.CallHandler(g.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return g.gateExec(g.exec) }),
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
	return g, nil
}

// openHandler reports a redirection the system refused as bash does
// ("NAME: line N: FILE: Permission denied"); the jail's own refusals
// pass unchanged.
func (g *Runner) openHandler(open interp.OpenHandlerFunc) interp.OpenHandlerFunc {
	return func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		if rest, ok := strings.CutPrefix(path, fdPathPrefix); ok {
			// a redirection to fd N of guardsh's table: a duplicate of it
			// (same file, same offset, as dup2), no new file access
			n, line, _ := strings.Cut(rest, "_")
			num, err := strconv.Atoi(n)
			if err == nil && num >= 0 && num <= 2 {
				// >&$fd naming a standard stream
				hc := interp.HandlerCtx(ctx)
				switch num {
				case 0:
					return stdStream{r: hc.Stdin}, nil
				case 1:
					return stdStream{w: hc.Stdout}, nil
				case 2:
					return stdStream{w: hc.Stderr}, nil
				}
			}
			if f := g.sh.fds.get(num); err == nil && f != nil {
				if d, err := dupFd(f); err == nil {
					return d, nil
				}
			}
			return nil, &os.PathError{Op: fmt.Sprintf("%s: line %s:", g.name, line), Path: n, Err: errors.New("Bad file descriptor")}
		}
		if _, name, ok := strings.Cut(path, sourcePrefix); ok {
			return g.openSourced(ctx, open, name)
		}
		// mvdan may have made the marked path absolute: the mark is inside
		before, after, clobber := strings.Cut(path, clobberPrefix)
		if clobber {
			path = before + after
			if filepath.IsAbs(after) {
				path = after
			}
		}
		if g.bs.noclobber.Load() && !clobber && flag&os.O_TRUNC != 0 && flag&(os.O_WRONLY|os.O_RDWR) != 0 {
			// set -C: ">" does not overwrite an existing regular file
			p := path
			if !filepath.IsAbs(p) {
				p = filepath.Join(interp.HandlerCtx(ctx).Dir, p)
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				line := max(g.lastLine.Load(), 1)
				return nil, &os.PathError{Op: fmt.Sprintf("%s: line %d:", g.name, line), Path: path, Err: errors.New("cannot overwrite existing file")}
			}
		}
		if path == "" {
			// bash: no file has an empty name; nothing to judge
			line := max(g.lastLine.Load(), 1)
			return nil, &os.PathError{Op: fmt.Sprintf("%s: line %d:", g.name, line), Path: "", Err: errors.New("No such file or directory")}
		}
		if err := g.dryRunWrite(ctx, path, flag); err != nil {
			return nil, err
		}
		if flag&os.O_TRUNC != 0 && g.cfg.Advisor != nil {
			// a redirection that may truncate an existing file: the
			// advisor rates it (advisor_source.go)
			if err := g.adviseTruncate(ctx, path); err != nil {
				return nil, err
			}
		}
		f, err := open(ctx, path, flag, perm)
		var pe *os.PathError
		var en syscall.Errno
		if err != nil && errors.As(err, &pe) && pe.Op == "open" && errors.As(pe.Err, &en) {
			line := g.lastLine.Load()
			if line < 1 {
				line = 1
			}
			return nil, &os.PathError{Op: fmt.Sprintf("%s: line %d:", g.name, line), Path: path, Err: errors.New(errnoText(en))}
		}
		return f, err
	}
}

// shellEnv is the environment a shell starts with: SHLVL goes up by one,
// as in bash.
func shellEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	lvl := 0
	for _, kv := range env {
		if strings.HasPrefix(kv, "_=") {
			continue // $_ is the shell's own (the last argument)
		}
		if v, ok := strings.CutPrefix(kv, "SHLVL="); ok {
			lvl, _ = strconv.Atoi(strings.TrimSpace(v))
			continue
		}
		out = append(out, kv)
	}
	return append(out, "SHLVL="+strconv.Itoa(lvl+1))
}

// bashVersion is what guardsh reports in BASH_VERSION: the bash release
// whose behaviour mvdan's interpreter and guardsh's fixes follow, so that
// scripts take their bash branch.
const bashVersion = "5.2.15(1)-release"

// prelude sets the variables bash sets itself, unexported as in bash.
func (g *Runner) prelude() error {
	self, err := os.Executable()
	if err != nil {
		self = "/bin/bash"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "BASH=%s\n", shellQuote(self))
	fmt.Fprintf(&b, "BASH_VERSION=%s\n", shellQuote(bashVersion))
	mach, ostype := machType()
	fmt.Fprintf(&b, "BASH_VERSINFO=(5 2 15 1 release %s)\n", mach)
	fmt.Fprintf(&b, "MACHTYPE=%s\nHOSTTYPE=%s\nOSTYPE=%s\n", mach, strings.SplitN(mach, "-", 2)[0], ostype)
	if h, err := os.Hostname(); err == nil && g.env.Get("HOSTNAME").String() == "" {
		fmt.Fprintf(&b, "HOSTNAME=%s\n", shellQuote(h))
	}
	b.WriteString("GUARDSH=1\n")
	if !hasEnv(g.cfg.Env, "HOME") {
		// mvdan sets HOME when the environment has none; bash does not
		b.WriteString("unset HOME\n")
	}
	if !g.env.Get("PATH").IsSet() {
		// bash's built-in default, unexported as in bash
		b.WriteString("PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.\n")
	}
	if g.cfg.Interactive && g.env.Get("PS1").String() == "" {
		b.WriteString(`PS1='\s-\v\$ '` + "\n")
	}
	if g.env.Get("PS2").String() == "" {
		b.WriteString("PS2='> '\n")
	}
	if g.env.Get("PS4").String() == "" {
		b.WriteString("PS4='+ '\n")
	}
	b.WriteString(importFuncs(g.cfg.Env)) // bash's exported functions
	f, err := syntax.NewParser().Parse(strings.NewReader(b.String()), "")
	if err != nil {
		return err
	}
	// One Run for all of them: each Run ends by copying every variable
	// (the whole environment) into mvdan's Runner.Vars. A block, not the
	// File: running a File implies an exit (EXIT trap).
	return g.r.Run(context.Background(), &syntax.Stmt{Cmd: &syntax.Block{Stmts: f.Stmts}})
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

// parse is Parse, returning also the source as it was parsed (a
// here-document left open at the end is closed, as bash does): what the
// policy's line check must see.
func (g *Runner) parse(data []byte, name string) (*syntax.File, []byte, error) {
	data = append([]byte(nil), data...)
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), name)
	for tries := 0; err != nil && tries < 8; tries++ {
		// bash ends a here-document left open at the end of the input,
		// with a warning, and runs the script.
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			break
		}
		m := reHeredocEOF().FindStringSubmatch(pe.Text)
		if m == nil {
			break
		}
		lines := strings.Count(string(data), "\n")
		if !bytes.HasSuffix(data, []byte("\n")) {
			lines++
			data = append(data, '\n')
		}
		prefix := g.name
		if g.dashC {
			prefix += ": -c"
		}
		fmt.Fprintf(g.cfg.Stderr, "%s: line %d: warning: here-document at line %d delimited by end-of-file (wanted `%s')\n",
			strings.TrimSuffix(prefix, ": -c"), lines, pe.Pos.Line(), m[1])
		data = append(data, m[1]+"\n"...)
		file, err = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), name)
	}
	if err != nil {
		return nil, data, g.syntaxError(err, string(data))
	}
	g.rewrite(file)
	return file, data, nil
}

var reHeredocEOF = lazyRE("^unclosed here-document `(.+)`$")

var (
	reQuoteEOF   = lazyRE("^reached EOF without closing quote [`\"](.+)[`\"]$")
	reMatchEOF   = lazyRE("^reached EOF without matching .* with `(.+)`$")
	reEncounter  = lazyRE("encountered `([^`]+)`")
	reCanOnly    = lazyRE("^`([^`]+)` can only be used")
	reFollowedBy = lazyRE("^`([^`]+)` must be followed by")
)

// syntaxError words a parse error as bash does where the cases map
// ("NAME: -c: line N: syntax error near unexpected token `)'" and the
// line, "unexpected EOF while looking for matching `X'", "syntax error:
// unexpected end of file"), and as "NAME: line N: syntax error: MESSAGE"
// with mvdan's message otherwise.
func (g *Runner) syntaxError(err error, src string) error {
	prefix := g.name
	if g.dashC {
		prefix += ": -c"
	}
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		var le syntax.LangError
		if errors.As(err, &le) {
			return fmt.Errorf("%s: line %d: syntax error: %s", prefix, le.Pos.Line(), le.Error())
		}
		return fmt.Errorf("%s: %v", g.name, err)
	}
	line := int(pe.Pos.Line())
	eofLine := strings.Count(src, "\n") + 1
	if !strings.HasSuffix(src, "\n") {
		eofLine++
	}
	srcLine := func(n int) string {
		lines := strings.Split(src, "\n")
		if n >= 1 && n <= len(lines) {
			return lines[n-1]
		}
		return ""
	}
	near := func(tok string) error {
		return fmt.Errorf("%s: line %d: syntax error near unexpected token `%s'\n%s: line %d: `%s'", prefix, line, tok, prefix, line, srcLine(line))
	}
	if m := reQuoteEOF().FindStringSubmatch(pe.Text); m != nil {
		return fmt.Errorf("%s: line %d: unexpected EOF while looking for matching `%s'", prefix, line, m[1])
	}
	if m := reMatchEOF().FindStringSubmatch(pe.Text); m != nil {
		return fmt.Errorf("%s: line %d: unexpected EOF while looking for matching `%s'", prefix, eofLine, m[1])
	}
	if pe.Incomplete {
		return fmt.Errorf("%s: line %d: syntax error: unexpected end of file", prefix, eofLine)
	}
	if m := reEncounter().FindStringSubmatch(pe.Text); m != nil {
		return near(m[1])
	}
	if m := reCanOnly().FindStringSubmatch(pe.Text); m != nil {
		return near(m[1])
	}
	if m := reFollowedBy().FindStringSubmatch(pe.Text); m != nil {
		// the token after the keyword is the unexpected one
		rest := srcLine(line)
		if c := int(pe.Pos.Col()) - 1; c >= 0 && c <= len(rest) {
			rest = rest[c:]
		}
		if strings.HasPrefix(rest, m[1]) {
			if tok := firstToken(strings.TrimLeft(rest[len(m[1]):], " \t")); tok != "" {
				return near(tok)
			}
		}
	}
	return fmt.Errorf("%s: line %d: syntax error: %s", prefix, line, pe.Text)
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

// parsePrefix parses the complete statements of a script that does not
// parse as a whole, up to the one with the error. It returns nil if there
// are none, and the offset where they end.
func (g *Runner) parsePrefix(data []byte, name string) (*syntax.File, int) {
	var stmts []*syntax.Stmt
	for st, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(bytes.NewReader(data)) {
		if err != nil {
			break
		}
		stmts = append(stmts, st)
	}
	if len(stmts) == 0 {
		return nil, 0
	}
	end := int(stmts[len(stmts)-1].End().Offset())
	// The last statement may share its line with the error: bash reads
	// line by line and runs nothing of a line that does not parse.
	if nl := bytes.LastIndexByte(data[:min(end, len(data))], '\n'); end < len(data) && !lineEnds(data, end) {
		for len(stmts) > 0 && int(stmts[len(stmts)-1].End().Offset()) > nl {
			stmts = stmts[:len(stmts)-1]
		}
		if len(stmts) == 0 {
			return nil, 0
		}
		end = int(stmts[len(stmts)-1].End().Offset())
	}
	f := &syntax.File{Name: name, Stmts: stmts}
	g.rewrite(f)
	return f, min(end, len(data))
}

// lineEnds reports whether only blanks and a comment follow offset i on
// its line.
func lineEnds(data []byte, i int) bool {
	rest := data[i:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	rest = bytes.TrimLeft(rest, " \t;")
	return len(rest) == 0 || rest[0] == '#'
}

// lineCheck asks the policy about a whole script before it runs, for what
// no single command shows (fork bombs, code piped into a shell).
func (g *Runner) lineCheck(src string) (v guardsh.Verdict, ok bool) {
	defer func() {
		// A bug in the checker must not take the shell down; the commands
		// are still judged one by one as they run.
		if r := recover(); r != nil {
			fmt.Fprintf(g.cfg.Stderr, "%s: warning: line check failed (%v); commands are still checked one by one\n", g.name, r)
			v, ok = guardsh.Verdict{Decision: guardsh.Allow, Rule: "shell.linecheck-error"}, true
		}
	}()
	v, ok = g.policy.LineCheck(src, guardsh.CheckEnv{
		Dir:     g.r.Dir,
		Project: g.cfg.Project,
		Home:    g.policyHome(g.Var("HOME")),
		Env:     map[string]string{"TMPDIR": g.Var("TMPDIR")},
		Via:     "shell",
	})
	if !ok {
		g.auditLine(src, v) // audit.go
	}
	return v, ok
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

// errWriter is the interpreter's stderr: it gives the errors mvdan prints
// itself bash's "NAME: line N:" prefix (today: unbound variables). Child
// processes get the writer underneath (unwrapErr), so their output never
// passes through it.
type errWriter struct {
	g *Runner
	w io.Writer
	// pending is the last "set -x" trace line, held until the call
	// handler sees the command it traces: mvdan quotes a builtin's
	// arguments as one word and other commands' not at all; the call
	// handler writes the line as bash would (traceCall).
	mu      sync.Mutex
	pending []byte
	held    atomic.Bool // pending != nil: the call handler need not lock
}

var (
	unboundRe = lazyRE(`^([A-Za-z_][A-Za-z0-9_]*|[0-9]+): unbound variable\n$`)
	// mvdanErrRe are other messages mvdan prints itself, worded as bash's
	// but without the prefix.
	mvdanErrRe = lazyRE(`^(?:[A-Za-z_][A-Za-z0-9_]*: readonly variable|local: can only be used in a function|type: .+: not found)\n$`)
	// sourcedErrRe is mvdan's "source: " in front of an error guardsh
	// already formatted.
	// getoptsErrRe is mvdan's getopts error for an option it does not
	// know or one that lacks its argument.
	getoptsErrRe = lazyRE(`^getopts: (illegal option|option requires an argument) -- "(.+)"\n$`)
	sourcedErrRe = lazyRE(`^(?:source|\.): (.+: line [0-9]+: .*\n)$`)
)

func (e *errWriter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("+ ")) {
		if e.g.sh.hideTrace(p) {
			return len(p), nil
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.pending != nil {
			if _, err := e.w.Write(e.pending); err != nil {
				return 0, err
			}
		}
		e.pending = append([]byte(nil), p...)
		e.held.Store(true)
		return len(p), nil
	}
	if err := e.flushTrace(); err != nil {
		return 0, err
	}
	unbound := unboundRe().Match(p)
	if unbound || mvdanErrRe().Match(p) {
		if unbound {
			e.g.sh.unbound.Store(true)
		}
		line := e.g.lastLine.Load()
		if line < 1 {
			line = 1
		}
		if _, err := fmt.Fprintf(e.w, "%s: line %d: %s", e.g.name, line, p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if m := getoptsErrRe().FindSubmatch(p); m != nil {
		// bash: "NAME: illegal option -- z", without quotes or a line
		if _, err := fmt.Fprintf(e.w, "%s: %s -- %s\n", e.g.name, m[1], m[2]); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if m := sourcedErrRe().FindSubmatch(p); m != nil {
		if _, err := e.w.Write(m[1]); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return e.w.Write(p)
}

// flushTrace writes a held trace line as it is.
func (e *errWriter) flushTrace() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		return nil
	}
	_, err := e.w.Write(e.pending)
	e.pending = nil
	e.held.Store(false)
	return err
}

// traceCall writes the held trace line of the command args, as bash
// traces it; a held line of something else is written as it is.
func (e *errWriter) traceCall(args []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		return
	}
	line := e.pending
	e.pending = nil
	e.held.Store(false)
	if string(line) == mvdanTrace(args) {
		line = []byte(bashTrace(args))
	}
	e.w.Write(line)
}

// mvdanTrace is the line mvdan's tracer writes for a call.
func mvdanTrace(args []string) string {
	s := strings.Join(args[1:], " ")
	switch {
	case strings.TrimSpace(s) == "":
		return "+ " + args[0] + "\n"
	case interp.IsBuiltin(args[0]):
		q, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			return ""
		}
		return "+ " + args[0] + " " + q + "\n"
	}
	return "+ " + args[0] + " " + s + "\n"
}

// bashTrace is bash's "set -x" line for a call: each word quoted if the
// shell would read it differently.
func bashTrace(args []string) string {
	var b strings.Builder
	b.WriteString("+")
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(traceWord(a))
	}
	b.WriteByte('\n')
	return b.String()
}

func traceWord(s string) string {
	if s == "" {
		return "''"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return ansiQuote(s)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>',
			'!', '{', '}', '*', '[', '?', ']', '^', '$', '`':
			return shellQuote(s)
		case '~':
			if i == 0 || s[i-1] == '=' || s[i-1] == ':' {
				return shellQuote(s)
			}
		case '#':
			if i == 0 {
				return shellQuote(s)
			}
		}
	}
	return s
}

// hideTrace reports whether a "set -x" trace line shows guardsh's own
// code (markers, bookkeeping evals), which bash's trace would not have.
func (s *shared) hideTrace(p []byte) bool {
	if bytes.Contains(p, []byte(internalPrefix)) || bytes.Contains(p, []byte("__guardsh_")) ||
		bytes.HasPrefix(p, []byte("+ local -a FUNCNAME=(")) {
		return true
	}
	if s.traceDropNext.CompareAndSwap(true, false) {
		return true
	}
	return s.traceQuiet.Load() > 0
}

// unwrapErr returns the writer under an errWriter.
func unwrapErr(w io.Writer) io.Writer {
	if e, ok := w.(*errWriter); ok {
		return e.w
	}
	return w
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

// policyHome is the home directory the policy protects: Config.UserHome,
// else the session's $HOME (envHome).
func (g *Runner) policyHome(envHome string) string {
	if g != nil && g.cfg.UserHome != "" {
		return g.cfg.UserHome
	}
	return envHome
}

// command builds the policy's view of one simple command.
func (g *Runner) command(hc interp.HandlerContext, args []string) guardsh.Command {
	env := hc.Env
	return guardsh.Command{
		Args:       args,
		Dir:        hc.Dir,
		Project:    g.cfg.Project,
		Home:       g.policyHome(env.Get("HOME").String()),
		Env:        func(name string) string { return env.Get(name).String() },
		Via:        "shell",
		Which:      func(name string) string { return which(hc.Dir, env, name) },
		OwnProcess: g.sh.runningPid,
	}
}

// which is the file a bare command name runs on env's PATH ("" if none),
// for guardsh.Command.Which: the path as found when what it is lies there
// too, else what it resolves to. A symlink out of its tree (a project's
// bin/pip -> /usr/bin/pip) is what it points to; a virtual environment's
// python, a symlink to the interpreter it was made from, is the venv's
// (its pyvenv.cfg makes it so; for the interpreter only: a script such as
// pip is what its own file is).
func which(dir string, env expand.Environ, name string) string {
	p, status, _ := lookCommand(dir, env, name)
	if status != 0 {
		return ""
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	tree := filepath.Dir(filepath.Dir(p))
	if real, err := filepath.EvalSymlinks(tree); err == nil && strings.HasPrefix(r, real+"/") {
		return p
	}
	if _, err := os.Stat(filepath.Join(tree, "pyvenv.cfg")); err == nil && strings.HasPrefix(name, "python") {
		return p
	}
	return r
}

// call is the CallHandler: every simple command, expanded, is decided here.
func (g *Runner) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	if hc.Pos.IsValid() {
		g.lastLine.Store(int64(hc.Pos.Line()))
	}
	if strings.HasPrefix(args[0], reparseToken) {
		unmaskInternal(args)
	}
	if strings.HasPrefix(args[0], internalPrefix) {
		return g.internalCall(hc, args)
	}
	if g.sh.traceDropNext.Load() {
		g.sh.traceDropNext.Store(false) // this command's trace is out
	}
	if g.errW != nil && g.errW.held.Load() {
		g.errW.traceCall(args)
	}
	switch args[0] {
	case quietBegin:
		g.sh.traceQuiet.Add(1)
		return []string{":"}, nil
	case quietEnd:
		if g.sh.traceQuiet.Add(-1) < 0 {
			g.sh.traceQuiet.Store(0)
		}
		g.sh.traceDropNext.Store(true)
		return []string{":"}, nil
	case exitCmd:
		return []string{"exit"}, nil
	case aliasCmd:
		return g.aliasRun(args), nil
	}
	g.bs.setLastArg(args[len(args)-1])
	if args[0] == markBgDone {
		if len(args) == 3 {
			g.sh.bgDone(args[1], args[2])
		}
		return []string{":"}, nil
	}
	if _, ok := g.pureVerdict(args[0]); ok {
		// a builtin the policy allows whatever its arguments (decide.go)
		g.decidePure(args)
		return g.compatCall(ctx, hc, args), nil
	}
	if args[0] == "source" || args[0] == "." || args[0] == "eval" {
		g.noteSourcedFunctions(ctx, hc, args) // funcnames.go
	}
	c := g.command(hc, args)
	c.Source = g.sh.globs.lookup(hc.Pos, args[0])
	// A name some script defines as a function may be a function call:
	// the policy allows the call (its body's commands are judged as they
	// run). If it reaches the exec handler instead, it was a command after
	// all and is decided again there as one. Builtins never reach the exec
	// handler, so a builtin's name is always decided as itself.
	maybeFunc := !interp.IsBuiltin(args[0]) && g.sh.mayBeFunction(args[0])
	c.Function = maybeFunc
	var input io.Reader
	if !maybeFunc && !interp.IsBuiltin(args[0]) && guardsh.InputMatters(args) {
		// the verdict depends on stdin: read it first, and judge what
		// follows chunk by chunk as the command reads it (input.go)
		data, all, read := readInput(hc.Stdin)
		rest := hc.Stdin
		switch {
		case all:
			text := string(data)
			c.Input = &text
			input = bytes.NewReader(data)
		case read:
			// judged in full lines: the first chunk up to its last newline
			first, carry := data, []byte(nil)
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				first, carry = data[:i+1], append([]byte(nil), data[i+1:]...)
			}
			text := string(first)
			c.Input = &text
			tmpl := c
			input = io.MultiReader(bytes.NewReader(first), &checkedInput{src: rest, carry: carry, judge: func(chunk string) bool {
				cc := tmpl
				cc.Input = &chunk
				v := g.decide(ctx, cc)
				if v.Decision != guardsh.Allow {
					fmt.Fprintln(hc.Stderr, v.Message()+" (in the input of "+args[0]+"; the input stops there)")
					return false
				}
				return true
			}})
		}
	}
	v := g.decide(ctx, c)
	if v.Decision != guardsh.Allow {
		return []string{deniedCmd, v.Message()}, nil
	}
	if maybeFunc {
		g.sh.markRecheck(args)
	}
	if input != nil {
		return withInput(g.compatCall(ctx, hc, args), input), nil
	}
	return g.compatCall(ctx, hc, args), nil
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
	if args[0] == inputCmd {
		hc, args = takeInput(hc, args)
	}
	if strings.HasPrefix(args[0], internalPrefix) {
		return g.builtin(ctx, hc, args)
	}
	if g.sh.takeRecheck(args) {
		if v := g.decide(ctx, g.command(hc, args)); v.Decision != guardsh.Allow {
			fmt.Fprintln(hc.Stderr, v.Message())
			return interp.ExitStatus(126)
		}
	}
	return g.startExternal(ctx, hc, args)
}

// errf prints an error the way bash does: "NAME: line N: MESSAGE".
func (g *Runner) errf(hc interp.HandlerContext, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	name := g.name
	// In a sourced file, bash names that file.
	if src := hc.Env.Get("BASH_SOURCE"); src.Kind == expand.Indexed && len(src.List) > 0 && src.List[0] != "" {
		name = src.List[0]
	}
	if hc.Pos.IsValid() && hc.Pos.Line() > 0 {
		fmt.Fprintf(hc.Stderr, "%s: line %d: %s\n", name, hc.Pos.Line(), msg)
		return
	}
	fmt.Fprintf(hc.Stderr, "%s: %s\n", name, msg)
}

// dynEnviron is the base environment of a runner: the process environment
// plus variables guardsh computes when they are read ($! as a real PID).
type dynEnviron struct {
	g    *Runner
	list expand.Environ
}

func newDynEnviron(g *Runner, env []string) *dynEnviron {
	return &dynEnviron{g: g, list: expand.ListEnviron(env...)}
}

// bangVar is the variable guardsh rewrites $! to.
const bangVar = "__guardsh_bang"

func (e *dynEnviron) Get(name string) expand.Variable {
	str := func(s string) expand.Variable {
		return expand.Variable{Set: true, Kind: expand.String, Str: s}
	}
	switch name {
	case "SECONDS":
		return str(strconv.Itoa(int(time.Since(e.g.start) / time.Second)))
	case "BASHPID":
		return str(strconv.Itoa(os.Getpid()))
	case "EPOCHSECONDS":
		return str(strconv.FormatInt(time.Now().Unix(), 10))
	case flagsVar:
		flags := "hB"
		if e.g.cfg.Interactive {
			flags = "hiBHs"
			if isTerminal(e.g.cfg.Stdin) {
				flags = "himBHs" // job control needs a terminal
			}
		} else if e.g.dashC {
			flags = "hBc"
		}
		return str(flags)
	case "EPOCHREALTIME":
		now := time.Now()
		return str(fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000))
	}
	if name == "_" {
		return str(e.g.bs.lastArgValue())
	}
	if name == fdLastVar {
		return str(strconv.FormatInt(e.g.sh.fds.last.Load(), 10))
	}
	if name == bangVar {
		pid := e.g.sh.lastBgPid()
		if pid == "" {
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: pid}
	}
	return e.list.Get(name)
}

// Each lists the environment and, as they are now, the computed
// variables: a background subshell (a pipeline element, cmd &) copies the
// environment with Each, and must still see $! and friends.
func (e *dynEnviron) Each(f func(name string, vr expand.Variable) bool) {
	stop := false
	e.list.Each(func(name string, vr expand.Variable) bool {
		if !f(name, vr) {
			stop = true
			return false
		}
		return true
	})
	if stop {
		return
	}
	for _, name := range []string{"SECONDS", "BASHPID", "EPOCHSECONDS", "EPOCHREALTIME"} {
		if !f(name, e.Get(name)) {
			return
		}
	}
	if pid := e.g.sh.lastBgPidNoWait(); pid != "" {
		f(bangVar, expand.Variable{Set: true, Kind: expand.String, Str: pid})
	}
}

// machType returns bash's MACHTYPE and OSTYPE for this platform.
func machType() (mach, ostype string) {
	cpu := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "riscv64": "riscv64", "ppc64le": "powerpc64le", "s390x": "s390x"}[runtime.GOARCH]
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	switch runtime.GOOS {
	case "darwin":
		if cpu == "aarch64" {
			cpu = "arm64"
		}
		return cpu + "-apple-darwin", "darwin"
	case "linux":
		vendor := "unknown"
		if cpu == "x86_64" || cpu == "i686" {
			vendor = "pc"
		}
		return cpu + "-" + vendor + "-linux-gnu", "linux-gnu"
	}
	return cpu + "-unknown-" + runtime.GOOS, runtime.GOOS
}

// firstToken is the first shell token of s: an operator or a word.
func firstToken(s string) string {
	for _, op := range []string{";;", "&&", "||", ";", "&", "|", "(", ")", "<", ">"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	end := strings.IndexAny(s, " \t;&|()<>")
	if end < 0 {
		return s
	}
	return s[:end]
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// isTerminal reports whether r is a terminal, without putting it in
// blocking mode (as File.Fd would).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	sc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) })
	return tty
}
