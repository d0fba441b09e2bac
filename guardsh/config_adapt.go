package guardsh

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// exampleArgv splits a rule example ("make test V=1") into the argv the
// runner would see: one simple command, quotes removed, no expansions
// beyond literals.
func exampleArgv(s string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("want exactly one simple command")
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || f.Stmts[0].Negated || f.Stmts[0].Background {
		return nil, fmt.Errorf("want exactly one simple command")
	}
	var argv []string
	for _, w := range call.Args {
		if w.Lit() == "" {
			for _, p := range w.Parts {
				switch p.(type) {
				case *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
				default:
					return nil, fmt.Errorf("word %q: examples may only contain literal words", wordString(w))
				}
			}
		}
		s, err := expand.Literal(nil, w)
		if err != nil {
			return nil, err
		}
		argv = append(argv, s)
	}
	return argv, nil
}

func wordString(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// ruleMatches reports whether a configured rule matches argv the way the
// engine applies configured rules (Policy.applyRules): on the normalised
// argv or the basic one (program by its name, leading assignments
// dropped).
func ruleMatches(r Rule, argv []string) bool {
	return r.matchArgs(NormalizeArgv(argv)) || r.matchArgs(basicArgv(argv))
}
