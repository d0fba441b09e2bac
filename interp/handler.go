package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

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
			if f := g.fds.get(num); err == nil && f != nil {
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

// safeCall and safeExec are the handlers mvdan calls: call and exec with
// a panic turned into a bash-style error and status 2. A pipeline member
// runs in a goroutine of mvdan's that RunFile's recover does not reach, so
// a panic in guardsh's code there (a builtin of its own, the gate, an
// escalation) would end the process with a Go stack trace.
func (g *Runner) safeCall(ctx context.Context, args []string) (out []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = []string{internalPrefix + "err", "2", panicText(p)}, nil
		}
	}()
	return g.call(ctx, args)
}

func (g *Runner) safeExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) (err error) {
		defer func() {
			if p := recover(); p != nil {
				g.errf(interp.HandlerCtx(ctx), "%s", panicText(p))
				err = interp.ExitStatus(2)
			}
		}()
		return next(ctx, args)
	}
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
	// No bash string holds a NUL byte (a C string ends there), and no
	// program can be given one; mvdan's mapfile keeps them. Cut there, as
	// bash's mapfile does, so that what is decided is what runs: no word
	// of a script's command can spell inputCmd or internalPrefix+NAME for
	// the exec handler ("command NAME", "exec NAME").
	cutAtNUL(args)
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
	c.NameEscaped = g.sh.globs.nameEscaped(hc.Pos, args[0])
	c.EscapedWords = g.sh.globs.wordsEscaped(hc.Pos)
	// A name some script defines as a function may be a function call:
	// the policy allows the call (its body's commands are judged as they
	// run). If it reaches the exec handler instead, it was a command after
	// all and is decided again there as one. Builtins never reach the exec
	// handler, so a builtin's name is always decided as itself.
	maybeFunc := !interp.IsBuiltin(args[0]) && g.sh.mayBeFunction(args[0])
	c.Function = maybeFunc
	var input io.Reader
	wrapped := programAt(args) // "command PROG", "exec PROG": PROG runs as a program
	if !maybeFunc && (!interp.IsBuiltin(args[0]) || wrapped > 0) {
		input = g.inputForDecision(ctx, hc, &c)
	}
	v := g.decide(ctx, c)
	if v.Decision != guardsh.Allow {
		return []string{deniedCmd, v.Message()}, nil
	}
	out := g.compatCall(ctx, hc, args)
	if maybeFunc {
		g.handoff.markRecheck(out)
	}
	if input != nil {
		if wrapped > 0 {
			return g.handoff.withInputAt(out, wrapped, input), nil
		}
		return g.handoff.withInput(out, input), nil
	}
	return out, nil
}

// programAt returns where the program of "command [--] PROG ..." or "exec
// [--] PROG ..." (nested too) starts in args, which mvdan's command and
// exec builtins hand to the exec handler from there; 0 for any other
// command, and for a builtin's options guardsh leaves to mvdan.
func programAt(args []string) int {
	i := 0
	for i < len(args) && (args[i] == "command" || args[i] == "exec") {
		i++
		if i < len(args) && args[i] == "--" {
			i++
		}
	}
	if i == 0 || i >= len(args) || strings.HasPrefix(args[i], "-") || interp.IsBuiltin(args[i]) {
		return 0
	}
	return i
}

// inputForDecision reads, when the verdict on c depends on its standard
// input (guardsh.InputMatters), that input before deciding: c.Input gets
// what was read, and the reader returned (nil if nothing was read) gives
// the command that input and then the rest of the stream, judged chunk by
// chunk as the command reads it (input.go).
func (g *Runner) inputForDecision(ctx context.Context, hc interp.HandlerContext, c *guardsh.Command) (input io.Reader) {
	args := c.Args
	if !guardsh.InputMatters(args) {
		return nil
	}
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
		tmpl := *c
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
	return input
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
		var in io.Reader
		if in, args = g.handoff.takeInput(args); in == nil {
			// only the call handler makes this argv, with its input
			// parked (withInput): anything else is forged
			fmt.Fprintln(hc.Stderr, "guardsh: denied [shell.internal]: internal guardsh name. Use the plain command name")
			return interp.ExitStatus(126)
		}
		hc.Stdin = in
	}
	if strings.HasPrefix(args[0], internalPrefix) {
		return g.builtin(ctx, hc, args)
	}
	return g.startExternal(ctx, hc, args)
}

// recheck decides again, as a command, what the call handler allowed as a
// possible function call (handoff.markRecheck) and that reached the exec
// handler: as the call handler decides a command, with its source as
// written and the standard input it reads before deciding. It returns the
// argv to run (inputCmd ARGV... when input was read, protocol.go), with
// the decision's handoff entry on it, or the refusal's status.
func (g *Runner) recheck(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	c := g.command(hc, args)
	c.Source = g.sh.globs.lookup(hc.Pos, args[0])
	c.NameEscaped = g.sh.globs.nameEscaped(hc.Pos, args[0])
	input := g.inputForDecision(ctx, hc, &c)
	if v := g.decide(ctx, c); v.Decision != guardsh.Allow {
		fmt.Fprintln(hc.Stderr, v.Message())
		return nil, interp.ExitStatus(126)
	}
	if input != nil {
		return g.handoff.withInput(args, input), nil
	}
	return args, nil
}

// cutAtNUL ends every word of args at its first NUL byte, in place.
func cutAtNUL(args []string) {
	for i, a := range args {
		if j := strings.IndexByte(a, 0); j >= 0 {
			args[i] = a[:j]
		}
	}
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
