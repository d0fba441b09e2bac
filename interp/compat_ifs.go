package interp

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Word splitting with an IFS that holds a non-blank character: bash keeps
// the empty fields such a character delimits (IFS=:; x=a::b gives "a" ""
// "b", and x=:a gives "" "a"); mvdan drops them. In a script that sets IFS
// so, each unquoted $name argument of a simple command and each $name in a
// for loop's list is split by guardsh:
//
//	{ MARKSPLIT ID "$name"; STATEMENT; }
//
// and the word reads "${__guardsh_sfx_ID[@]}". MARKSPLIT splits as bash
// does with the IFS of the moment and expands the fields that hold glob
// characters (unless set -f).

// setsNonBlankIFS reports whether a script assigns IFS a value with a
// character other than space, tab and newline, as a statement of its own
// or in a declaration (not as the prefix of one command: IFS=: read ...).
func setsNonBlankIFS(f *syntax.File) bool {
	found := false
	check := func(as *syntax.Assign) {
		if as.Name == nil || as.Name.Value != "IFS" || as.Value == nil {
			return
		}
		for _, p := range as.Value.Parts {
			var v string
			switch p := p.(type) {
			case *syntax.Lit:
				v = p.Value
			case *syntax.SglQuoted:
				v = p.Value
				if p.Dollar {
					v = strings.NewReplacer(`\t`, "", `\n`, "", `\r`, "").Replace(v)
				}
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					if l, ok := q.(*syntax.Lit); ok {
						v += l.Value
					}
				}
			default:
				found = true // computed: may be anything
				return
			}
			if strings.Trim(v, " \t\n\\") != "" {
				found = true
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, as := range n.Assigns {
					check(as)
				}
			}
		case *syntax.DeclClause:
			for _, as := range n.Args {
				check(as)
			}
		}
		return !found
	})
	return found
}

// splitWord reports whether w is an unquoted $name (or ${name}).
func splitWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil ||
		pe.Repl != nil || pe.Exp != nil || pe.Names != 0 || len(pe.Modifiers) > 0 || !isName(pe.Param.Value) {
		return "", false
	}
	return pe.Param.Value, true
}

// argWords are the words a statement expands as arguments: a simple
// command's (its name aside) or a for loop's list; ok is false for any
// other statement.
func argWords(st *syntax.Stmt) (words []*syntax.Word, ok bool) {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 1 {
			words = c.Args[1:]
		}
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			words = wi.Items
		}
	default:
		return nil, false
	}
	return words, true
}

// fixIFSSplit rewrites the words of one statement (see markSplit).
func fixIFSSplit(st *syntax.Stmt) bool {
	words, ok := argWords(st)
	if !ok {
		return false
	}
	var marks []*syntax.Stmt
	for _, w := range words {
		name, ok := splitWord(w)
		if !ok {
			continue
		}
		id := strconv.FormatInt(suffixIDs.Add(1), 10)
		value := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
			&syntax.ParamExp{Param: &syntax.Lit{Value: name}}}}}}
		marks = append(marks, markerStmt(markSplit, st.Pos(), litWord(id), value))
		w.Parts = []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{
			Param: &syntax.Lit{Value: suffixVar + id}, Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}}}}}}
	}
	if len(marks) == 0 {
		return false
	}
	inner := &syntax.Stmt{Position: st.Position, Cmd: st.Cmd, Redirs: st.Redirs}
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: append(marks, inner)}
	st.Redirs = nil
	return true
}

// ifsSplit splits s as bash's word splitting does with ifs.
func ifsSplit(s, ifs string) []string {
	isWS := func(c byte) bool { return (c == ' ' || c == '\t' || c == '\n') && strings.IndexByte(ifs, c) >= 0 }
	isIFS := func(c byte) bool { return strings.IndexByte(ifs, c) >= 0 }
	skipWS := func(s string) string {
		for s != "" && isWS(s[0]) {
			s = s[1:]
		}
		return s
	}
	s = skipWS(s)
	var out []string
	for s != "" {
		i := 0
		for i < len(s) && !isIFS(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = skipWS(s[i:])
		if s != "" && isIFS(s[0]) && !isWS(s[0]) {
			s = skipWS(s[1:])
		}
	}
	return out
}

// splitFields is MARKSPLIT's result: the fields of value, glob patterns
// among them expanded in dir.
func (g *Runner) splitFields(hc interp.HandlerContext, value string) []string {
	ifsVar := hc.Env.Get("IFS")
	ifs := " \t\n"
	if ifsVar.IsSet() {
		ifs = ifsVar.String()
	}
	if ifs == "" {
		if value == "" {
			return nil
		}
		return []string{value}
	}
	fields := ifsSplit(value, ifs)
	if g.bs.noglob.Load() {
		return fields
	}
	var out []string
	for _, f := range fields {
		if !strings.ContainsAny(f, "*?[") {
			out = append(out, f)
			continue
		}
		pat := f
		if !filepath.IsAbs(pat) {
			pat = filepath.Join(hc.Dir, pat)
		}
		matches, err := filepath.Glob(pat)
		var keep []string
		for _, m := range matches {
			if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(f), ".") {
				continue
			}
			if !filepath.IsAbs(f) {
				if rel, err := filepath.Rel(hc.Dir, m); err == nil {
					m = rel
				}
			}
			keep = append(keep, m)
		}
		if err != nil || len(keep) == 0 {
			out = append(out, f)
			continue
		}
		sort.Strings(keep)
		out = append(out, keep...)
	}
	return out
}

