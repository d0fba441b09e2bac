package interp

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fixAssignValue makes the value of an assignment (x=..., and the ones of
// export, local, declare, readonly) expand as bash expands it. mvdan keeps
// the backslash of an unquoted escape in an assignment value (x=a\ b gives
// "a\ b", x='a'\”b' gives "a\'b"); bash removes it. Each unquoted "\X" in
// a literal part becomes the quoted character X. An unquoted "~" after ":"
// (x=a:~/b) becomes $HOME, as bash expands tildes after colons in
// assignments. It reports whether it changed the word.
func fixAssignValue(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	changed := false
	var parts []syntax.WordPart
	for i, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok || (!strings.Contains(lit.Value, `\`) && !strings.Contains(lit.Value, ":~")) {
			parts = append(parts, p)
			continue
		}
		last := i == len(w.Parts)-1
		split := splitAssignLit(lit, last)
		if split == nil {
			parts = append(parts, p)
			continue
		}
		parts = append(parts, split...)
		changed = true
	}
	if changed {
		w.Parts = parts
	}
	return changed
}

// splitAssignLit splits an unquoted literal of an assignment value into
// plain, quoted and $HOME parts; nil when there is nothing to change.
func splitAssignLit(lit *syntax.Lit, last bool) []syntax.WordPart {
	v := lit.Value
	var out []syntax.WordPart
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			out = append(out, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: plain.String()})
			plain.Reset()
		}
	}
	changed := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			flush()
			out = append(out, quotedChar(v[i+1], lit.ValuePos))
			i++
			changed = true
		case c == '~' && i > 0 && v[i-1] == ':' && (i+1 == len(v) && last || i+1 < len(v) && (v[i+1] == '/' || v[i+1] == ':')):
			flush()
			out = append(out, &syntax.DblQuoted{Left: lit.ValuePos, Right: lit.ValuePos, Parts: []syntax.WordPart{
				&syntax.ParamExp{Dollar: lit.ValuePos, Short: true, Param: &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValuePos, Value: "HOME"}},
			}})
			changed = true
		default:
			plain.WriteByte(c)
		}
	}
	if !changed {
		return nil
	}
	flush()
	return out
}

// quotedChar is the word part for the literal byte c: in single quotes, or
// for a single quote, in double quotes (which the printer can print back).
func quotedChar(c byte, pos syntax.Pos) syntax.WordPart {
	if c == '\'' {
		return &syntax.DblQuoted{Left: pos, Right: pos, Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: "'"}}}
	}
	return &syntax.SglQuoted{Left: pos, Right: pos, Value: string(c)}
}

// fixAssign applies fixAssignValue to an assignment's value and to the
// values of the elements of an array literal that name their index
// (a=([k]=v\ w)); elements without an index are fields, which mvdan
// expands as bash does.
func fixAssign(as *syntax.Assign) bool {
	changed := fixAssignValue(as.Value)
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil && fixAssignValue(el.Value) {
				changed = true
			}
		}
	}
	return changed
}

// splitQuotedAt splits the double-quoted parts of a word that hold "$@" or
// "${a[@]}" next to other text ("-$@-") into one double-quoted part per
// piece: mvdan joins the elements into one field when they share their
// quotes with text; bash glues the text to the first and last field only.
func splitQuotedAt(w *syntax.Word) bool {
	changed := false
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		dq, ok := p.(*syntax.DblQuoted)
		if !ok || len(dq.Parts) < 2 || !hasAtParam(dq.Parts) {
			parts = append(parts, p)
			continue
		}
		for _, inner := range dq.Parts {
			parts = append(parts, &syntax.DblQuoted{Left: dq.Left, Right: dq.Right, Dollar: dq.Dollar, Parts: []syntax.WordPart{inner}})
		}
		changed = true
	}
	if changed {
		w.Parts = parts
	}
	return changed
}

// hasAtParam reports whether parts hold $@, ${@...} or ${name[@]...}.
func hasAtParam(parts []syntax.WordPart) bool {
	for _, p := range parts {
		pe, ok := p.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Length || pe.Excl {
			continue
		}
		if pe.Param.Value == "@" {
			return true
		}
		if pe.Index != nil {
			if w, ok := pe.Index.(*syntax.Word); ok && w.Lit() == "@" {
				return true
			}
		}
	}
	return false
}

// fixElemAppend rewrites a[k]+=v, which mvdan does not append, to
// a[k]="${a[k]}"v; and a+=([k]=v ...), where every element names its
// index, to a[k]=v ... (bash's meaning for indexed and associative arrays
// alike). For a CallExpr's assignments; it reports whether it changed any.
func fixElemAppend(ce *syntax.CallExpr) bool {
	changed := false
	var out []*syntax.Assign
	for _, as := range ce.Assigns {
		if !as.Append || as.Name == nil {
			out = append(out, as)
			continue
		}
		if as.Index != nil && as.Value != nil && as.Array == nil {
			cur := &syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{Param: as.Name, Index: as.Index}}}
			as.Value = &syntax.Word{Parts: append([]syntax.WordPart{cur}, as.Value.Parts...)}
			as.Append = false
			out = append(out, as)
			changed = true
			continue
		}
		if as.Index == nil && as.Array != nil && len(as.Array.Elems) > 0 && allIndexed(as.Array.Elems) {
			for _, el := range as.Array.Elems {
				val := el.Value
				if val == nil {
					val = &syntax.Word{}
				}
				out = append(out, &syntax.Assign{Name: as.Name, Index: el.Index, Value: val})
			}
			changed = true
			continue
		}
		out = append(out, as)
	}
	if changed {
		ce.Assigns = out
	}
	return changed
}

func allIndexed(elems []*syntax.ArrayElem) bool {
	for _, el := range elems {
		if el.Index == nil {
			return false
		}
	}
	return true
}

// localInSubshells renames "local" to "declare" in the subshells and
// command substitutions of a function body: mvdan's subshell forgets that
// it runs in a function and refuses local there; in a subshell both only
// set the subshell's variable.
func localInSubshells(fd *syntax.FuncDecl) bool {
	changed := false
	var walk func(n syntax.Node, sub bool)
	walk = func(n syntax.Node, sub bool) {
		syntax.Walk(n, func(c syntax.Node) bool {
			if c == n {
				return true
			}
			switch c := c.(type) {
			case *syntax.FuncDecl:
				return false // its own body is walked when the rewrite reaches it
			case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
				if !sub {
					walk(c, true)
					return false
				}
			case *syntax.DeclClause:
				if sub && c.Variant != nil && c.Variant.Value == "local" {
					c.Variant.Value = "declare"
					changed = true
				}
			}
			return true
		})
	}
	walk(fd.Body, false)
	return changed
}
