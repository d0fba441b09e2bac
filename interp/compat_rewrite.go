package interp

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// rewrite adapts a parsed script where mvdan's interpreter differs from
// bash, and reports whether it changed anything:
//   - ">|" (write even with noclobber) becomes ">", as guardsh has no
//     noclobber;
//   - "time PIPELINE" reports on stderr, with real user and system times;
//   - after every "CMD &" a marker records the job, so that $!, jobs,
//     kill %N and wait know it; $! itself reads the real PID.
func (g *Runner) rewrite(f *syntax.File) bool {
	changed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Op == syntax.ClbOut {
				n.Op = syntax.RdrOut
				changed = true
			}
		case *syntax.Stmt:
			if tc, ok := n.Cmd.(*syntax.TimeClause); ok {
				n.Cmd = g.timeBlock(tc)
				changed = true
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "!" && !n.Excl && !n.Length {
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: bangVar}
				n.Short = false
				changed = true
			}
		}
		return true
	})
	for _, list := range stmtLists(f) {
		if g.markBackground(list) {
			changed = true
		}
	}
	return changed
}

// stmtLists finds every statement list of a script.
func stmtLists(f *syntax.File) []*[]*syntax.Stmt {
	lists := []*[]*syntax.Stmt{&f.Stmts}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Block:
			lists = append(lists, &n.Stmts)
		case *syntax.Subshell:
			lists = append(lists, &n.Stmts)
		case *syntax.IfClause:
			lists = append(lists, &n.Cond, &n.Then)
		case *syntax.WhileClause:
			lists = append(lists, &n.Cond, &n.Do)
		case *syntax.ForClause:
			lists = append(lists, &n.Do)
		case *syntax.CaseItem:
			lists = append(lists, &n.Stmts)
		case *syntax.CmdSubst:
			lists = append(lists, &n.Stmts)
		case *syntax.ProcSubst:
			lists = append(lists, &n.Stmts)
		}
		return true
	})
	return lists
}

// markBackground inserts a job marker after each background statement.
func (g *Runner) markBackground(list *[]*syntax.Stmt) bool {
	var out []*syntax.Stmt
	changed := false
	for _, st := range *list {
		out = append(out, st)
		if !st.Background || isMarker(st) {
			continue
		}
		id := g.sh.registerBg(bgCallPos(st), stmtText(st))
		out = append(out, markerStmt(markBg, st.End(),
			litWord(strconv.Itoa(id)), paramWord("!")))
		changed = true
	}
	if changed {
		*list = out
	}
	return changed
}

func isMarker(st *syntax.Stmt) bool {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(ce.Args) > 0 && strings.HasPrefix(ce.Args[0].Lit(), internalPrefix)
}

// bgCallPos is the position of the command whose PID bash reports as $!
// for a background statement: the simple command, or the last one of a
// pipeline. Compound commands have none.
func bgCallPos(st *syntax.Stmt) syntax.Pos {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return syntax.Pos{}
		}
		return c.Pos()
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return bgCallPos(c.Y)
		}
	}
	return syntax.Pos{}
}

// stmtText is a statement as "jobs" shows it.
func stmtText(st *syntax.Stmt) string {
	st2 := *st
	st2.Background = false
	var b strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, &st2)
	return strings.TrimSpace(b.String())
}

// timeBlock turns "time [-p] STMT" into a block that reports the time of
// STMT on stderr, keeping STMT's status.
func (g *Runner) timeBlock(tc *syntax.TimeClause) *syntax.Block {
	flag := ""
	if tc.PosixFormat {
		flag = "-p"
	}
	b := &syntax.Block{Lbrace: tc.Pos(), Rbrace: tc.End()}
	b.Stmts = append(b.Stmts, markerStmt(markTimeStart, tc.Pos(), litWord(flag)))
	if tc.Stmt != nil {
		b.Stmts = append(b.Stmts, tc.Stmt)
	}
	b.Stmts = append(b.Stmts, markerStmt(markTimeEnd, tc.End(), paramWord("?")))
	return b
}

func markerStmt(name string, pos syntax.Pos, args ...*syntax.Word) *syntax.Stmt {
	words := append([]*syntax.Word{litWord(name)}, args...)
	return &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Args: words}}
}

func litWord(s string) *syntax.Word {
	if s == "" {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{}}}
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

func paramWord(name string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
		&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: name}},
	}}}}
}
