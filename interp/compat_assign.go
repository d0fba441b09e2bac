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
