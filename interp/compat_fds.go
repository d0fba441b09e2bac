package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// File descriptors 3 to 9. mvdan's interpreter has only 0, 1 and 2, so
// guardsh keeps its own table: "exec N>FILE", "exec N<FILE", "exec N>&M"
// and "exec N>&-" open, duplicate and close its entries, and a redirection
// to one (">&N", "2>&N", "<&N") gets a duplicate of the entry from the
// open handler, as dup2 would. "read -u N" reads the entry itself. An fd given to a single command ("cmd 3>file") is still
// unsupported.

// fdPathPrefix starts the "path" a redirection to fd N gets (N_LINE
// follows): the open handler answers it with a duplicate of the table's
// file. No file can have this name.
const fdPathPrefix = "/dev/guardsh-fd/"

type fdTable struct {
	last  atomic.Int64 // the fd "exec {name}>..." opened last
	mu    sync.Mutex
	fds   map[int]*os.File
	saved []savedFd
}

// clone returns a table of duplicates of t's files, as a child process
// inherits its parent's descriptors (an empty table for a nil t).
func (t *fdTable) clone() *fdTable {
	c := &fdTable{}
	if t == nil {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for n, f := range t.fds {
		if d, err := dupFd(f); err == nil {
			if c.fds == nil {
				c.fds = map[int]*os.File{}
			}
			c.fds[n] = d
		}
	}
	c.last.Store(t.last.Load())
	return c
}

// closeAll closes every file of the table, as a process's descriptors
// close when it exits.
func (t *fdTable) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n, f := range t.fds {
		f.Close()
		delete(t.fds, n)
	}
	for _, s := range t.saved {
		if s.f != nil {
			s.f.Close()
		}
	}
	t.saved = nil
}

func (t *fdTable) get(n int) *os.File {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fds[n]
}

func (t *fdTable) set(n int, f *os.File) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fds == nil {
		t.fds = map[int]*os.File{}
	}
	if old := t.fds[n]; old != nil {
		old.Close()
	}
	if f == nil {
		delete(t.fds, n)
		return
	}
	t.fds[n] = f
}

// maxFd is the highest file descriptor number guardsh's table takes.
const maxFd = 1023

// highFd reports whether a word is a literal fd number from 3 to maxFd.
func highFd(w *syntax.Word) (int, bool) {
	if w == nil {
		return 0, false
	}
	return highFdText(w.Lit())
}

// highFdText reports whether s is an fd number from 3 to maxFd.
func highFdText(s string) (int, bool) {
	if s == "" || len(s) > 4 || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 3 || n > maxFd {
		return 0, false
	}
	return n, true
}

// namedFd reports whether a redirection's N is "{name}" (exec {fd}>file:
// bash picks a free fd from 10 on and sets name to it).
func namedFd(rd *syntax.Redirect) (string, bool) {
	if rd.N == nil || len(rd.N.Value) < 3 || rd.N.Value[0] != '{' || rd.N.Value[len(rd.N.Value)-1] != '}' {
		return "", false
	}
	name := rd.N.Value[1 : len(rd.N.Value)-1]
	return name, isName(name) && !strings.Contains(name, "[")
}

// dynamicFdWord is the word of ">&$fd": the fd path with the expansion in
// it, answered by the open handler as the literal form is.
func dynamicFdWord(rd *syntax.Redirect) *syntax.Word {
	parts := []syntax.WordPart{&syntax.Lit{Value: fdPathPrefix}}
	parts = append(parts, rd.Word.Parts...)
	parts = append(parts, &syntax.Lit{Value: "_" + strconv.Itoa(int(rd.OpPos.Line()))})
	return &syntax.Word{Parts: parts}
}

