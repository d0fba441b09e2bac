package interp

import (
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// ${x%PATTERN} (the shortest suffix) is wrong in mvdan when the value holds
// a newline: its regexp's leading ".*" stops at the first newline, so
// r=$'a\nb\nc'; ${r%$'\n'*} gives "a" (bash: "a\nb"). git-sh-prompt splits
// git's output this way. For the patterns that name a newline, guardsh
// computes the expansion itself: the statement becomes
//
//	{ MARK ID "$x" PARTS...; STATEMENT; }
//
// where MARK removes the suffix and keeps the result, and the expansion in
// STATEMENT reads it as ${__guardsh_sfx_ID} (dynEnviron).

// markSuffix computes one such expansion: ID VALUE PART... where each PART
// is "q" + quoted text or "g" + pattern text.
const markSuffix = internalPrefix + "sfx"

// suffixVar prefixes the variables that read the results.
const suffixVar = "__guardsh_sfx_"

// suffixIDs numbers the rewritten expansions of the process.
var suffixIDs atomic.Int64

// fixSuffixNewline rewrites the ${x%PATTERN} expansions of a simple command
// or declaration whose pattern holds a newline; it reports whether it did.
func fixSuffixNewline(st *syntax.Stmt) bool {
	switch st.Cmd.(type) {
	case *syntax.CallExpr, *syntax.DeclClause:
	default:
		return false
	}
	var marks []*syntax.Stmt
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // their statements are rewritten on their own
		case *syntax.ParamExp:
			if n.Exp == nil || n.Exp.Op != syntax.RemSmallSuffix || n.Param == nil || n.Index != nil ||
				n.Excl || n.Length || !isName(n.Param.Value) && !isDigits(n.Param.Value) || !patternHasNewline(n.Exp.Word) {
				return true
			}
			args, ok := suffixPatternArgs(n.Exp.Word)
			if !ok {
				return true
			}
			id := strconv.FormatInt(suffixIDs.Add(1), 10)
			value := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
				&syntax.ParamExp{Param: &syntax.Lit{Value: n.Param.Value}}}}}}
			marks = append(marks, markerStmt(markSuffix, st.Pos(), append([]*syntax.Word{litWord(id), value}, args...)...))
			n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: suffixVar + id}
			n.Exp = nil
			n.Short = false
			return false
		}
		return true
	})
	if len(marks) == 0 {
		return false
	}
	inner := &syntax.Stmt{Position: st.Position, Cmd: st.Cmd, Redirs: st.Redirs}
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: append(marks, inner)}
	st.Redirs = nil
	return true
}

// patternHasNewline reports whether a pattern word names a newline.
func patternHasNewline(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit:
			found = found || strings.Contains(n.Value, "\n")
		case *syntax.SglQuoted:
			found = found || strings.Contains(n.Value, "\n") || n.Dollar && strings.Contains(n.Value, `\n`)
		}
		return !found
	})
	return found
}

// suffixPatternArgs turns a pattern word into MARK's PART arguments; ok is
// false for parts it does not handle.
func suffixPatternArgs(w *syntax.Word) ([]*syntax.Word, bool) {
	var out []*syntax.Word
	prefixed := func(prefix string, part syntax.WordPart) *syntax.Word {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: prefix}, part}}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			out = append(out, litWord("g"+p.Value))
		case *syntax.SglQuoted:
			out = append(out, prefixed("q", p))
		case *syntax.DblQuoted:
			out = append(out, prefixed("q", p))
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			// unquoted expansions in a pattern are pattern text
			out = append(out, prefixed("g", &syntax.DblQuoted{Parts: []syntax.WordPart{p}}))
		default:
			return nil, false
		}
	}
	return out, true
}

// removeShortSuffix is ${value%pat}: the shortest suffix matching pat.
func removeShortSuffix(value string, parts []string) string {
	var pat strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if p[0] == 'q' {
			pat.WriteString(pattern.QuoteMeta(p[1:], 0))
		} else {
			pat.WriteString(p[1:])
		}
	}
	expr, err := pattern.Regexp(pat.String(), pattern.Shortest)
	if err != nil {
		return value
	}
	rx, err := regexp.Compile(`(?s)^(.*)(` + expr + `)$`)
	if err != nil {
		return value
	}
	if m := rx.FindStringSubmatchIndex(value); m != nil {
		return value[:m[3]]
	}
	return value
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
