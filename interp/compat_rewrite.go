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
	g.sh.globs.note(f)
	g.noteStatements(f) // for the advisor, when on (advisor_source.go)
	changed := false
	lastpipe := setsLastpipe(f)
	ifsSplitting := setsNonBlankIFS(f)
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Op == syntax.RdrClob {
				// mvdan has no ">|": a ">" whose target carries a mark
				// that the open handler removes (it then ignores set -C)
				n.Op = syntax.RdrOut
				if n.Word != nil {
					n.Word.Parts = append([]syntax.WordPart{&syntax.Lit{ValuePos: n.Word.Pos(), ValueEnd: n.Word.Pos(), Value: clobberPrefix}}, n.Word.Parts...)
				}
				changed = true
			}
		case *syntax.BinaryCmd:
			// bash runs every element of a pipeline in a subshell; mvdan
			// runs the last one in the shell itself, so that
			// "echo x | read v" would set v.
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && n.Y != nil && !lastpipe {
				if _, sub := n.Y.Cmd.(*syntax.Subshell); !sub {
					y := n.Y
					n.Y = &syntax.Stmt{Position: y.Pos(), Cmd: &syntax.Subshell{
						Lparen: y.Pos(), Rparen: y.End(), Stmts: []*syntax.Stmt{y}}}
					changed = true
				}
			}
		case *syntax.Stmt:
			if rewriteFds(n) {
				changed = true
			}
			if fixArithAssign(n) {
				changed = true
			}
			if declAsCall(n) {
				changed = true
			}
			if fixSuffixNewline(n) {
				changed = true
			}
			if ifsSplitting && fixIFSSplit(n) {
				changed = true
			}
			if fixDefaultWords(n) {
				changed = true
			}
			if tc, ok := n.Cmd.(*syntax.TimeClause); ok {
				n.Cmd = g.timeBlock(tc)
				changed = true
			}
		case *syntax.ArithmExp:
			if unsupportedElemAssign(&n.X) {
				changed = true
			}
		case *syntax.ArithmCmd:
			if unsupportedElemAssign(&n.X) {
				changed = true
			}
		case *syntax.Assign:
			if fixAssign(n) {
				changed = true
			}
		case *syntax.Word:
			if splitQuotedAt(n) {
				changed = true
			}
		case *syntax.CallExpr:
			if fixElemAppend(n) {
				changed = true
			}
		case *syntax.FuncDecl:
			if localInSubshells(n) {
				changed = true
			}
			if n.Name != nil {
				g.sh.noteFunction(n.Name.Value)
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "!" && !n.Excl && !n.Length {
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: bangVar}
				n.Short = false
				changed = true
			}
			if n.Param != nil && n.Param.Value == "$" && !n.Excl {
				// mvdan's $$ is the Go process; a nested shell's is its
				// own (dynEnviron)
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: pidVar}
				n.Short = false
				changed = true
			}
			if n.Param != nil && n.Param.Value == "PPID" {
				// mvdan's PPID is the Go process's parent; a nested
				// shell's is its parent shell (dynEnviron)
				n.Param = &syntax.Lit{ValuePos: n.Param.ValuePos, ValueEnd: n.Param.ValueEnd, Value: ppidVar}
				changed = true
			}
		}
		return true
	})
	if fixAssocLength(f) {
		changed = true
	}
	if fixDashFlags(f) {
		changed = true
	}
	if fixIntegerVars(f) {
		changed = true
	}
	if mentionsVar(f, "FUNCNAME") && funcNames(f) {
		changed = true
	}
	ps := mentionsPipeStatus(f)
	for _, list := range stmtLists(f) {
		if g.markBackground(list) {
			changed = true
		}
		if ps && g.pipeStatus(list) {
			changed = true
		}
	}
	return changed
}

// mentionsPipeStatus reports whether a script reads PIPESTATUS: only then
// are its pipelines instrumented to fill it.
func mentionsPipeStatus(f *syntax.File) bool { return mentionsVar(f, "PIPESTATUS") }

// mentionsVar reports whether a script expands the variable name.
func mentionsVar(f *syntax.File, name string) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == name {
			found = true
		}
		return !found
	})
	return found
}

// funcNames makes FUNCNAME work in the functions of a script that reads
// it: each function body starts with
// local -a FUNCNAME=(NAME "${FUNCNAME[@]}"), which the function's return
// undoes, as bash's stack of function names.
func funcNames(f *syntax.File) bool {
	changed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		fd, ok := n.(*syntax.FuncDecl)
		if !ok || fd.Name == nil || fd.Body == nil {
			return true
		}
		b, ok := fd.Body.Cmd.(*syntax.Block)
		if !ok {
			return true
		}
		src := "local -a FUNCNAME=(" + evalQuote(fd.Name.Value) + ` "${FUNCNAME[@]}")`
		pf, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil || len(pf.Stmts) != 1 {
			return true
		}
		b.Stmts = append([]*syntax.Stmt{pf.Stmts[0]}, b.Stmts...)
		changed = true
		return true
	})
	return changed
}