// rewriteFds rewrites a statement's redirections that use fds 3 to 9.
func rewriteFds(st *syntax.Stmt) bool {
	changed := false
	// ">&N", "<&N" to an fd of the table: a redirection to its file.
	for _, rd := range st.Redirs {
		if rd.Op != syntax.DplOut && rd.Op != syntax.DplIn {
			continue
		}
		n, ok := highFd(rd.Word)
		if !ok {
			if rd.Word != nil && rd.Word.Lit() == "" && len(rd.Word.Parts) > 0 {
				// ">&$fd": which fd is known when it runs
				if rd.Op == syntax.DplOut {
					rd.Op = syntax.AppOut
				} else {
					rd.Op = syntax.RdrIn
				}
				rd.Word = dynamicFdWord(rd)
				changed = true
			}
			continue
		}
		if rd.Op == syntax.DplOut {
			rd.Op = syntax.AppOut
		} else {
			rd.Op = syntax.RdrIn
		}
		rd.Word = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{
			Value: fdPathPrefix + strconv.Itoa(n) + "_" + strconv.Itoa(int(rd.OpPos.Line()))}}}
		changed = true
	}
	// "exec N>FILE ...": the table's entries, in order with the others.
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 1 || ce.Args[0].Lit() != "exec" || len(ce.Assigns) > 0 {
		if scopedFds(st) {
			changed = true
		}
		return changed
	}
	high := false
	for _, rd := range st.Redirs {
		if isHighN(rd) {
			high = true
		}
	}
	if !high {
		return changed
	}
	var stmts []*syntax.Stmt
	for _, rd := range st.Redirs {
		if !isHighN(rd) {
			stmts = append(stmts, &syntax.Stmt{Position: st.Position, Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord("exec")}}, Redirs: []*syntax.Redirect{rd}})
			continue
		}
		word := rd.Word
		if word == nil {
			word = litWord("")
		}
		if name, ok := namedFd(rd); ok {
			if (rd.Op == syntax.DplOut || rd.Op == syntax.DplIn) && word.Lit() == "-" {
				// exec {fd}>&-: close the fd the variable holds
				stmts = append(stmts, markerStmt(markFd, st.Pos(), paramWord(name), litWord(rd.Op.String()), word))
				continue
			}
			stmts = append(stmts, markerStmt(markFd, st.Pos(), litWord("{}"), litWord(rd.Op.String()), word),
				&syntax.Stmt{Position: st.Position, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{{
					Name: &syntax.Lit{Value: name}, Value: paramWord(fdLastVar)}}}})
			continue
		}
		stmts = append(stmts, markerStmt(markFd, st.Pos(), litWord(rd.N.Value), litWord(rd.Op.String()), word))
	}
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: stmts}
	st.Redirs = nil
	return true
}

// fdBuiltin runs markFd: N OP WORD.
func (g *Runner) fdBuiltin(ctx context.Context, hc interp.HandlerContext, args []string) int {
	if len(args) != 3 {
		return 2
	}
	op, word := args[1], args[2]
	n, err := strconv.Atoi(args[0])
	switch {
	case args[0] == "{}":
		n = g.fds.free()
		g.fds.last.Store(int64(n))
	case err != nil || n < 0 || n > maxFd:
		g.errf(hc, "%s: ambiguous redirect", args[0])
		return 1
	}
	switch op {
	case "<<<":
		// a here-string on fd N: a pipe that holds the word and a newline
		r, w, err := os.Pipe()
		if err != nil {
			g.errf(hc, "%s", err)
			return 1
		}
		go func() {
			io.WriteString(w, word+"\n")
			w.Close()
		}()
		g.fds.set(n, r)
		return 0
	}
	switch op {
	case ">&", "<&":
		if word == "-" {
			g.fds.set(n, nil)
			return 0
		}
		m, err := strconv.Atoi(word)
		if err != nil || m < 0 || m > maxFd {
			g.errf(hc, "%s: ambiguous redirect", word)
			return 1
		}
		var src *os.File
		switch m {
		case 0:
			src, _ = hc.Stdin.(*os.File)
		case 1:
			src, _ = unwrapErr(hc.Stdout).(*os.File)
		case 2:
			src, _ = unwrapErr(hc.Stderr).(*os.File)
		default:
			src = g.fds.get(m)
		}
		if src == nil {
			g.errf(hc, "%d: Bad file descriptor", m)
			return 1
		}
		f, err := dupFd(src)
		if err != nil {
			g.errf(hc, "%d: %s", m, errnoText(err))
			return 1
		}
		g.fds.set(n, f)
		return 0
	}
	flag := os.O_RDONLY
	switch op {
	case ">", ">|":
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case ">>":
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	case "<>":
		flag = os.O_RDWR | os.O_CREATE
	case "<":
	default:
		g.errf(hc, "%s: unsupported redirection for fd %d", op, n)
		return 1
	}
	path := word
	if !filepath.IsAbs(path) {
		path = filepath.Join(hc.Dir, path)
	}
	if err := g.dryRunWrite(ctx, path, flag); err != nil {
		fmt.Fprintln(hc.Stderr, err)
		return 1
	}
	if flag&os.O_TRUNC != 0 && g.cfg.Advisor != nil {
		// truncating an existing file: the advisor rates it (advisor_source.go)
		if err := g.adviseTruncate(ctx, word); err != nil {
			fmt.Fprintln(hc.Stderr, err)
			return 1
		}
	}
	var f *os.File
	if fsys := g.cfg.FS; fsys != nil {
		rwc, err := fsys.Open(ctx, path, flag, 0o666)
		if err != nil {
			g.errf(hc, "%s", openErrText(word, err))
			return 1
		}
		file, ok := rwc.(*os.File)
		if !ok {
			rwc.Close()
			g.errf(hc, "%s: cannot use as file descriptor %d", word, n)
			return 1
		}
		f = file
	} else {
		file, err := os.OpenFile(path, flag, 0o666)
		if err != nil {
			g.errf(hc, "%s", openErrText(word, err))
			return 1
		}
		f = file
	}
	g.fds.set(n, f)
	return 0
}

