package interp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// maxSourceScan bounds how much of a sourced file is read for the names of
// the functions it defines.
const maxSourceScan = 4 << 20

// noteSourcedFunctions records the functions that "source FILE", ". FILE"
// or "eval STRING..." will define, before it runs (mvdan's interpreter
// parses them itself, past guardsh's rewriting, which notes the functions
// of the scripts guardsh parses): a call of one of them is then a function
// call (guardsh.Command.Function), judged by its body's commands as they
// run, wherever the function was defined. Nested sourcing is seen when the
// inner source command runs.
func (g *Runner) noteSourcedFunctions(ctx context.Context, hc interp.HandlerContext, args []string) {
	var src []byte
	switch args[0] {
	case "eval":
		src = []byte(strings.Join(args[1:], " "))
	case "source", ".":
		if len(args) < 2 {
			return
		}
		src = g.readSourced(ctx, hc, args[1])
	default:
		return
	}
	if len(src) == 0 || !strings.Contains(string(src), "(") && !strings.Contains(string(src), "function") {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(string(src)), "")
	if err != nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			g.sh.noteFunction(fd.Name.Value)
		}
		return true
	})
}

// readSourced reads the file source would read: name as a path when it has
// a slash, else the first match on PATH, else in the working directory (as
// bash does outside POSIX mode), through the session's file access hook
// (the path jail). Only regular files, never blocking on a FIFO; nil when
// there is none or the jail refuses it.
func (g *Runner) readSourced(ctx context.Context, hc interp.HandlerContext, name string) []byte {
	var cands []string
	if strings.Contains(name, "/") {
		cands = []string{name}
	} else {
		for _, d := range filepath.SplitList(hc.Env.Get("PATH").String()) {
			if d != "" {
				cands = append(cands, filepath.Join(d, name))
			}
		}
		cands = append(cands, name)
	}
	for _, c := range cands {
		if !filepath.IsAbs(c) {
			c = filepath.Join(hc.Dir, c)
		}
		if g.cfg.FS != nil {
			if fi, err := g.cfg.FS.Stat(ctx, c, true); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			f, err := g.cfg.FS.Open(ctx, c, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(f, maxSourceScan))
			f.Close()
			return b
		}
		f, err := os.OpenFile(c, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, maxSourceScan))
		f.Close()
		return b
	}
	return nil
}