// An unquoted ${U:-"a b" c} (also -, :+, +): bash splits the unquoted
// parts of the word it uses and keeps its quoted parts whole; mvdan splits
// the whole result again. guardsh computes the fields:
//
//	{ MARKDEFAULT ID OP "${U+set}" "$U" PARTS...; STATEMENT; }
//
// with PARTS as for ${x%PATTERN} (q or g and the text), and the word reads
// "${__guardsh_sfx_ID[@]}".

// defaultWord reports whether w is such an expansion, and its parts.
func defaultWord(w *syntax.Word) (*syntax.ParamExp, bool) {
	if len(w.Parts) != 1 {
		return nil, false
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Exp == nil || pe.Param == nil || pe.Index != nil || pe.Excl || pe.Length || !isName(pe.Param.Value) || pe.Exp.Word == nil {
		return nil, false
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnsetOrNull, syntax.DefaultUnset, syntax.AlternateUnsetOrNull, syntax.AlternateUnset:
	default:
		return nil, false
	}
	for _, p := range pe.Exp.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return pe, true
		}
	}
	return nil, false
}

// defaultMark builds MARKDEFAULT for one word and makes the word read its
// result; nil when the word's parts are not handled.
func defaultMark(w *syntax.Word, pe *syntax.ParamExp, pos syntax.Pos) *syntax.Stmt {
	parts, ok := suffixPatternArgs(pe.Exp.Word)
	if !ok {
		return nil
	}
	name := pe.Param.Value
	id := strconv.FormatInt(suffixIDs.Add(1), 10)
	isSet := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: name}, Exp: &syntax.Expansion{Op: syntax.AlternateUnset, Word: litWord("set")}}}}}}
	value := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{Param: &syntax.Lit{Value: name}}}}}}
	args := append([]*syntax.Word{litWord(id), litWord(pe.Exp.Op.String()), isSet, value}, parts...)
	w.Parts = []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: suffixVar + id}, Index: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "@"}}}}}}}
	return markerStmt(markDefault, pos, args...)
}

// fixDefaultWords rewrites the ${U:-"a b" c} arguments of one statement.
func fixDefaultWords(st *syntax.Stmt) bool {
	words, ok := argWords(st)
	if !ok {
		return false
	}
	var marks []*syntax.Stmt
	for _, w := range words {
		if pe, ok := defaultWord(w); ok {
			if m := defaultMark(w, pe, st.Pos()); m != nil {
				marks = append(marks, m)
			}
		}
	}
	if len(marks) == 0 {
		return false
	}
	inner := &syntax.Stmt{Position: st.Position, Cmd: st.Cmd, Redirs: st.Redirs}
	st.Cmd = &syntax.Block{Lbrace: st.Pos(), Rbrace: st.End(), Stmts: append(marks, inner)}
	st.Redirs = nil
	return true
}

// defaultFields is MARKDEFAULT's result: args are OP SET VALUE PARTS...
func (g *Runner) defaultFields(hc interp.HandlerContext, args []string) []string {
	if len(args) < 3 {
		return nil
	}
	op, set, value, parts := args[0], args[1] == "set", args[2], args[3:]
	useWord := false
	switch op {
	case ":-":
		useWord = !set || value == ""
	case "-":
		useWord = !set
	case ":+":
		if !set || value == "" {
			return nil
		}
		useWord = true
	case "+":
		if !set {
			return nil
		}
		useWord = true
	}
	if !useWord {
		return g.splitFields(hc, value)
	}
	ifs := " \t\n"
	if v := hc.Env.Get("IFS"); v.IsSet() {
		ifs = v.String()
	}
	var fields []string
	var cur strings.Builder
	have := false
	end := func() {
		if have {
			fields = append(fields, cur.String())
		}
		cur.Reset()
		have = false
	}
	for _, p := range parts {
		if p == "" {
			continue
		}
		text := p[1:]
		if p[0] == 'q' {
			cur.WriteString(text)
			have = true
			continue
		}
		text = unescapeLit(text)
		for i := 0; i < len(text); i++ {
			if strings.IndexByte(ifs, text[i]) >= 0 {
				end()
				continue
			}
			cur.WriteByte(text[i])
			have = true
		}
	}
	end()
	return fields
}
