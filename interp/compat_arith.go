package interp

import (
	"mvdan.cc/sh/v3/syntax"
)

// fixArithAssign rewrites "(( a[i] OP= e, ... ))", arithmetic assignments
// to array elements, into assignments mvdan can run: mvdan's arithmetic
// names an assignment's target by its literal text and panics on a[i].
// Each element of the comma list becomes a statement:
//
//	a[i]=$(( e ))                  for a[i]=e
//	a[i]=$(( a[i] OP (e) ))        for a[i]OP=e
//	: $(( e ))                     for any other element but the last
//
// and the last element's value gives the status: "(( a[i] ))" after an
// assignment, "(( e ))" otherwise. Only statements whose assignments to
// elements are all at the top of the comma list are rewritten (an element
// assignment nested in another expression is left to the panic guard).
func fixArithAssign(st *syntax.Stmt) bool {
	ac, ok := st.Cmd.(*syntax.ArithmCmd)
	if !ok {
		return false
	}
	var list []syntax.ArithmExpr
	var flatten func(x syntax.ArithmExpr)
	flatten = func(x syntax.ArithmExpr) {
		if b, ok := x.(*syntax.BinaryArithm); ok && b.Op == syntax.Comma {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		list = append(list, x)
	}
	flatten(ac.X)
	any := false
	for _, x := range list {
		if _, _, ok := elemAssign(x); ok {
			any = true
		} else if hasElemAssign(x) {
			return false
		}
	}
	if !any {
		return false
	}
	pos := ac.Pos()
	var stmts []*syntax.Stmt
	for i, x := range list {
		lastOne := i == len(list)-1
		b, pe, ok := elemAssign(x)
		if !ok {
			if lastOne {
				stmts = append(stmts, &syntax.Stmt{Position: pos, Cmd: &syntax.ArithmCmd{Left: pos, Right: pos, X: x}})
			} else {
				stmts = append(stmts, &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Args: []*syntax.Word{
					litWord(":"), {Parts: []syntax.WordPart{&syntax.ArithmExp{Left: pos, Right: pos, X: x}}}}}})
			}
			continue
		}
		val := b.Y
		if op, compound := compoundBase[b.Op]; compound {
			val = &syntax.BinaryArithm{OpPos: pos, Op: op, X: &syntax.Word{Parts: []syntax.WordPart{pe}},
				Y: &syntax.ParenArithm{Lparen: pos, Rparen: pos, X: b.Y}}
		}
		as := &syntax.Assign{Name: pe.Param, Index: pe.Index,
			Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.ArithmExp{Left: pos, Right: pos, X: val}}}}
		stmts = append(stmts, &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Assigns: []*syntax.Assign{as}}})
		if lastOne {
			stmts = append(stmts, &syntax.Stmt{Position: pos, Cmd: &syntax.ArithmCmd{Left: pos, Right: pos,
				X: &syntax.Word{Parts: []syntax.WordPart{pe}}}})
		}
	}
	st.Cmd = &syntax.Block{Lbrace: pos, Rbrace: pos, Stmts: stmts}
	return true
}

// compoundBase maps a compound arithmetic assignment to its operator.
var compoundBase = map[syntax.BinAritOperator]syntax.BinAritOperator{
	syntax.AddAssgn: syntax.Add, syntax.SubAssgn: syntax.Sub, syntax.MulAssgn: syntax.Mul,
	syntax.QuoAssgn: syntax.Quo, syntax.RemAssgn: syntax.Rem, syntax.AndAssgn: syntax.And,
	syntax.OrAssgn: syntax.Or, syntax.XorAssgn: syntax.Xor, syntax.ShlAssgn: syntax.Shl,
	syntax.ShrAssgn: syntax.Shr,
}

// elemAssign reports whether x is "a[i] OP= e" and returns its parts.
func elemAssign(x syntax.ArithmExpr) (*syntax.BinaryArithm, *syntax.ParamExp, bool) {
	b, ok := x.(*syntax.BinaryArithm)
	if !ok || (b.Op != syntax.Assgn && compoundBase[b.Op] == 0) {
		return nil, nil, false
	}
	w, ok := b.X.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return nil, nil, false
	}
	pe, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Index == nil || pe.Param == nil || !pe.Short {
		return nil, nil, false
	}
	return b, pe, true
}

// hasElemAssign reports whether an assignment to an array element is
// anywhere in x.
func hasElemAssign(x syntax.ArithmExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if a, ok := n.(syntax.ArithmExpr); ok {
			if _, _, ok := elemAssign(a); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// unsupportedElemAssign replaces, in an arithmetic expression, each
// assignment to an array element that fixArithAssign could not turn into a
// statement ($(( a[i]=1 )), x=$(( a[0]++ ))...) with an expansion that
// fails with a bash-style error: mvdan's arithmetic would panic on it, in a
// pipeline's goroutine beyond any recover. It reports whether it changed x.
func unsupportedElemAssign(x *syntax.ArithmExpr) bool {
	changed := false
	var fix func(p *syntax.ArithmExpr)
	fix = func(p *syntax.ArithmExpr) {
		switch n := (*p).(type) {
		case *syntax.BinaryArithm:
			if _, pe, ok := elemAssign(n); ok {
				*p = unsupportedWord(pe.Param.Value + "[...]: assignment to an array element inside an expression is not supported")
				changed = true
				return
			}
			fix(&n.X)
			fix(&n.Y)
		case *syntax.UnaryArithm:
			if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.Inc || n.Op == syntax.Dec) && len(w.Parts) == 1 {
				if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Index != nil && pe.Param != nil {
					*p = unsupportedWord(pe.Param.Value + "[...]: increment of an array element is not supported")
					changed = true
					return
				}
			}
			fix(&n.X)
		case *syntax.ParenArithm:
			fix(&n.X)
		}
	}
	fix(x)
	return changed
}

// unsupportedWord is ${__guardsh_unsupported:?MSG}: expanding it prints
// "NAME: line N: __guardsh_unsupported: MSG" and fails, as bash's
// expansion errors do.
func unsupportedWord(msg string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.ParamExp{
		Param: &syntax.Lit{Value: "__guardsh_unsupported"},
		Exp:   &syntax.Expansion{Op: syntax.ErrorUnsetOrNull, Word: litWord(msg)},
	}}}
}
