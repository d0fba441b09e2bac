package guardsh

import (
	"fmt"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// The static checker's budget. Every check (the hook, --check, --explain,
// the code of sh -c and eval inside them) shares one budget; a script that
// exceeds it is denied with idTooLarge, in every mode: the checker never
// answers for text it did not read to the end, and never takes longer than
// the agent's hook timeout.
const (
	// maxCheckInput bounds the bytes of one script.
	maxCheckInput = 1 << 20
	// maxCheckNest bounds syntactic nesting: substitutions, subshells,
	// blocks, loops and conditionals inside each other.
	maxCheckNest = 100
	// maxScanNest bounds the brackets nested in the text, before parsing.
	maxScanNest = 4000
	// maxSteps bounds the statements one check visits (loops over static
	// lists and function calls are walked again for each item or call).
	maxSteps = 100000
	// maxCheckWork bounds expansions: words expanded, substitutions
	// walked, code nested in variables re-read.
	maxCheckWork = 2000000
	// checkTimeLimit is the hard wall-time limit of one check.
	checkTimeLimit = 3 * time.Second
)

// checkBudget is the work one check may still do.
type checkBudget struct {
	deadline time.Time
	steps    int
	work     int
	over     string // why the budget ran out; "" while it has not
	reported bool   // the deny is in the command list
}

func newBudget() *checkBudget {
	return &checkBudget{deadline: time.Now().Add(checkTimeLimit)}
}

// spend counts n units of work and reports whether the check may go on.
func (b *checkBudget) spend(n int) bool {
	if b.over != "" {
		return false
	}
	b.work += n
	if b.work > maxCheckWork {
		b.over = fmt.Sprintf("more than %d expansions", maxCheckWork)
		return false
	}
	if b.work&0xff < n || n > 0xff {
		if time.Now().After(b.deadline) {
			b.over = fmt.Sprintf("checking it took longer than %v", checkTimeLimit)
			return false
		}
	}
	return true
}

// step counts one statement.
func (b *checkBudget) step() bool {
	if b.over != "" {
		return false
	}
	b.steps++
	if b.steps > maxSteps {
		b.over = fmt.Sprintf("more than %d statements", maxSteps)
		return false
	}
	return b.spend(1)
}

// precheck refuses a script that is too large or too deeply nested before
// any of it is expanded.
func (b *checkBudget) precheck(src string) bool {
	if len(src) > maxCheckInput {
		b.over = fmt.Sprintf("%d bytes, more than %d", len(src), maxCheckInput)
		return false
	}
	// The parser recurses once per level: bound the nesting before it
	// runs (brackets counted in quotes and comments too, so this may only
	// overestimate; the limit is well above any real script's).
	depth, max := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '(', '{', '[':
			depth++
			if depth > max {
				max = depth
			}
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	if max > maxScanNest {
		b.over = fmt.Sprintf("brackets nested more than %d levels deep", maxScanNest)
		return false
	}
	return true
}

// nesting checks the syntactic nesting of parsed statements.
func (b *checkBudget) nesting(stmts []*syntax.Stmt) bool {
	if b.over != "" {
		return false
	}
	depth, deep := 0, false
	var stack []bool
	visit := func(n syntax.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				depth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		inc := false
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Subshell, *syntax.Block, *syntax.IfClause,
			*syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl, *syntax.ArithmExp,
			*syntax.ArithmCmd, *syntax.ParenArithm, *syntax.ParamExp, *syntax.DblQuoted, *syntax.TestClause,
			*syntax.ParenTest:
			inc = true
			depth++
			if depth > maxCheckNest {
				deep = true
				return false
			}
		}
		if deep {
			return false
		}
		stack = append(stack, inc)
		return true
	}
	for _, s := range stmts {
		syntax.Walk(s, visit)
		if deep {
			b.over = fmt.Sprintf("nested more than %d levels deep", maxCheckNest)
			return false
		}
	}
	return true
}

// verdict is the deny for a script over budget.
func (b *checkBudget) verdict(p *Policy) Verdict {
	return p.settle(judged(kOther, idTooLarge, b.over))
}

// parse parses a script within the budget. Statements before a
// syntax error are returned with the error: bash runs them before it
// reaches the error.
func (b *checkBudget) parse(src string) ([]*syntax.Stmt, error) {
	if !b.precheck(src) {
		return nil, nil
	}
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	var stmts []*syntax.Stmt
	var err error
	for s, serr := range p.StmtsSeq(strings.NewReader(src)) {
		if serr != nil {
			err = serr
			break
		}
		stmts = append(stmts, s)
		if b.steps+len(stmts) > maxSteps && b.over == "" {
			b.over = fmt.Sprintf("more than %d statements", maxSteps)
		}
		if !b.spend(1) {
			break
		}
	}
	if b.over != "" {
		return nil, nil
	}
	if !b.nesting(stmts) {
		return nil, nil
	}
	return stmts, err
}
