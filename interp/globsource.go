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
	// syntax.Pos of the CallExpr -> its other words written with a
	// backslash, after quote removal (guardsh.Command.EscapedWords)
	escapedWords sync.Map
}

// note records the glob commands of a parsed script.
func (s *globSources) note(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if ok && len(ce.Args) > 0 && guardsh.WordEscaped(ce.Args[0]) {
			// "" when the name holds an expansion (\fro${e}bnicate): any
			// name the command at that position gets is escaped
			s.escaped.Store(ce.Pos(), guardsh.UnescapedWord(ce.Args[0]))
		}
		if ok && len(ce.Args) > 1 {
			// the other words written with a backslash: the name of a
			// command a wrapper runs (command \frobnicate)
			if words := guardsh.EscapedWords(ce.Args[1:]); words != nil {
				s.escapedWords.Store(ce.Pos(), words)
			}
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

// wordsEscaped returns the words after the name of the command at pos
// that were written with a backslash (guardsh.EscapedWords).
func (s *globSources) wordsEscaped(pos syntax.Pos) []string {
	if !pos.IsValid() {
		return nil
	}
	v, _ := s.escapedWords.Load(pos)
	words, _ := v.([]string)
	return words
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

// hasUnquotedGlob reports whether a word has *, ? or [ outside quotes.
func hasUnquotedGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") {
			return true
		}
	}
	return false
}