// pipeStatus instruments the pipelines of a statement list so that
// PIPESTATUS holds the status of each element afterwards, as in bash:
// each element reports its status, and after the pipeline PIPESTATUS is
// set and $? restored.
func (g *Runner) pipeStatus(list *[]*syntax.Stmt) bool {
	var out []*syntax.Stmt
	changed := false
	for _, st := range *list {
		out = append(out, st)
		bc, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || (bc.Op != syntax.Pipe && bc.Op != syntax.PipeAll) || st.Background || isMarker(st) {
			continue
		}
		var slots []**syntax.Stmt
		pipeLeaves(bc, &slots)
		id := g.sh.newPipeStatus(len(slots))
		for i, slot := range slots {
			if sub, ok := (*slot).Cmd.(*syntax.Subshell); ok && len(sub.Stmts) == 1 && sub.Lparen == sub.Stmts[0].Pos() {
				slot = &sub.Stmts[0]
			}
			e := *slot
			idx := strconv.Itoa(i)
			report := func(status *syntax.Word) *syntax.Stmt {
				return markerStmt(markPS, e.End(), litWord(strconv.Itoa(id)), litWord(idx), status)
			}
			var body []*syntax.Stmt
			if _, simple := e.Cmd.(*syntax.CallExpr); simple && !e.Negated {
				// "e && report 0 || report $?": errexit inside the element
				// still sees e's status last.
				and := &syntax.Stmt{Position: e.Pos(), Cmd: &syntax.BinaryCmd{Op: syntax.AndStmt, OpPos: e.End(), X: e, Y: report(litWord("0"))}}
				body = []*syntax.Stmt{{Position: e.Pos(), Cmd: &syntax.BinaryCmd{Op: syntax.OrStmt, OpPos: e.End(), X: and, Y: report(paramWord("?"))}}}
			} else {
				body = []*syntax.Stmt{e, report(paramWord("?"))}
			}
			*slot = &syntax.Stmt{Position: e.Pos(), Cmd: &syntax.Block{Lbrace: e.Pos(), Rbrace: e.End(), Stmts: body}}
		}
		out = append(out, markerStmt(markPSSet, st.End(), litWord(strconv.Itoa(id)), paramWord("?")))
		if !st.Negated {
			out = append(out, markerStmt(markPSRet, st.End(), litWord(strconv.Itoa(id))))
		}
		changed = true
	}
	if changed {
		*list = out
	}
	return changed
}

// pipeLeaves collects the element statements of a pipeline.
func pipeLeaves(bc *syntax.BinaryCmd, slots *[]**syntax.Stmt) {
	for _, side := range []**syntax.Stmt{&bc.X, &bc.Y} {
		if inner, ok := (*side).Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) && !(*side).Negated {
			pipeLeaves(inner, slots)
			continue
		}
		*slots = append(*slots, side)
	}
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
		call := bgCallPos(st)
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 && g.sh.mayBeFunction(ce.Args[0].Lit()) {
			// "f &" for a function: a job of its own, like a compound one
			call = syntax.Pos{}
		}
		id := g.sh.registerBg(call, stmtText(st))
		if !call.IsValid() && st.Cmd != nil {
			compoundJob(st, id)
		}
		out = append(out, markerStmt(markBg, st.End(),
			litWord(strconv.Itoa(id)), paramWord("!")))
		changed = true
	}
	if changed {
		*list = out
	}
	return changed
}

// compoundJob turns the compound background statement "X &" into
// "{ trap 'markBgDone $vpid $?' EXIT; markBgStart ID; X; exit; } &": the job
// gets a virtual PID and guardsh learns when it ends and with which status.
func compoundJob(st *syntax.Stmt, id int) {
	inner := &syntax.Stmt{Position: st.Position, Cmd: st.Cmd, Negated: st.Negated}
	pos, end := st.Pos(), st.End()
	trap := markerStmt("trap", pos,
		litWord(markBgDone+` "$`+vpidVar+`" "$?"`), litWord("EXIT"))
	b := &syntax.Block{Lbrace: pos, Rbrace: end, Stmts: []*syntax.Stmt{
		trap,
		markerStmt(markBgStart, pos, litWord(strconv.Itoa(id))),
		inner,
		markerStmt(exitCmd, end),
	}}
	st.Cmd = b
	st.Negated = false
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
	case *syntax.Subshell:
		// the wrapper the pipeline rewrite puts around a last element
		if len(c.Stmts) == 1 && c.Lparen == c.Stmts[0].Pos() {
			return bgCallPos(c.Stmts[0])
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
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: s}}}
}

func paramWord(name string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{
		&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: name}},
	}}}}
}

