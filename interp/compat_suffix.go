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
// STATEMENT reads it as ${__guardsh_sfx_ID}, a variable MARK sets.

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
			if m := anchoredRepl(n, st.Pos()); m != nil {
				marks = append(marks, m)
				return false
			}
			if m := quoteTransform(n, st.Pos()); m != nil {
				marks = append(marks, m)
				return false
			}
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

// Anchored replacements, ${x/#PATTERN/REPL} and ${x/%PATTERN/REPL} (also
// on ${a[@]} and $@), are not anchored in mvdan: it looks for "#PATTERN"
// as text. guardsh computes them as it does ${x%PATTERN} above:
//
//	{ MARKREPL ID ANCHOR REPLPARTS... -- PATTERNPARTS... -- VALUES...; STATEMENT; }
//
// and the expansion reads ${__guardsh_sfx_ID} (or ${__guardsh_sfx_ID[@]}).

// replSep separates MARKREPL's argument groups; parts are prefixed with q
// or g, so none of them equals it.
const replSep = "--"

// anchoredRepl rewrites one anchored replacement; nil when it does not
// apply.
func anchoredRepl(n *syntax.ParamExp, pos syntax.Pos) *syntax.Stmt {
	if n.Repl == nil || n.Repl.All || n.Repl.Orig == nil || len(n.Repl.Orig.Parts) == 0 || n.Param == nil ||
		n.Excl || n.Length || n.Exp != nil || n.Slice != nil {
		return nil
	}
	first, ok := n.Repl.Orig.Parts[0].(*syntax.Lit)
	if !ok || first.Value == "" || first.Value[0] != '#' && first.Value[0] != '%' {
		return nil
	}
	name := n.Param.Value
	list, ok := listParam(n)
	if !ok {
		return nil
	}
	anchor := first.Value[:1]
	orig := &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: first.Value[1:]}}, n.Repl.Orig.Parts[1:]...)}
	pat, ok := suffixPatternArgs(orig)
	if !ok {
		return nil
	}
	var with []*syntax.Word
	if n.Repl.With != nil {
		if with, ok = suffixPatternArgs(n.Repl.With); !ok {
			return nil
		}
	}
	value := &syntax.ParamExp{Param: &syntax.Lit{Value: name}, Index: n.Index}
	id := strconv.FormatInt(suffixIDs.Add(1), 10)
	args := []*syntax.Word{litWord(id), litWord(anchor)}
	args = append(args, with...)
	args = append(args, litWord(replSep))
	args = append(args, pat...)
	args = append(args, litWord(replSep), &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{value}}}})
	n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: suffixVar + id}
	n.Repl = nil
	n.Short = false
	if list {
		n.Index = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}}
	}
	return markerStmt(markRepl, pos, args...)
}

// replaceAnchored computes MARKREPL: the arguments after ID.
func replaceAnchored(args []string) (vals []string, list bool) {
	if len(args) < 1 {
		return nil, false
	}
	anchor := args[0]
	rest := args[1:]
	var groups [3][]string
	g := 0
	for i, a := range rest {
		if a == replSep && g < 2 {
			g++
			if g == 2 {
				groups[2] = rest[i+1:]
				break
			}
			continue
		}
		groups[g] = append(groups[g], a)
	}
	var with strings.Builder
	for _, p := range groups[0] {
		if p == "" {
			continue
		}
		if p[0] == 'g' {
			with.WriteString(unescapeLit(p[1:]))
		} else {
			with.WriteString(p[1:])
		}
	}
	var pat strings.Builder
	for _, p := range groups[1] {
		if p == "" {
			continue
		}
		if p[0] == 'q' {
			pat.WriteString(pattern.QuoteMeta(p[1:], 0))
		} else {
			pat.WriteString(p[1:])
		}
	}
	expr, err := pattern.Regexp(pat.String(), 0)
	if err != nil {
		return groups[2], true
	}
	var rx *regexp.Regexp
	if anchor == "#" {
		rx, err = regexp.Compile(`(?s)^(` + expr + `)`)
	} else {
		rx, err = regexp.Compile(`(?s)(` + expr + `)$`)
	}
	if err != nil {
		return groups[2], true
	}
	out := make([]string, len(groups[2]))
	for i, v := range groups[2] {
		out[i] = v
		if anchor == "#" {
			if m := rx.FindStringIndex(v); m != nil {
				out[i] = with.String() + v[m[1]:]
			}
			continue
		}
		// the longest suffix: the leftmost start that matches to the end
		for s := 0; s <= len(v); s++ {
			if m := rx.FindStringIndex(v[s:]); m != nil && m[0] == 0 {
				out[i] = v[:s] + with.String()
				break
			}
		}
	}
	return out, true
}

// unescapeLit removes the backslashes of an unquoted literal.
func unescapeLit(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// listParam reports whether n's parameter expands to a list ($@, $*,
// ${a[@]}, ${a[*]}); ok is false for what the rewrites do not handle (a
// subscript other than @ or *, a name that is no parameter's).
func listParam(n *syntax.ParamExp) (list, ok bool) {
	name := n.Param.Value
	list = name == "@" || name == "*"
	if n.Index != nil {
		w, isWord := n.Index.(*syntax.Word)
		if !isWord || w.Lit() != "@" && w.Lit() != "*" || !isName(name) {
			return false, false
		}
		return true, true
	}
	return list, list || isName(name) || isDigits(name)
}

// quoteTransform rewrites one ${x@Q}; nil when it does not apply.
func quoteTransform(n *syntax.ParamExp, pos syntax.Pos) *syntax.Stmt {
	if n.Exp == nil || n.Exp.Op != syntax.OtherParamOps || n.Exp.Word == nil || n.Exp.Word.Lit() != "Q" ||
		n.Param == nil || n.Excl || n.Length || n.Repl != nil || n.Slice != nil {
		return nil
	}
	name := n.Param.Value
	list, ok := listParam(n)
	if !ok {
		return nil
	}
	value := &syntax.ParamExp{Param: &syntax.Lit{Value: name}, Index: n.Index}
	id := strconv.FormatInt(suffixIDs.Add(1), 10)
	m := markerStmt(markQuote, pos, litWord(id), &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{value}}}})
	n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: suffixVar + id}
	n.Exp = nil
	n.Short = false
	if list {
		n.Index = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}}
	}
	return m
}

// quoteValues quotes each value as bash's ${x@Q}: in single quotes, or
// as $'...' when it holds control characters.
func quoteValues(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			out[i] = ansiQuote(v)
		} else {
			out[i] = shellQuote(v)
		}
	}
	return out
}
