package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// openSourced opens the file a "source NAME" names, as bash finds it (a
// name without a slash on PATH first, then in the current directory),
// through open (the policy's), and returns the script rewritten. A file
// that does not parse is returned as it is, for mvdan to report.
func (g *Runner) openSourced(ctx context.Context, open interp.OpenHandlerFunc, name string) (io.ReadWriteCloser, error) {
	path := name
	if !strings.Contains(name, "/") {
		hc := interp.HandlerCtx(ctx)
		for _, dir := range filepath.SplitList(hc.Env.Get("PATH").String()) {
			if dir == "" {
				continue
			}
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				path = p
				break
			}
		}
	}
	f, err := open(ctx, path, os.O_RDONLY, 0)
	var pe *os.PathError
	var en syscall.Errno
	if err != nil && errors.As(err, &pe) && pe.Op == "open" && errors.As(pe.Err, &en) {
		line := max(g.lastLine.Load(), 1)
		return nil, &os.PathError{Op: fmt.Sprintf("%s: line %d:", g.name, line), Path: name, Err: errors.New(errnoText(en))}
	}
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	file, perr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), name)
	for tries := 0; perr != nil && tries < 16; tries++ {
		fixed, ok := zshFlagsFix(data, perr)
		if !ok {
			break
		}
		data = fixed
		file, perr = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), name)
	}
	if perr != nil {
		// reported by guardsh with the file's own name (mvdan would name
		// the marked path)
		var pe syntax.ParseError
		var le syntax.LangError
		switch {
		case errors.As(perr, &pe):
			return nil, fmt.Errorf("%s: line %d: syntax error: %s", name, pe.Pos.Line(), pe.Text)
		case errors.As(perr, &le):
			return nil, fmt.Errorf("%s: line %d: syntax error: %s", name, le.Pos.Line(), strings.TrimPrefix(le.Error(), le.Pos.String()+": "))
		}
		return nil, perr
	}
	if g.rewrite(file) {
		if text, ok := printForReparse(file); ok {
			data = []byte(text)
		}
	}
	return readOnly{bytes.NewReader(data)}, nil
}

// readOnly is a file read from memory.
type readOnly struct{ *bytes.Reader }

func (readOnly) Write([]byte) (int, error) { return 0, os.ErrPermission }
func (readOnly) Close() error              { return nil }

// printForReparse prints a rewritten script for mvdan to parse again, its
// internal names spelt with reparseToken (call maps them back).
func printForReparse(f *syntax.File) (string, bool) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit:
			n.Value = strings.ReplaceAll(n.Value, internalPrefix, reparseToken)
		case *syntax.SglQuoted:
			n.Value = strings.ReplaceAll(n.Value, internalPrefix, reparseToken)
		}
		return true
	})
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "", false
	}
	return b.String(), true
}

// unmaskInternal maps the internal names of reparsed code back.
func unmaskInternal(args []string) {
	for i, a := range args {
		if strings.HasPrefix(a, reparseToken) {
			args[i] = internalPrefix + a[len(reparseToken):]
		}
	}
}

// zshFlagsFix replaces, where a parse error says so, a zsh parameter
// expansion with flags (${(M)...}) by one that fails as bash's "bad
// substitution" when it runs: bash parses such text in the zsh branch of
// a script (bash-completion's git completion) and never runs it; mvdan's
// parser refuses the whole file.
func zshFlagsFix(data []byte, err error) ([]byte, bool) {
	var le syntax.LangError
	if !errors.As(err, &le) || !strings.Contains(le.Feature, "parameter expansion flags") {
		return nil, false
	}
	off := int(le.Pos.Offset())
	start := bytes.LastIndex(data[:min(off+3, len(data))], []byte("${("))
	if start < 0 || off-start > 8 {
		return nil, false
	}
	depth := 0
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				repl := []byte("${__guardsh_zsh_expansion:?bad substitution}")
				out := append(append(append([]byte{}, data[:start]...), repl...), data[i+1:]...)
				return out, true
			}
		case '\n':
			return nil, false
		}
	}
	return nil, false
}