// fixAssocLength rewrites ${#m[@]} of the associative arrays a script
// declares (declare/local/typeset -A) to count their keys: mvdan's
// interpreter counts such an array as one element.
func fixAssocLength(f *syntax.File) bool {
	assoc := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		dc, ok := n.(*syntax.DeclClause)
		if !ok {
			return true
		}
		isA := false
		for _, a := range dc.Args {
			if a.Naked && a.Value != nil {
				if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") && strings.Contains(lit, "A") {
					isA = true
				}
			}
		}
		if isA {
			for _, a := range dc.Args {
				if a.Name != nil {
					assoc[a.Name.Value] = true
				}
			}
		}
		return true
	})
	if len(assoc) == 0 {
		return false
	}
	changed := false
	fix := func(parts []syntax.WordPart) {
		for i, p := range parts {
			pe, ok := p.(*syntax.ParamExp)
			if !ok || !pe.Length || pe.Param == nil || !assoc[pe.Param.Value] || pe.Index == nil {
				continue
			}
			if idx, ok := pe.Index.(*syntax.Word); !ok || (idx.Lit() != "@" && idx.Lit() != "*") {
				continue
			}
			// (keys cannot be empty; mvdan lists one empty key for an
			// empty associative array)
			src := `$(` + quietBegin + `; n=0; for k in "${!` + pe.Param.Value + `[@]}"; do if [ -n "$k" ]; then n=$((n+1)); fi; done; ` + quietEnd + `; echo "$n")`
			file, err := syntax.NewParser().Parse(strings.NewReader("x="+src), "")
			if err != nil {
				continue
			}
			cs := file.Stmts[0].Cmd.(*syntax.CallExpr).Assigns[0].Value.Parts[0]
			parts[i] = cs
			changed = true
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			fix(n.Parts)
		case *syntax.DblQuoted:
			fix(n.Parts)
		}
		return true
	})
	return changed
}

// fixIntegerVars gives the variables a script declares with -i (declare,
// local, typeset) bash's arithmetic assignment, which mvdan lacks (it
// refuses -i): the flag is dropped and every assignment to such a name in
// the script becomes NAME=$((VALUE)), NAME+=V becomes NAME=$((NAME+(V))).
func fixIntegerVars(f *syntax.File) bool {
	ints := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		dc, ok := n.(*syntax.DeclClause)
		if !ok {
			return true
		}
		isInt := false
		var args []*syntax.Assign
		for _, a := range dc.Args {
			if a.Naked && a.Value != nil && a.Name == nil {
				if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") && strings.Contains(lit, "i") {
					isInt = true
					rest := strings.ReplaceAll(lit, "i", "")
					if rest == "-" {
						continue // only -i: drop the word
					}
					a.Value = litWord(rest)
				}
			}
			args = append(args, a)
		}
		if isInt {
			dc.Args = args
			for _, a := range dc.Args {
				if a.Name != nil {
					ints[a.Name.Value] = true
				}
			}
		}
		return true
	})
	if len(ints) == 0 {
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		a, ok := n.(*syntax.Assign)
		if !ok || a.Name == nil || !ints[a.Name.Value] || a.Value == nil || a.Array != nil || a.Index != nil {
			return true
		}
		var b strings.Builder
		var node syntax.Node = a.Value
		if len(a.Value.Parts) == 1 {
			switch q := a.Value.Parts[0].(type) {
			case *syntax.DblQuoted: // "1 + 1": the quotes go, as in arithmetic
				node = &syntax.Word{Parts: q.Parts}
			case *syntax.SglQuoted:
				node = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: q.Value}}}
			}
		}
		if err := syntax.NewPrinter().Print(&b, node); err != nil {
			return true
		}
		expr := b.String()
		if a.Append {
			expr = a.Name.Value + "+(" + expr + ")"
		}
		pf, err := syntax.NewParser().Parse(strings.NewReader("x=$(("+expr+"))"), "")
		if err != nil || len(pf.Stmts) != 1 {
			return true
		}
		ce, ok := pf.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Assigns) != 1 {
			return true
		}
		a.Value = ce.Assigns[0].Value
		a.Append = false
		return true
	})
	return true
}

// setsLastpipe reports whether a script turns on "shopt -s lastpipe", with
// which bash runs a pipeline's last element in the shell itself (as mvdan
// does anyway).
func setsLastpipe(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) < 3 || ce.Args[0].Lit() != "shopt" {
			return !found
		}
		set := false
		for _, a := range ce.Args[1:] {
			switch a.Lit() {
			case "-s":
				set = true
			case "lastpipe":
				found = found || set
			}
		}
		return !found
	})
	return found
}

// fixDashFlags makes $- show bash's letters for the shell's own state
// after mvdan's ("ehBc" for bash -ec): [[ $- == *i* ]] tests interactivity.
func fixDashFlags(f *syntax.File) bool {
	changed := false
	fix := func(parts []syntax.WordPart) []syntax.WordPart {
		var out []syntax.WordPart
		for _, p := range parts {
			out = append(out, p)
			pe, ok := p.(*syntax.ParamExp)
			if ok && pe.Param != nil && pe.Param.Value == "-" && !pe.Length && !pe.Excl &&
				pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil {
				out = append(out, &syntax.ParamExp{Param: &syntax.Lit{Value: flagsVar}})
				changed = true
			}
		}
		return out
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			n.Parts = fix(n.Parts)
		case *syntax.DblQuoted:
			n.Parts = fix(n.Parts)
		}
		return true
	})
	return changed
}
