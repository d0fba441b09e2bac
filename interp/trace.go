package interp

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

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
