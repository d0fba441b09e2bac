package interp

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/term"
	"mvdan.cc/sh/v3/interp"
)

// testBuiltin is bash's test and [ : the POSIX rules by argument count,
// bash's parser beyond four arguments, bash's statuses (2 for an error)
// and messages ("[: -gt: unary operator expected", "[: abc: integer
// expression expected"). mvdan's own returns 1 for some errors and words
// its messages as parse errors. File tests go through the FS hook.
func (g *Runner) testBuiltin(ctx context.Context, hc interp.HandlerContext, name string, args []string) int {
	if name == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			g.errf(hc, "[: missing `]'")
			return 2
		}
		args = args[:len(args)-1]
	}
	t := &tester{g: g, hc: hc, ctx: ctx, name: name}
	ok := t.eval(args)
	if t.err != "" {
		g.errf(hc, "%s: %s", name, t.err)
		return 2
	}
	if ok {
		return 0
	}
	return 1
}

type tester struct {
	g    *Runner
	hc   interp.HandlerContext
	ctx  context.Context
	name string
	err  string
}

func (t *tester) fail(format string, a ...any) bool {
	if t.err == "" {
		t.err = fmt.Sprintf(format, a...)
	}
	return false
}

// eval applies POSIX's rules by number of arguments, then bash's parser.
func (t *tester) eval(a []string) bool {
	switch len(a) {
	case 0:
		return false
	case 1:
		return a[0] != ""
	case 2:
		if a[0] == "!" {
			return !t.eval(a[1:])
		}
		if isUnaryTest(a[0]) {
			return t.unary(a[0], a[1])
		}
		return t.fail("%s: unary operator expected", a[0])
	case 3:
		if isBinaryTest(a[1]) {
			return t.binary(a[0], a[1], a[2])
		}
		if a[1] == "-a" || a[1] == "-o" {
			l, r := a[0] != "", a[2] != ""
			if a[1] == "-a" {
				return l && r
			}
			return l || r
		}
		if a[0] == "!" {
			return !t.eval(a[1:])
		}
		if a[0] == "(" && a[2] == ")" {
			return a[1] != ""
		}
		return t.fail("%s: binary operator expected", a[1])
	case 4:
		if a[0] == "!" {
			return !t.eval(a[1:])
		}
		if a[0] == "(" && a[3] == ")" {
			return t.eval(a[1:3])
		}
	}
	p := &testParser{t: t, args: a}
	v := p.or()
	if t.err == "" && p.pos < len(a) {
		return t.fail("too many arguments")
	}
	return v
}

// testParser is bash's recursive descent for longer expressions.
type testParser struct {
	t    *tester
	args []string
	pos  int
}

func (p *testParser) peek() string {
	if p.pos < len(p.args) {
		return p.args[p.pos]
	}
	return ""
}

func (p *testParser) or() bool {
	v := p.and()
	for p.pos < len(p.args) && p.peek() == "-o" {
		p.pos++
		r := p.and()
		v = v || r
	}
	return v
}

func (p *testParser) and() bool {
	v := p.not()
	for p.pos < len(p.args) && p.peek() == "-a" {
		p.pos++
		r := p.not()
		v = v && r
	}
	return v
}

func (p *testParser) not() bool {
	if p.peek() == "!" && p.pos+1 < len(p.args) {
		p.pos++
		return !p.not()
	}
	return p.primary()
}

func (p *testParser) primary() bool {
	t := p.t
	if p.pos >= len(p.args) {
		return t.fail("argument expected")
	}
	a := p.args[p.pos]
	if a == "(" {
		p.pos++
		v := p.or()
		if p.peek() != ")" {
			return t.fail("`)' expected")
		}
		p.pos++
		return v
	}
	if p.pos+2 < len(p.args) && isBinaryTest(p.args[p.pos+1]) {
		l, op, r := a, p.args[p.pos+1], p.args[p.pos+2]
		p.pos += 3
		return t.binary(l, op, r)
	}
	if isUnaryTest(a) && p.pos+1 < len(p.args) {
		arg := p.args[p.pos+1]
		p.pos += 2
		return t.unary(a, arg)
	}
	p.pos++
	return a != ""
}

func isUnaryTest(op string) bool {
	return len(op) == 2 && op[0] == '-' && strings.IndexByte("abcdefghknoprstuvwxzGLNOS", op[1]) >= 0
}

