package interp

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// globSources remembers, for every simple command whose words hold an
// unquoted glob, the command as written. The CallHandler only sees argv
// after expansion: "rm -rf *" in a project with two entries arrives as
// "rm -rf go.mod src", which looks like an ordinary delete inside the
// project. With the source the policy judges the bare glob too.
type globSources struct {
	m sync.Map // syntax.Pos of the CallExpr -> string
}

// note records the glob commands of a parsed script.
func (s *globSources) note(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
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

// hasUnquotedGlob reports whether a word has *, ? or [ outside quotes.
func hasUnquotedGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") {
			return true
		}
	}
	return false
}
