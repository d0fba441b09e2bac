package interp

import (
	"strings"
	"sync"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/syntax"
)

// globSources remembers, for every simple command whose words hold an
// unquoted glob, the command as written. The CallHandler only sees argv
// after expansion: "rm -rf *" in a project with two entries arrives as
// "rm -rf go.mod src", which looks like an ordinary delete inside the
// project. With the source the policy judges the bare glob too.
//
// It also remembers the simple commands whose name is written with a
// backslash (\trm, r\m): the CallHandler sees the name after quote
// removal, the policy wants to know it was escaped
// (guardsh.Command.NameEscaped).
type globSources struct {
	m       sync.Map // syntax.Pos of the CallExpr -> string
	escaped sync.Map // syntax.Pos of the CallExpr -> the name after quote removal
}

// note records the glob commands of a parsed script.
func (s *globSources) note(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if ok && len(ce.Args) > 0 && guardsh.WordEscaped(ce.Args[0]) {
			// "" when the name holds an expansion (\fro${e}bnicate): any
			// name the command at that position gets is escaped
			s.escaped.Store(ce.Pos(), unescapedName(ce.Args[0]))
		}
		if !ok || len(ce.Args) < 2 {
			return true
		}
		for _, w := range ce.Args[1:] {
			if hasUnquotedGlob(w) {
				var b strings.Builder
				if err := syntax.NewPrinter().Print(&b, ce); err == nil {
					s.m.Store(ce.Pos(), b.String())
				}
				break
			}
		}
		return true
	})
}

// lookup returns the source of the glob command at pos whose first word
// is name, or "".
func (s *globSources) lookup(pos syntax.Pos, name string) string {
	if !pos.IsValid() {
		return ""
	}
	v, ok := s.m.Load(pos)
	if !ok {
		return ""
	}
	src := v.(string)
	if first, _, _ := strings.Cut(src, " "); first != name {
		return "" // another script's command at the same position
	}
	return src
}

// nameEscaped reports whether the command at pos whose name is name (after
// quote removal) was written with a backslash in its name (one whose name
// holds an expansion: whatever name it expands to).
func (s *globSources) nameEscaped(pos syntax.Pos, name string) bool {
	if !pos.IsValid() {
		return false
	}
	v, ok := s.escaped.Load(pos)
	return ok && (v.(string) == name || v.(string) == "")
}

// unescapedName is a command name word after quote removal, for literal
// parts only ("" when it holds an expansion).
func unescapedName(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
				}
				b.WriteByte(v[i])
			}
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\$`, `$`, "\\`", "`").Replace(lit.Value))
			}
		default:
			return ""
		}
	}
	return b.String()
}

// hasUnquotedGlob reports whether a word has *, ? or [ outside quotes.
func hasUnquotedGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") {
			return true
		}
	}
	return false
}