func isBinaryTest(op string) bool {
	switch op {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
		return true
	}
	return false
}

func (t *tester) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.hc.Dir, p)
}

// stat goes through the runner's FS hook (the jail) when there is one.
func (t *tester) stat(p string, follow bool) (fs.FileInfo, error) {
	if p == "" {
		return nil, os.ErrNotExist
	}
	if f := t.g.cfg.FS; f != nil {
		return f.Stat(t.ctx, t.path(p), follow)
	}
	if follow {
		return os.Stat(t.path(p))
	}
	return os.Lstat(t.path(p))
}

func (t *tester) unary(op, arg string) bool {
	switch op {
	case "-z":
		return arg == ""
	case "-n":
		return arg != ""
	case "-v":
		return t.hc.Env.Get(arg).IsSet()
	case "-o":
		return false // shell options are not visible to guardsh's builtins
	case "-t":
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil {
			return false
		}
		var w any
		switch n {
		case 0:
			w = t.hc.Stdin
		case 1:
			w = unwrapErr(t.hc.Stdout)
		case 2:
			w = unwrapErr(t.hc.Stderr)
		}
		f, ok := w.(*os.File)
		if !ok || f == nil {
			return false
		}
		fd := -1
		if sc, err := f.SyscallConn(); err == nil {
			sc.Control(func(d uintptr) { fd = int(d) })
		}
		return fd >= 0 && term.IsTerminal(fd)
	case "-h", "-L":
		fi, err := t.stat(arg, false)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0
	case "-r", "-w", "-x":
		if _, err := t.stat(arg, true); err != nil {
			return false
		}
		mode := uint32(4)
		if op == "-w" {
			mode = 2
		} else if op == "-x" {
			mode = 1
		}
		return syscall.Access(t.path(arg), mode) == nil
	}
	fi, err := t.stat(arg, true)
	if err != nil {
		return false
	}
	m := fi.Mode()
	switch op {
	case "-a", "-e":
		return true
	case "-f":
		return m.IsRegular()
	case "-d":
		return m.IsDir()
	case "-s":
		return fi.Size() > 0
	case "-b":
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0
	case "-c":
		return m&fs.ModeCharDevice != 0
	case "-p":
		return m&fs.ModeNamedPipe != 0
	case "-S":
		return m&fs.ModeSocket != 0
	case "-g":
		return m&fs.ModeSetgid != 0
	case "-u":
		return m&fs.ModeSetuid != 0
	case "-k":
		return m&fs.ModeSticky != 0
	case "-O", "-G":
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		if op == "-O" {
			return int(st.Uid) == os.Geteuid()
		}
		return int(st.Gid) == os.Getegid()
	case "-N":
		st, ok := fi.Sys().(*syscall.Stat_t)
		return ok && modifiedSinceRead(st)
	}
	return false
}

func (t *tester) binary(l, op, r string) bool {
	switch op {
	case "=", "==":
		return l == r
	case "!=":
		return l != r
	case "<":
		return l < r
	case ">":
		return l > r
	case "-nt", "-ot":
		lf, lerr := t.stat(l, true)
		rf, rerr := t.stat(r, true)
		if op == "-ot" {
			lf, lerr, rf, rerr = rf, rerr, lf, lerr
		}
		switch {
		case lerr != nil:
			return false
		case rerr != nil:
			return true
		}
		return lf.ModTime().After(rf.ModTime())
	case "-ef":
		lf, lerr := t.stat(l, true)
		rf, rerr := t.stat(r, true)
		return lerr == nil && rerr == nil && os.SameFile(lf, rf)
	}
	a, ok := testInt(l)
	if !ok {
		return t.fail("%s: integer expression expected", l)
	}
	b, ok := testInt(r)
	if !ok {
		return t.fail("%s: integer expression expected", r)
	}
	switch op {
	case "-eq":
		return a == b
	case "-ne":
		return a != b
	case "-lt":
		return a < b
	case "-le":
		return a <= b
	case "-gt":
		return a > b
	case "-ge":
		return a >= b
	}
	return false
}

// testInt parses test's integers: decimal, optional sign, blanks around.
func testInt(s string) (int64, bool) {
	for len(s) > 0 && isTestBlank(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isTestBlank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func isTestBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }
