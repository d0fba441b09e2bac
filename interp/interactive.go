package interp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"
	"mvdan.cc/sh/v3/syntax"
)

// InteractiveOptions are the start-up choices of an interactive shell.
type InteractiveOptions struct {
	Login bool // read the login profile files
	RC    bool // read ~/.bashrc
}

// Interactive runs the read-eval loop of an interactive shell on the
// Runner's standard input: prompts from PS1/PS2 on stderr, line editing
// and in-memory history when stdin is a terminal (golang.org/x/term).
// Ctrl-C cancels the line being typed or the running command, not the
// shell; Ctrl-D on an empty line or "exit" ends it. It returns the exit
// status.
func (g *Runner) Interactive(ctx context.Context, opts InteractiveOptions) int {
	if opts.Login {
		g.SourceLogin(ctx)
	} else if opts.RC {
		g.SourceRC(ctx)
	}
	// SIGINT cancels the running command; SIGTERM is ignored, as in an
	// interactive bash; SIGHUP ends the children and the shell.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	var cancelCur atomic.Pointer[context.CancelFunc]
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGINT:
				if c := cancelCur.Load(); c != nil {
					(*c)()
				}
			case syscall.SIGHUP:
				g.KillChildren(syscall.SIGHUP, time.Second)
				g.cfg.Audit.Flush() // the session's counts
				os.Exit(129)
			}
		}
	}()
	in := g.cfg.Stdin
	if in == nil {
		in = strings.NewReader("")
	}
	rd := newLineReader(in, g.cfg.Stderr)
	defer rd.close()
	status := 0
	for {
		g.lastStatus = status
		src, err := g.readCommand(rd)
		if errors.Is(err, errLineCancelled) {
			status = 130
			continue
		}
		if err != nil {
			if err == io.EOF {
				fmt.Fprintln(g.cfg.Stderr, "exit")
			} else {
				fmt.Fprintf(g.cfg.Stderr, "%v\n", err)
				status = 2
				continue
			}
			return status
		}
		file, fixed, perr := g.parse([]byte(src), g.name)
		if perr != nil {
			fmt.Fprintln(g.cfg.Stderr, perr)
			status = 2
			continue
		}
		if v, ok := g.lineCheck(string(fixed)); !ok {
			fmt.Fprintln(g.cfg.Stderr, v.Message())
			status = 126
			continue
		}
		cctx, cancel := context.WithCancel(ctx)
		cancelCur.Store(&cancel)
		err = g.r.Run(cctx, file)
		g.errW.flushTrace()
		interrupted := cctx.Err() != nil
		cancelCur.Store(nil)
		cancel()
		if interrupted {
			fmt.Fprintln(g.cfg.Stderr)
			status = 130
			g.setStatus(ctx, status)
			continue
		}
		status = g.statusOf(err)
		if g.r.Exited() {
			return status
		}
	}
}

var errLineCancelled = errors.New("line cancelled")

// readCommand reads one complete command, with PS2 continuation lines.
func (g *Runner) readCommand(rd *lineReader) (string, error) {
	prompt := g.prompt("PS1")
	var src strings.Builder
	for {
		line, err := rd.readLine(prompt)
		if err != nil {
			if err == io.EOF && src.Len() > 0 {
				return src.String(), nil
			}
			return "", err
		}
		src.WriteString(line)
		src.WriteString("\n")
		_, perr := syntax.NewParser().Parse(strings.NewReader(src.String()), "")
		if perr == nil || !syntax.IsIncomplete(perr) {
			if strings.TrimSpace(src.String()) != "" {
				rd.addHistory(strings.TrimRight(src.String(), "\n"))
			}
			return src.String(), nil
		}
		prompt = g.prompt("PS2")
	}
}

// prompt expands a prompt variable with bash's common backslash escapes.
func (g *Runner) prompt(name string) string {
	ps := g.Var(name)
	var b strings.Builder
	for i := 0; i < len(ps); i++ {
		c := ps[i]
		if c != '\\' || i+1 >= len(ps) {
			b.WriteByte(c)
			continue
		}
		i++
		switch ps[i] {
		case 'u':
			name := g.Var("USER")
			if u, err := user.Current(); err == nil {
				name = u.Username
			}
			b.WriteString(name)
		case 'h', 'H':
			h, _ := os.Hostname()
			if ps[i] == 'h' {
				h, _, _ = strings.Cut(h, ".")
			}
			b.WriteString(h)
		case 'w', 'W':
			d := g.r.Dir
			if ps[i] == 'W' && d != "/" {
				d = filepath.Base(d)
			} else if home := g.Var("HOME"); home != "" && (d == home || strings.HasPrefix(d, home+"/")) {
				d = "~" + d[len(home):]
			}
			b.WriteString(d)
		case '$':
			if os.Geteuid() == 0 {
				b.WriteByte('#')
			} else {
				b.WriteByte('$')
			}
		case 's':
			b.WriteString(filepath.Base(g.name))
		case 'v', 'V':
			b.WriteString("5.2")
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteString(time.Now().Format("15:04:05"))
		case 'e':
			b.WriteByte(0x1b)
		case '[', ']':
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(ps[i])
		}
	}
	out := b.String()
	if strings.ContainsAny(out, "$`") {
		out = g.expandPrompt(out)
	}
	return out
}

