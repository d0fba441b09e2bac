package interp

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/syntax"
)

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

// parsePrefix parses the complete statements of a script that does not
// parse as a whole, up to the one with the error. It returns nil if there
// are none, and the offset where they end.
func (g *Runner) parsePrefix(data []byte, name string) (*syntax.File, int) {
	var stmts []*syntax.Stmt
	failed := false
	for st, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(bytes.NewReader(data)) {
		// never break: mvdan's sequence may yield again after an error,
		// and a range loop that stopped then panics (FuzzRunner found
		// "\"\"&0\xa9")
		if failed || err != nil {
			failed = true
			continue
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