// openErrText words a failed open as bash: "FILE: Permission denied"; the
// jail's refusals pass as they are.
func openErrText(word string, err error) string {
	var pe *os.PathError
	var en syscall.Errno
	if errors.As(err, &pe) && errors.As(pe.Err, &en) {
		return fmt.Sprintf("%s: %s", word, errnoText(en))
	}
	return err.Error()
}

func dupFd(f *os.File) (*os.File, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var derr error
	if cerr := sc.Control(func(fd uintptr) { nfd, derr = syscall.Dup(int(fd)) }); cerr != nil {
		return nil, cerr
	}
	if derr != nil {
		return nil, derr
	}
	syscall.CloseOnExec(nfd)
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

// fdReader is the reader of "read -u N".
func (g *Runner) fdReader(n int) io.Reader {
	if f := g.fds.get(n); f != nil {
		return f
	}
	return nil
}

func isHighN(rd *syntax.Redirect) bool {
	if rd.N == nil {
		return false
	}
	if _, ok := namedFd(rd); ok {
		return true
	}
	_, ok := highFdText(rd.N.Value)
	return ok
}

// free returns the lowest fd number from 10 on that the table does not
// hold.
func (t *fdTable) free() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n := 10; ; n++ {
		if t.fds[n] == nil {
			return n
		}
	}
}

// scopedFds gives fds 3 to 9 to one command ("{ ...; } 3>&1 1>&2 2>&3",
// "cmd 2>&3 3>file"): the redirections before the first such one stay on
// the statement, then the table entry is set (its old value saved), the
// rest runs with the remaining redirections, and the entry is restored.
// The command's own child processes do not get the fd.
func scopedFds(st *syntax.Stmt) bool {
	if st.Background || st.Disown || st.Cmd == nil {
		return false
	}
	i := -1
	for k, rd := range st.Redirs {
		if isHighN(rd) {
			i = k
			break
		}
	}
	if i < 0 {
		return false
	}
	rd := st.Redirs[i]
	rest := &syntax.Stmt{Position: st.Position, Cmd: st.Cmd, Negated: st.Negated, Redirs: st.Redirs[i+1:]}
	scopedFds(rest)
	word := rd.Word
	if word == nil {
		word = litWord("")
	}
	n := litWord(rd.N.Value)
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: []*syntax.Stmt{
		markerStmt(markFdSave, st.Pos(), n),
		markerStmt(markFd, st.Pos(), litWord(rd.N.Value), litWord(rd.Op.String()), word),
		rest,
		markerStmt(markFdRestore, st.End(), litWord(rd.N.Value), paramWord("?")),
	}}
	st.Negated = false
	st.Redirs = st.Redirs[:i]
	return true
}

// save keeps the entry of fd n aside (a duplicate) for restore.
func (t *fdTable) save(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var d *os.File
	if f := t.fds[n]; f != nil {
		d, _ = dupFd(f)
	}
	t.saved = append(t.saved, savedFd{n, d})
}

// restore puts back the entry saved last for fd n.
func (t *fdTable) restore(n int) {
	t.mu.Lock()
	var s *savedFd
	for i := len(t.saved) - 1; i >= 0; i-- {
		if t.saved[i].n == n {
			s = &t.saved[i]
			t.saved = append(t.saved[:i:i], t.saved[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	if s != nil {
		t.set(n, s.f)
	}
}

type savedFd struct {
	n int
	f *os.File
}

// stdStream is a standard stream of the command as the target of a
// redirection to its number (">&$fd" with fd=2); closing it leaves the
// stream open.
type stdStream struct {
	r io.Reader
	w io.Writer
}

func (s stdStream) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, syscall.EBADF
	}
	return s.r.Read(p)
}

func (s stdStream) Write(p []byte) (int, error) {
	if s.w == nil {
		return 0, syscall.EBADF
	}
	return s.w.Write(p)
}

func (stdStream) Close() error { return nil }