// expandPrompt does what bash's promptvars does to a prompt: parameter
// and arithmetic expansion and command substitution, as in double quotes.
// $? in it is the last command's status, and stays so.
func (g *Runner) expandPrompt(s string) string {
	status := strconv.Itoa(g.lastStatus)
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	f, err := syntax.NewParser().Parse(strings.NewReader(`__guardsh_prompt="`+esc+`"`), "")
	if err != nil || len(f.Stmts) != 1 {
		return s
	}
	ctx := context.Background()
	if g.r.Run(ctx, f.Stmts[0]) != nil {
		return s
	}
	out := g.r.Vars["__guardsh_prompt"].String()
	if u, err := syntax.NewParser().Parse(strings.NewReader("unset __guardsh_prompt"), ""); err == nil {
		g.sh.traceQuiet.Add(1)
		g.r.Run(ctx, u.Stmts[0])
		g.sh.traceQuiet.Add(-1)
	}
	if n, err := strconv.Atoi(status); err == nil {
		g.setStatus(ctx, n)
	}
	return out
}

// lineReader reads lines with x/term's editor on a terminal, or plainly
// from anything else.
type lineReader struct {
	fd      int
	isTerm  bool
	t       *term.Terminal
	rw      io.ReadWriter
	ctrlC   atomic.Bool
	plain   *bufio.Reader
	out     io.Writer
	history []string
}

// ctrlCWatcher notes a Ctrl-C byte in the raw input: x/term reports it as
// EOF, which would otherwise end the shell.
type ctrlCWatcher struct {
	r  io.Reader
	lr *lineReader
}

func (w ctrlCWatcher) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	for _, b := range p[:n] {
		if b == 3 {
			w.lr.ctrlC.Store(true)
		}
	}
	return n, err
}

func newLineReader(in io.Reader, out io.Writer) *lineReader {
	lr := &lineReader{out: out}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		lr.fd = int(f.Fd())
		lr.isTerm = true
		lr.rw = struct {
			io.Reader
			io.Writer
		}{ctrlCWatcher{f, lr}, out}
		lr.t = term.NewTerminal(lr.rw, "")
		return lr
	}
	lr.plain = bufio.NewReader(in)
	return lr
}

func (lr *lineReader) readLine(prompt string) (string, error) {
	if !lr.isTerm {
		io.WriteString(lr.out, prompt)
		line, err := lr.plain.ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		return strings.TrimSuffix(line, "\n"), nil
	}
	old, err := term.MakeRaw(lr.fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(lr.fd, old)
	if w, h, err := term.GetSize(lr.fd); err == nil && w > 0 && h > 0 {
		lr.t.SetSize(w, h)
	}
	lr.t.SetPrompt(prompt)
	lr.ctrlC.Store(false)
	line, err := lr.t.ReadLine()
	if err == io.EOF && lr.ctrlC.Load() {
		io.WriteString(lr.out, "^C\r\n")
		// x/term keeps the cancelled input and would read it again: start
		// a fresh editor that keeps the history.
		hist := lr.t.History
		lr.t = term.NewTerminal(lr.rw, "")
		lr.t.History = hist
		return "", errLineCancelled
	}
	return line, err
}

func (lr *lineReader) addHistory(s string) {
	lr.history = append(lr.history, s)
}

func (lr *lineReader) close() {}

// setStatus makes $? hold status, as after a command that ended so.
func (g *Runner) setStatus(ctx context.Context, status int) {
	f, err := syntax.NewParser().Parse(strings.NewReader(fmt.Sprintf("(exit %d)", status)), "")
	if err == nil && len(f.Stmts) == 1 {
		g.sh.traceQuiet.Add(1)
		g.r.Run(ctx, f.Stmts[0])
		g.sh.traceQuiet.Add(-1)
	}
}
