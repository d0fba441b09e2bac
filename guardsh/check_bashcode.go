package guardsh

// Where real bash runs text as code and mvdan's interpreter does not.
//
// guardsh's own interpreter never evaluates a variable's text as code, so
// its runner is immune to what follows. The static checker, though, also
// answers for commands that real bash runs (the hook without --rewrite,
// --check, --explain): there, text that bash evaluates is code. Bash
// evaluates as arithmetic the value of every name in $((...)), ((...)),
// let, $[...], array subscripts, ${x:off:len}, [[ a -eq b ]], for ((...))
// and the values of integer variables, and an array subscript inside that
// text runs its $(...). It expands subscripts in the names builtins are
// given (printf -v, read, test -v, declare, wait -p), the value of a
// nameref or of x in ${!x}, and every $(...) in ${x@P} and PS4. It runs
// trap bodies, command_not_found_handle, PROMPT_COMMAND, the file BASH_ENV
// names, programs set with hash -p or BASH_CMDS, and shared objects
// loaded with enable -f.
//
// The rule: text the checker can read is checked as the code it becomes
// (a denied command in it denies); text it cannot read asks, unless it is
// known to be a number.

import (
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// numericVal marks a variable whose value is not known statically but is
// known to be a number (it was assigned by arithmetic, ${#x}, $(wc -l)).
const numericVal = "\x00#"

// bashState is what the checker follows of bash's own state: namerefs,
// integer variables, programs set with hash -p, links the script made.
type bashState struct {
	namerefs map[string]bool
	ints     map[string]bool
	assoc    map[string]bool   // associative arrays: subscripts are words, not arithmetic
	hashed   map[string]string // name -> program (dynWord if not known)
	links    map[string]string // link (absolute) -> what it points to
	ifs      bool              // IFS was set to something else than the default
}

func (ck *checker) bs() *bashState {
	if ck.bash == nil {
		ck.bash = &bashState{}
	}
	return ck.bash
}

// realBash reports whether the checked text will run in real bash (the
// hook, --check) rather than in guardsh's interpreter (the runner).
func (ck *checker) realBash() bool {
	return ck.env.Via != "shell" && ck.env.Via != "agent"
}

func (ck *checker) setNum(name string) { ck.setVar(name, numericVal) }

// numericParams are bash's variables whose value is always a number.
var numericParams = map[string]bool{
	"?": true, "#": true, "$": true, "!": true, "-": true, "RANDOM": true, "SRANDOM": true, "LINENO": true,
	"SECONDS": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true, "EPOCHSECONDS": true,
	"EPOCHREALTIME": true, "OPTIND": true, "BASH_SUBSHELL": true, "SHLVL": true, "HISTCMD": true,
}

// hookVars are variables through which bash runs code later.
var hookVars = map[string]string{
	"PS0": "prompt", "PS1": "prompt", "PS2": "prompt", "PS3": "prompt", "PS4": "prompt",
	"PROMPT_COMMAND": "command",
	"BASH_ENV":       "file", "ENV": "file",
	"SHELLOPTS": "options", "BASHOPTS": "options",
	"BASH_CMDS": "hash", "BASH_ALIASES": "alias",
}

// cornerRes gathers the verdicts of one code-running corner.
type cornerRes struct {
	v   Verdict
	has bool
}

func (r *cornerRes) add(v Verdict) {
	if !r.has {
		r.v, r.has = v, true
		return
	}
	r.v = combine(r.v, v)
}

func (ck *checker) askData(r *cornerRes, detail string) {
	r.add(ck.p.settle(judged(kOther, idCodeInData, detail)))
}

func (ck *checker) askHook(r *cornerRes, detail string) {
	r.add(ck.p.settle(judged(kOther, idShellHook, detail)))
}

// report records a corner's verdict as one command of the script.
func (ck *checker) report(n syntax.Node, r cornerRes) {
	if !r.has {
		return
	}
	src := ck.text(n)
	pos := n.Pos()
	ck.record(CommandVerdict{Source: src, Args: []string{clip(src)}, Line: pos.Line(), Col: pos.Col(), Verdict: r.v})
}

// corners judges the code-running corners of one statement's own words
// (not those of the statements it contains, which are visited in turn).
func (ck *checker) corners(s *syntax.Stmt) {
	if !ck.realBash() {
		return
	}
	for _, rd := range s.Redirs {
		ck.cornerWalk(rd.Word)
		ck.cornerWalk(rd.Hdoc)
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range x.Assigns {
			ck.cornerAssign(a, len(x.Args) > 0, nil)
		}
		for _, w := range x.Args {
			ck.cornerWalk(w)
		}
	case *syntax.DeclClause:
		ck.cornerDecl(x)
	case *syntax.ArithmCmd:
		var r cornerRes
		ck.arithExpr(x.X, &r, 0)
		ck.report(x, r)
		ck.cornerWalk(x.X)
	case *syntax.LetClause:
		var r cornerRes
		for _, e := range x.Exprs {
			ck.arithExpr(e, &r, 0)
			ck.cornerWalk(e)
		}
		ck.report(x, r)
	case *syntax.TestClause:
		ck.cornerWalk(x.X)
	case *syntax.ForClause:
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				ck.cornerWalk(w)
			}
			var r cornerRes
			if ck.bs().namerefs[l.Name.Value] {
				ck.askData(&r, "a for loop over a nameref: every item is a variable name bash expands")
			}
			if ck.bs().ints[l.Name.Value] {
				// each item is assigned to an integer variable: evaluated
				for _, w := range l.Items {
					ck.arithWord(w, &r, 0)
				}
			}
			ck.report(x, r)
		case *syntax.CStyleLoop:
			var r cornerRes
			for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				ck.arithExpr(e, &r, 0)
				ck.cornerWalk(e)
			}
			ck.report(l, r)
		}
	case *syntax.CaseClause:
		ck.cornerWalk(x.Word)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				ck.cornerWalk(p)
			}
		}
	}
}

// cornerWalk finds arithmetic, indirection and prompt expansion in a node,
// down to (not into) command substitutions, which are statements of their
// own.
func (ck *checker) cornerWalk(n syntax.Node) {
	if isNilNode(n) {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if !ck.b.spend(1) {
			return false
		}
		switch x := node.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.ArithmExp:
			var r cornerRes
			ck.arithExpr(x.X, &r, 0)
			ck.report(x, r)
		case *syntax.ParamExp:
			var r cornerRes
			ck.paramCorner(x, &r)
			ck.report(x, r)
		case *syntax.Assign:
			ck.cornerAssign(x, false, nil)
			return false
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				var r cornerRes
				for _, e := range []syntax.TestExpr{x.X, x.Y} {
					if w, ok := e.(*syntax.Word); ok {
						ck.arithWord(w, &r, 0)
					}
				}
				ck.report(x, r)
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
				if w, ok := x.X.(*syntax.Word); ok {
					var r cornerRes
					args, _ := ck.fieldsQuiet([]*syntax.Word{w})
					for _, a := range args {
						ck.nameCheck(a, &r, 0)
					}
					ck.report(x, r)
				}
			}
		}
		return true
	})
}

// paramCorner judges what a parameter expansion evaluates: its index and
// slice as arithmetic, ${!x}'s target, ${x@P}'s prompt expansion.
func (ck *checker) paramCorner(pe *syntax.ParamExp, r *cornerRes) {
	if pe.Param == nil {
		return
	}
	if pe.Index != nil && !allIndex(pe.Index) && !ck.isAssoc(pe.Param.Value) {
		ck.arithExpr(pe.Index, r, 0)
	}
	if pe.Slice != nil {
		ck.arithExpr(pe.Slice.Offset, r, 0)
		ck.arithExpr(pe.Slice.Length, r, 0)
	}
	name := pe.Param.Value
	if pe.Excl && pe.Names == 0 && (pe.Index == nil || !allIndex(pe.Index)) {
		if v, ok := ck.lookup(name); ok {
			ck.nameCheck(v, r, 0)
		} else if !numericParams[name] && ck.vars[name] != numericVal {
			ck.askData(r, "${!"+name+"} expands the variable named by $"+name+", whose text is not known before it runs")
		}
	}
	if pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil && pe.Exp.Word.Lit() == "P" {
		if v, ok := ck.lookup(name); ok {
			ck.promptCheck(v, r)
		} else if ck.vars[name] != numericVal && !numericParams[name] {
			ck.askData(r, "${"+name+"@P} runs the $(...) in the text of $"+name+", which is not known before it runs")
		}
	}
}

// allIndex reports whether an index is @ or * (all elements).
func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l == "@" || l == "*"
}

// cornerAssign judges an assignment: its subscript (arithmetic), the
// value of an integer variable or nameref, and variables through which
// bash runs code later. prefix is true for an assignment that only sets a
// command's environment.
func (ck *checker) cornerAssign(a *syntax.Assign, prefix bool, flags map[byte]bool) {
	if a == nil {
		return
	}
	var r cornerRes
	var n syntax.Node = a
	if a.Name == nil {
		if a.Value != nil {
			n = a.Value
		}
	}
	if a.Index != nil {
		if a.Name == nil || !ck.isAssoc(a.Name.Value) && !flags['A'] {
			ck.arithExpr(a.Index, &r, 0)
		}
		ck.cornerWalk(a.Index)
	}
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Index != nil && !flags['A'] && (a.Name == nil || !ck.isAssoc(a.Name.Value)) {
				ck.arithExpr(el.Index, &r, 0)
				ck.cornerWalk(el.Index)
			}
			ck.cornerWalk(el.Value)
			if flags['i'] && el.Value != nil {
				ck.arithWord(el.Value, &r, 0)
			}
		}
	}
	if a.Value != nil {
		ck.cornerWalk(a.Value)
	}
	if a.Name != nil {
		name := a.Name.Value
		bs := ck.bs()
		switch {
		case flags['n'] || bs.namerefs[name]:
			if a.Value != nil {
				args, _ := ck.fieldsQuiet([]*syntax.Word{a.Value})
				for _, t := range args {
					ck.nameCheck(t, &r, 0)
				}
			}
		case (flags['i'] || bs.ints[name]) && a.Value != nil:
			ck.arithWord(a.Value, &r, 0)
		}
		ck.hookVar(name, a, prefix, &r)
		if flags['n'] {
			if bs.namerefs == nil {
				bs.namerefs = map[string]bool{}
			}
			bs.namerefs[name] = true
		}
		if flags['A'] {
			if bs.assoc == nil {
				bs.assoc = map[string]bool{}
			}
			bs.assoc[name] = true
		}
		if flags['i'] {
			if bs.ints == nil {
				bs.ints = map[string]bool{}
			}
			bs.ints[name] = true
		}
	}
	ck.report(n, r)
}

// hookVar judges an assignment to a variable through which bash runs code
// later (PS4, PROMPT_COMMAND, BASH_ENV ...), and follows IFS.
func (ck *checker) hookVar(name string, a *syntax.Assign, prefix bool, r *cornerRes) {
	val, known := "", true
	if a.Value != nil {
		val, known = ck.assignValue(a.Value)
	}
	if a.Array != nil {
		known = false
	}
	if name == "IFS" && !prefix {
		if !known || val != " \t\n" {
			ck.bs().ifs = true
		}
		return
	}
	switch hookVars[name] {
	case "prompt":
		if !known {
			ck.askHook(r, name+" is expanded as a prompt (its $(...) runs) and its value is not known before it runs")
			return
		}
		ck.promptCheck(val, r)
	case "command":
		if !known {
			ck.askHook(r, "PROMPT_COMMAND runs as code and its value is not known before it runs")
			return
		}
		if strings.TrimSpace(val) != "" {
			r.add(ck.nested(val, source{}, false))
		}
	case "file":
		if known && val == "" {
			return
		}
		ck.askHook(r, name+" makes every bash started later first run the file "+displayArg(val)+", which guardsh does not see")
	case "options":
		ck.askHook(r, name+" changes the options of every bash started later (xtrace runs PS4, and more)")
	case "hash":
		if a.Index != nil && !prefix {
			key, kok := "", false
			if w, ok := a.Index.(*syntax.Word); ok {
				if args, _ := ck.fieldsQuiet([]*syntax.Word{w}); len(args) == 1 && !isDynamic(args[0]) {
					key, kok = args[0], true
				}
			}
			if kok {
				prog := val
				if !known {
					prog = dynWord(ck.text(a.Value))
				}
				ck.hash(key, prog)
				return
			}
		}
		ck.askHook(r, "BASH_CMDS sets the program a command name runs")
	case "alias":
		ck.askHook(r, "BASH_ALIASES defines aliases, which bash expands when expand_aliases is on")
	}
}

func (ck *checker) hash(name, prog string) {
	bs := ck.bs()
	if bs.hashed == nil {
		bs.hashed = map[string]string{}
	}
	bs.hashed[name] = prog
}

// cornerDecl judges declare, typeset, local, export, readonly: options
// (-i integer, -n nameref) and the NAME[=VALUE] arguments.
func (ck *checker) cornerDecl(d *syntax.DeclClause) {
	flags := map[byte]bool{}
	variant := ""
	if d.Variant != nil {
		variant = d.Variant.Value
	}
	if variant == "nameref" {
		flags['n'] = true
	}
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			args, _ := ck.fieldsQuiet([]*syntax.Word{a.Value})
			var r cornerRes
			for _, t := range args {
				if !isDynamic(t) && len(t) > 1 && (t[0] == '-' || t[0] == '+') && !strings.Contains(t, "=") {
					if t[0] == '-' {
						for k := 1; k < len(t); k++ {
							flags[t[k]] = true
						}
					}
					continue
				}
				ck.declArg(variant, t, flags, &r)
			}
			ck.cornerWalk(a.Value)
			ck.report(a.Value, r)
			continue
		}
		ck.cornerAssign(a, false, flags)
	}
}

// declArg judges one NAME[=VALUE] argument of declare and the like, given
// as one expanded string.
func (ck *checker) declArg(variant, t string, flags map[byte]bool, r *cornerRes) {
	if isDynamic(t) {
		switch variant {
		case "declare", "typeset", "local", "nameref":
			ck.askData(r, variant+" of a name not known before it runs: bash expands the subscript of NAME[...]")
		}
		return
	}
	name, val, hasVal := strings.Cut(t, "=")
	ck.nameCheck(name, r, 0)
	if hasVal && strings.HasPrefix(val, "(") && !isDynamic(val) {
		// declare -a "a=([i]=v ...)": bash parses the quoted value as a
		// compound assignment, and evaluates its subscripts
		n := strings.TrimSuffix(name, "+")
		if isName(n) {
			r.add(ck.nested("declare -a "+n+"="+val, source{}, false))
			if strings.ContainsAny(val, "$`") {
				ck.askData(r, variant+" of an array from text that holds expansions: "+clip(t))
			}
		}
	}
	if hasVal {
		switch {
		case flags['n']:
			ck.nameCheck(val, r, 0)
		case flags['i']:
			ck.arithText(val, r, 0)
		}
		if hookVars[name] != "" {
			ck.askHook(r, variant+" sets "+name+", through which bash runs code later")
		}
	}
}

// nameArgs judges the variable names a builtin is given: bash expands
// the subscript of NAME[...] as it assigns or tests it.
func (ck *checker) nameArgs(x *syntax.CallExpr, name string, args []string) {
	if !ck.realBash() {
		return
	}
	var names []string
	dynamicAsks := true
	switch name {
	case "printf":
		for k := 1; k+1 < len(args); k++ {
			if args[k] == "-v" {
				names = append(names, args[k+1])
				break
			}
			if args[k] == "--" || !strings.HasPrefix(args[k], "-") {
				break
			}
		}
	case "read":
		names = optNames(args[1:], "adinNptu", "a")
	case "mapfile", "readarray":
		names = optNames(args[1:], "dnOsuCc", "")
		dynamicAsks = false
	case "wait":
		// wait's operands are job ids, not names
		for k := 1; k+1 < len(args); k++ {
			if args[k] == "-p" {
				names = append(names, args[k+1])
			}
		}
	case "test", "[":
		for k := 1; k+1 < len(args); k++ {
			if args[k] == "-v" || args[k] == "-R" {
				names = append(names, args[k+1])
			}
		}
	case "getopts":
		ops := operands(args[1:], optSpec{})
		if len(ops) >= 2 {
			names = append(names, ops[1])
		}
		dynamicAsks = false
	case "unset":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") || isDynamic(a) {
				names = append(names, a)
			}
		}
		dynamicAsks = false
	case "declare", "typeset", "local", "export", "readonly":
		var r cornerRes
		flags := map[byte]bool{}
		for _, a := range args[1:] {
			if !isDynamic(a) && len(a) > 1 && (a[0] == '-' || a[0] == '+') && !strings.Contains(a, "=") {
				for k := 1; k < len(a) && a[0] == '-'; k++ {
					flags[a[k]] = true
				}
				continue
			}
			ck.declArg(name, a, flags, &r)
		}
		ck.report(x, r)
		return
	default:
		return
	}
	var r cornerRes
	for _, n := range names {
		if isDynamic(n) && !dynamicAsks {
			continue
		}
		ck.nameCheck(n, &r, 0)
		base, _, _ := strings.Cut(n, "[")
		if ck.bash != nil && ck.bash.ints[base] && name != "test" && name != "[" && name != "unset" {
			ck.askData(&r, name+" assigns text it reads to the integer variable "+base+", which bash evaluates as arithmetic")
		}
		if ck.bash != nil && ck.bash.namerefs[base] && name != "test" && name != "[" && name != "unset" {
			ck.askData(&r, name+" assigns to the nameref "+base+": the text becomes the name of the variable bash expands for $"+base)
		}
	}
	ck.report(x, r)
}

// envAssigns judges env NAME=VALUE ... COMMAND: the variables through
// which bash runs code later, set for the command.
func (ck *checker) envAssigns(x *syntax.CallExpr, args []string) {
	if !ck.realBash() {
		return
	}
	var r cornerRes
	for k := 1; k < len(args); k++ {
		a := args[k]
		if isDynamic(a) {
			ck.askHook(&r, "env sets variables not known before it runs")
			break
		}
		if a == "-u" || a == "-C" || a == "--unset" || a == "--chdir" {
			k++
			continue
		}
		if strings.HasPrefix(a, "-") {
			if strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "--split-string") {
				break // judged with the command it splits (classify)
			}
			continue
		}
		n, val, ok := strings.Cut(a, "=")
		if !ok {
			break // the command
		}
		switch hookVars[n] {
		case "":
		case "prompt":
			ck.promptCheck(val, &r)
			ck.askHook(&r, "env sets "+n+", through which bash runs code later")
		default:
			if val != "" {
				ck.askHook(&r, "env sets "+n+", through which bash runs code later")
			}
		}
	}
	ck.report(x, r)
}

// optNames returns the operands of a builtin (its variable names) and the
// values of the options in nameOpts, skipping the values of valueOpts.
func optNames(args []string, valueOpts, nameOpts string) []string {
	var names []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			return append(names, args[k+1:]...)
		}
		if isDynamic(a) || len(a) < 2 || a[0] != '-' {
			names = append(names, a)
			continue
		}
		for i := 1; i < len(a); i++ {
			if strings.IndexByte(valueOpts, a[i]) < 0 {
				continue
			}
			val := a[i+1:]
			if val == "" && k+1 < len(args) {
				k++
				val = args[k]
			}
			if strings.IndexByte(nameOpts, a[i]) >= 0 {
				names = append(names, val)
			}
			break
		}
	}
	return names
}

// nameCheck judges a variable name bash will expand: the subscript of
// NAME[...] is evaluated (arithmetic for an indexed array, expansion for
// an associative one).
func (ck *checker) nameCheck(t string, r *cornerRes, depth int) {
	if isDynamic(t) {
		ck.askData(r, "a variable name not known before it runs ("+displayArg(t)+"): bash expands the subscript of NAME[...]")
		return
	}
	base := t
	if i := strings.IndexByte(t, '['); i >= 0 {
		base = t[:i]
		j := strings.LastIndexByte(t, ']')
		if j < i {
			j = len(t)
		}
		ck.arithText(t[i+1:j], r, depth+1)
	}
	if hookVars[base] != "" {
		ck.askHook(r, "sets "+base+", through which bash runs code later")
	}
}

// promptCheck judges text bash expands as a prompt (${x@P}, PS4): its
// $(...), `...` and ${...} run.
func (ck *checker) promptCheck(text string, r *cornerRes) {
	if !strings.ContainsAny(text, "$`\\") {
		return
	}
	delim := "GUARDSH_PROMPT_EOF"
	for strings.Contains(text, delim) {
		delim += "_"
	}
	r.add(ck.nested("cat <<"+delim+"\n"+text+"\n"+delim+"\n", source{}, false))
	if strings.Contains(text, "$(") || strings.Contains(text, "`") || strings.Contains(text, "\\") ||
		strings.Contains(text, "${!") || hasVarSubscript(text) {
		ck.askData(r, "text expanded as a prompt runs code: "+clip(text))
	}
}

// hasVarSubscript reports whether text holds a subscript other than a
// number, @ or * (${a[$i]}, ${a[i]}: evaluated when the text is expanded).
func hasVarSubscript(text string) bool {
	for i := strings.IndexByte(text, '['); i >= 0; {
		j := strings.IndexByte(text[i:], ']')
		if j < 0 {
			return true
		}
		if sub := text[i+1 : i+j]; sub == "" || strings.Trim(sub, "0123456789@*") != "" {
			return true
		}
		k := strings.IndexByte(text[i+j:], '[')
		if k < 0 {
			return false
		}
		i = i + j + k
	}
	return false
}

// arithExpr judges an arithmetic expression bash evaluates: every name in
// it is a variable whose value bash evaluates in turn.
func (ck *checker) arithExpr(x syntax.ArithmExpr, r *cornerRes, depth int) {
	if isNilNode(x) || !ck.b.spend(1) {
		return
	}
	switch x := x.(type) {
	case *syntax.Word:
		ck.arithWord(x, r, depth)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
			syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			target := ""
			if w, ok := x.X.(*syntax.Word); ok {
				if l := w.Lit(); l != "" {
					target = l
				} else if len(w.Parts) == 1 {
					if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
						if pe.Index != nil {
							ck.arithExpr(pe.Index, r, depth)
						}
					}
				}
			}
			if x.Op != syntax.Assgn || target == "" {
				ck.arithExpr(x.X, r, depth)
			}
			ck.arithExpr(x.Y, r, depth)
			if target != "" && !ck.bs().namerefs[target] {
				ck.setNum(target)
			}
			return
		}
		ck.arithExpr(x.X, r, depth)
		ck.arithExpr(x.Y, r, depth)
	case *syntax.UnaryArithm:
		ck.arithExpr(x.X, r, depth)
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			if w, ok := x.X.(*syntax.Word); ok {
				if l := w.Lit(); l != "" && !ck.bs().namerefs[l] {
					ck.setNum(l)
				}
			}
		}
	case *syntax.ParenArithm:
		ck.arithExpr(x.X, r, depth)
	}
}

// arithWord judges a word bash expands and then evaluates as arithmetic.
func (ck *checker) arithWord(w *syntax.Word, r *cornerRes, depth int) {
	if w == nil {
		return
	}
	ck.arithParts(w.Parts, r, depth)
}

func (ck *checker) arithParts(parts []syntax.WordPart, r *cornerRes, depth int) {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			ck.arithText(x.Value, r, depth)
		case *syntax.SglQuoted:
			ck.arithText(x.Value, r, depth)
		case *syntax.DblQuoted:
			ck.arithParts(x.Parts, r, depth)
		case *syntax.ParamExp:
			ck.arithParam(x, r, depth)
		case *syntax.ArithmExp:
			ck.arithExpr(x.X, r, depth)
		case *syntax.CmdSubst:
			if ck.numericStmts(x.Stmts) {
				continue
			}
			if src := ck.stmtsSource(x.Stmts); src.kind == srcStatic {
				ck.arithText(src.text, r, depth+1)
				continue
			}
			ck.askData(r, "arithmetic evaluates the output of "+clip(ck.text(x))+", which is not known before it runs")
		default:
			ck.askData(r, "arithmetic evaluates "+clip(ck.text(part))+", which is not known before it runs")
		}
	}
}

// arithParam judges $x (or a name) in arithmetic: x's value is evaluated.
func (ck *checker) arithParam(pe *syntax.ParamExp, r *cornerRes, depth int) {
	if pe.Param == nil {
		return
	}
	if pe.Index != nil && !allIndex(pe.Index) && !ck.isAssoc(pe.Param.Value) {
		ck.arithExpr(pe.Index, r, depth)
	}
	if pe.Slice != nil {
		ck.arithExpr(pe.Slice.Offset, r, depth)
		ck.arithExpr(pe.Slice.Length, r, depth)
	}
	if pe.Length {
		return // ${#x} is a number
	}
	if pe.Exp != nil && pe.Exp.Word != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull:
			ck.arithWord(pe.Exp.Word, r, depth)
		default:
			// the value changed by a pattern: not a number in general
			if _, ok := ck.lookup(pe.Param.Value); !ok && !numericParams[pe.Param.Value] {
				ck.askData(r, "arithmetic evaluates "+clip(ck.text(pe))+", which is not known before it runs")
				return
			}
		}
	}
	if pe.Excl {
		ck.askData(r, "arithmetic evaluates "+clip(ck.text(pe))+", which is not known before it runs")
		return
	}
	if pe.Index != nil && ck.vars[pe.Param.Value] != numericVal {
		if v, ok := ck.lookup(pe.Param.Value); ok && pe.Index != nil {
			// an element of a variable set as a string: element 0 only
			if lit := arithLit(pe.Index); lit == "0" {
				ck.arithText(v, r, depth+1)
				return
			}
		}
		ck.askData(r, "arithmetic evaluates the array element "+clip(ck.text(pe))+", whose text is not known before it runs")
		return
	}
	ck.arithVar(pe.Param.Value, r, depth)
}

func arithLit(x syntax.ArithmExpr) string {
	if w, ok := x.(*syntax.Word); ok {
		return w.Lit()
	}
	return ""
}

// arithVar judges a variable whose value bash evaluates as arithmetic.
func (ck *checker) arithVar(name string, r *cornerRes, depth int) {
	if numericParams[name] || ck.vars[name] == numericVal {
		return
	}
	if isNumber(name) && name != "0" && !ck.hasPar {
		ck.askData(r, "arithmetic evaluates $"+name+", whose text is not known before it runs")
		return
	}
	v, ok := ck.lookup(name)
	if !ok && isNumber(name) {
		n := 0
		for _, c := range name {
			n = n*10 + int(c-'0')
		}
		if n >= 1 && n <= len(ck.params) {
			v, ok = ck.params[n-1], !isDynamic(ck.params[n-1])
		}
	}
	if !ok {
		if _, assigned := ck.vars[name]; !assigned && ck.env.Environ != nil {
			// not assigned by the script: what the environment holds
			if ev, set := ck.env.Environ(name); !set {
				return // unset: bash takes 0
			} else {
				v, ok = ev, true
			}
		}
	}
	if !ok {
		ck.askData(r, "arithmetic evaluates $"+name+", whose text is not known before it runs (bash runs the $(...) of an array subscript in it)")
		return
	}
	if depth > 8 {
		ck.askData(r, "arithmetic evaluates variables that name variables too deeply")
		return
	}
	ck.arithText(v, r, depth+1)
}

// arithText judges text bash evaluates as an arithmetic expression.
func (ck *checker) arithText(text string, r *cornerRes, depth int) {
	if !ck.b.spend(1 + len(text)/64) {
		return
	}
	if strings.ContainsAny(text, "$`\\\"'") {
		// expansions in a subscript run: check the text as the code it is
		v := ck.nested("(( "+text+" ))", source{}, false)
		r.add(v)
		ck.askData(r, "arithmetic evaluates text that holds expansions: "+clip(text))
		return
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			// a number: 0x1f, 8#17, 64#Zz
			for i < len(text) && (isNameByte(text[i]) || text[i] == '#' || text[i] == '@') {
				i++
			}
		case isNameByte(c):
			j := i
			for j < len(text) && isNameByte(text[j]) {
				j++
			}
			ck.arithVar(text[i:j], r, depth)
			i = j
		default:
			i++
		}
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// numericStmts reports whether a command substitution prints a number:
// $((...)), seq, wc reading standard input, nproc, id -u, date +%s, and
// pipelines ending in one of them.
func (ck *checker) numericStmts(list []*syntax.Stmt) bool {
	if len(list) != 1 {
		return false
	}
	s := list[0]
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			return ck.numericStmts([]*syntax.Stmt{x.Y})
		}
	case *syntax.CallExpr:
		if len(x.Args) == 0 {
			return false
		}
		args, _ := ck.fieldsQuiet(x.Args)
		if len(args) == 0 || isDynamic(args[0]) {
			return false
		}
		switch args[0] {
		case "seq", "nproc":
			for _, a := range args[1:] {
				// a dynamic word may be -f FORMAT
				if isDynamic(a) || strings.HasPrefix(a, "-f") || strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "--") {
					return false
				}
			}
			return true
		case "wc":
			for _, a := range args[1:] {
				if isDynamic(a) || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--files0-from") {
					return false // a file name is printed too
				}
			}
			return true
		case "id":
			return len(args) == 2 && (args[1] == "-u" || args[1] == "-g" || args[1] == "-ru" || args[1] == "-rg")
		case "date":
			return len(args) == 2 && (args[1] == "+%s" || args[1] == "+%Y" || args[1] == "+%s%N")
		}
	}
	return false
}

// numericWord reports whether a word's value is a number: digits,
// $((...)), ${#x}, numeric parameters and substitutions.
func (ck *checker) numericWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	var parts func([]syntax.WordPart) bool
	parts = func(ps []syntax.WordPart) bool {
		for _, part := range ps {
			switch x := part.(type) {
			case *syntax.Lit:
				if !isNumber(strings.TrimPrefix(x.Value, "-")) {
					return false
				}
			case *syntax.DblQuoted:
				if !parts(x.Parts) {
					return false
				}
			case *syntax.ArithmExp:
			case *syntax.ParamExp:
				if x.Param != nil && x.Excl && x.Names == 0 && x.Index != nil && allIndex(x.Index) && !ck.isAssoc(x.Param.Value) {
					continue // ${!a[@]}: the indexes of an indexed array
				}
				if x.Param == nil || x.Excl || x.Exp != nil || x.Repl != nil || x.Slice != nil {
					return false
				}
				if !x.Length && !numericParams[x.Param.Value] && ck.vars[x.Param.Value] != numericVal {
					return false
				}
			case *syntax.CmdSubst:
				if !ck.numericStmts(x.Stmts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return parts(w.Parts)
}

// followLinks returns args with every path through a link the script made
// replaced by what the link points to, and whether anything was replaced.
// rm, unlink and rmdir act on a link named without a trailing slash, not
// on what it points to.
func (ck *checker) followLinks(name string, args []string) ([]string, bool) {
	bs := ck.bash
	if bs == nil || len(bs.links) == 0 || !ck.realBash() {
		return args, false
	}
	out := append([]string(nil), args...)
	changed := false
	for i := 1; i < len(out); i++ {
		if t, ok := ck.throughLink(out[i], name == "rm" || name == "unlink" || name == "rmdir"); ok {
			out[i] = t
			changed = true
		}
	}
	return out, changed
}

// throughLink resolves a path through the links the script made.
func (ck *checker) throughLink(a string, keepLink bool) (string, bool) {
	bs := ck.bash
	if bs == nil || len(bs.links) == 0 || isDynamic(a) || a == "" {
		return a, false
	}
	opt := ""
	if strings.HasPrefix(a, "-") {
		// --dir=build/x
		k := strings.IndexByte(a, '=')
		if k < 0 {
			return a, false
		}
		opt, a = a[:k+1], a[k+1:]
	}
	e := pathEnv{dir: ck.dir, project: cleanAbs(ck.env.Project), home: cleanAbs(ck.env.Home)}
	abs, ok := e.abs(a)
	if !ok {
		return a, false
	}
	slash := strings.HasSuffix(a, "/") || strings.HasSuffix(a, "/.")
	for range 8 { // links to links
		hit := false
		for l, t := range bs.links {
			switch {
			case abs == l && (slash || !keepLink):
			case strings.HasPrefix(abs, l+"/"):
			default:
				continue
			}
			if isDynamic(t) {
				return dynWord(a), true
			}
			abs = path.Clean(t + abs[len(l):])
			hit = true
			break
		}
		if !hit {
			break
		}
		keepLink = false
	}
	if abs == "" {
		return a, false
	}
	if cleanA, _ := e.abs(a); cleanA == abs {
		return a, false
	}
	if slash && abs != "/" {
		abs += "/"
	}
	return opt + abs, true
}

// noteLinks follows ln: a link (symbolic or hard) the script makes names
// what it points to from then on.
func (ck *checker) noteLinks(args []string) {
	if !ck.realBash() || len(args) < 2 {
		return
	}
	symbolic, relative := false, false
	dir := ""
	var ops []string
	for k := 1; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case a == "-t" && k+1 < len(args):
			k++
			dir = args[k]
		case strings.HasPrefix(a, "--target-directory="):
			dir = strings.TrimPrefix(a, "--target-directory=")
		case a == "--symbolic":
			symbolic = true
		case a == "--relative":
			relative = true
		case strings.HasPrefix(a, "--"):
		case !isDynamic(a) && len(a) > 1 && a[0] == '-':
			if strings.ContainsRune(a, 's') {
				symbolic = true
			}
			if strings.ContainsRune(a, 'r') {
				relative = true
			}
			if strings.HasSuffix(a, "t") && k+1 < len(args) {
				k++
				dir = args[k]
			}
		default:
			ops = append(ops, a)
		}
	}
	e := pathEnv{dir: ck.dir, project: cleanAbs(ck.env.Project), home: cleanAbs(ck.env.Home)}
	type pair struct{ target, link string }
	var pairs []pair
	switch {
	case dir != "":
		for _, t := range ops {
			pairs = append(pairs, pair{t, strings.TrimRight(dir, "/") + "/" + path.Base(t)})
		}
	case len(ops) == 1:
		pairs = append(pairs, pair{ops[0], path.Base(ops[0])})
	case len(ops) == 2:
		pairs = append(pairs, pair{ops[0], ops[1]})
		// LINK may be a directory: the link is made inside it
		if !isDynamic(ops[1]) {
			if d, ok := e.abs(ops[1]); ok {
				if fi, err := os.Stat(d); err == nil && fi.IsDir() || strings.HasSuffix(ops[1], "/") {
					pairs = append(pairs, pair{ops[0], d + "/" + path.Base(ops[0])})
				}
			}
		}
	case len(ops) > 2:
		last := ops[len(ops)-1]
		for _, t := range ops[:len(ops)-1] {
			pairs = append(pairs, pair{t, strings.TrimRight(last, "/") + "/" + path.Base(t)})
		}
	}
	bs := ck.bs()
	for _, p := range pairs {
		if isDynamic(p.link) {
			continue // the delete through it asks on its own
		}
		link, ok := e.abs(p.link)
		if !ok {
			continue
		}
		target := p.target
		switch {
		case isDynamic(target):
		case symbolic && !relative && !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "~"):
			// a relative symbolic link is relative to its own directory
			target = path.Join(path.Dir(link), target)
		default:
			t, ok := e.abs(target)
			if !ok {
				target = dynWord(target)
			} else {
				target = t
			}
		}
		if bs.links == nil {
			bs.links = map[string]string{}
		}
		bs.links[link] = target
	}
}

// hashedProg returns the program hash -p or BASH_CMDS set for a name.
func (ck *checker) hashedProg(name string) (string, bool) {
	if ck.bash == nil || len(ck.bash.hashed) == 0 || isDynamic(name) || strings.Contains(name, "/") {
		return "", false
	}
	if _, isFunc := ck.funcs[name]; isFunc {
		return "", false // functions come before the hash table
	}
	p, ok := ck.bash.hashed[name]
	return p, ok
}

// noteHash follows hash -p PROGRAM NAME (NAME runs PROGRAM from then on)
// and hash -r, -d.
func (ck *checker) noteHash(s *syntax.Stmt, x *syntax.CallExpr, args []string) {
	if !ck.realBash() {
		return
	}
	prog, set := "", false
	for k := 1; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "-r":
			if ck.bash != nil {
				ck.bash.hashed = nil
			}
		case a == "-p" && k+1 < len(args):
			k++
			prog, set = args[k], true
		case strings.HasPrefix(a, "-p") && len(a) > 2:
			prog, set = a[2:], true
		case a == "-d" || a == "-t" || a == "-l" || a == "--":
		case isDynamic(a) && set:
			var r cornerRes
			ck.askHook(&r, "hash -p sets the program of a command name not known before it runs")
			ck.report(x, r)
		case set:
			ck.hash(a, prog)
		}
	}
}

// noteEnable judges enable: -f loads a shared object into bash (code that
// runs at once and as a builtin), -n turns builtins off so that a program
// of the same name runs instead.
func (ck *checker) noteEnable(s *syntax.Stmt, x *syntax.CallExpr, args []string) {
	if !ck.realBash() {
		return
	}
	var r cornerRes
	for _, a := range args[1:] {
		if isDynamic(a) {
			ck.askHook(&r, "enable with arguments not known before they run")
			break
		}
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a, "f") {
			ck.askHook(&r, "enable -f loads a shared object into bash: its code runs inside the shell")
			break
		}
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a, "nd") {
			ck.askHook(&r, "enable -n/-d removes builtins: a program of the same name runs instead")
			break
		}
	}
	ck.report(x, r)
}

// trapBody judges a trap's command as the code bash runs (at exit, on a
// signal, before each command for DEBUG).
func (ck *checker) trapBody(s *syntax.Stmt, x *syntax.CallExpr, args []string) {
	if !ck.realBash() {
		return
	}
	ops := operands(args[1:], optSpec{})
	if len(ops) < 2 || ops[0] == "-" || ops[0] == "" || isDynamic(ops[0]) {
		return // a dynamic body asks in hTrap
	}
	var r cornerRes
	r.add(ck.nested(ops[0], source{}, false))
	ck.report(x, r)
}

// isAssoc reports whether name is an associative array (declare -A, and
// bash's own BASH_CMDS and BASH_ALIASES): its subscripts are expanded as
// words, once, not evaluated as arithmetic.
func (ck *checker) isAssoc(name string) bool {
	if name == "BASH_CMDS" || name == "BASH_ALIASES" {
		return true
	}
	return ck.bash != nil && ck.bash.assoc[name]
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// hashedArgs applies hash -p and BASH_CMDS to the command a call runs:
// its name, or the name after command or exec, which look it up the same
// way.
func (ck *checker) hashedArgs(args []string) []string {
	if ck.bash == nil || len(ck.bash.hashed) == 0 || len(args) == 0 {
		return args
	}
	if prog, ok := ck.hashedProg(args[0]); ok {
		return append([]string{prog}, args[1:]...)
	}
	if args[0] != "command" && args[0] != "exec" {
		return args
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case args[0] == "exec" && a == "-a":
			i++
			continue
		case !isDynamic(a) && strings.HasPrefix(a, "-"):
			if args[0] == "command" && strings.ContainsAny(a, "vV") {
				return args // prints, does not run
			}
			continue
		}
		if prog, ok := ck.hashedProg(a); ok {
			out := append([]string(nil), args...)
			out[i] = prog
			return out
		}
		return args
	}
	return args
}

// callbacks judges the builtins that run a command or function they are
// given: mapfile/readarray -C CALLBACK, compgen -C COMMAND and -F
// FUNCTION; and history -w/-a, which write the history to a file.
func (ck *checker) callbacks(x *syntax.CallExpr, name string, args []string) {
	if !ck.realBash() {
		return
	}
	var r cornerRes
	code := func(what, c string) {
		if isDynamic(c) {
			ck.askData(&r, name+" runs "+what+" not known before it runs: "+displayArg(c))
			return
		}
		r.add(ck.nested(c, source{}, false))
	}
	switch name {
	case "mapfile", "readarray", "compgen":
		for k := 1; k < len(args); k++ {
			a := args[k]
			if isDynamic(a) || !strings.HasPrefix(a, "-") || a == "--" {
				if name != "compgen" {
					break
				}
				continue
			}
			for i := 1; i < len(a); i++ {
				c := a[i]
				if strings.IndexByte("CFdnOsucGPSWXAo", c) < 0 {
					continue
				}
				val := a[i+1:]
				if val == "" && k+1 < len(args) {
					k++
					val = args[k]
				}
				switch {
				case c == 'C':
					code("a callback", val)
				case c == 'F' && name == "compgen":
					code("a function", val)
				}
				break
			}
		}
	case "history":
		write, file := false, ""
		for _, a := range args[1:] {
			switch {
			case a == "-w" || a == "-a":
				write = true
			case !strings.HasPrefix(a, "-") || isDynamic(a):
				file = a
			}
		}
		if !write {
			return
		}
		if file == "" {
			if v, ok := ck.lookup("HISTFILE"); ok {
				file = v
			} else if _, assigned := ck.vars["HISTFILE"]; assigned {
				file = dynWord("$HISTFILE")
			} else {
				file = "~/.bash_history"
			}
		}
		ck.access(redirWrite{path: file, write: true, node: x})
		return
	}
	ck.report(x, r)
}

// builtinArgs returns the argv a builtin runs with when it is called
// through builtin or command (command -p too; command -v and -V only print).
func builtinArgs(args []string) []string {
	for len(args) > 0 && !isDynamic(args[0]) {
		switch args[0] {
		case "builtin":
			args = args[1:]
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
		case "command":
			rest := args[1:]
			for len(rest) > 0 && !isDynamic(rest[0]) && strings.HasPrefix(rest[0], "-") {
				if rest[0] == "--" {
					rest = rest[1:]
					break
				}
				if strings.ContainsAny(rest[0], "vV") {
					return nil
				}
				rest = rest[1:]
			}
			args = rest
		default:
			return args
		}
	}
	return args
}

// letArgs judges let's arguments given as words (builtin let, "let"):
// each is an arithmetic expression.
func (ck *checker) letArgs(x *syntax.CallExpr, args []string) {
	if !ck.realBash() {
		return
	}
	var r cornerRes
	for _, a := range args[1:] {
		if isDynamic(a) {
			ck.askData(&r, "let evaluates "+displayArg(a)+", which is not known before it runs")
			continue
		}
		ck.arithText(a, &r, 0)
	}
	ck.report(x, r)
}

// moveLinks follows mv of a link the script made: the link has a new name.
func (ck *checker) moveLinks(args []string) {
	bs := ck.bash
	if bs == nil || len(bs.links) == 0 || !ck.realBash() {
		return
	}
	ops := operands(args[1:], optSpec{short: "St", long: []string{"suffix", "target-directory"}})
	if len(ops) < 2 {
		return
	}
	e := pathEnv{dir: ck.dir, project: cleanAbs(ck.env.Project), home: cleanAbs(ck.env.Home)}
	dst := ops[len(ops)-1]
	dabs, ok := e.abs(dst)
	if !ok {
		return
	}
	for _, src := range ops[:len(ops)-1] {
		sabs, ok := e.abs(src)
		if !ok {
			continue
		}
		t, isLink := bs.links[sabs]
		if !isLink {
			continue
		}
		to := dabs
		if len(ops) > 2 || strings.HasSuffix(dst, "/") {
			to = dabs + "/" + path.Base(sabs)
		} else if fi, err := os.Stat(dabs); err == nil && fi.IsDir() {
			bs.links[dabs+"/"+path.Base(sabs)] = t
		}
		bs.links[to] = t
	}
}

// cdpathApplies reports whether cd DIR may search CDPATH: DIR is relative,
// does not start with . or .., and CDPATH is set (by the script or in the
// environment the command inherits). The directory cd reaches is then not
// known.
func (ck *checker) cdpathApplies(dir string) bool {
	if !ck.realBash() || dir == "" || strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") ||
		dir == "." || dir == ".." || strings.HasPrefix(dir, "./") || strings.HasPrefix(dir, "../") {
		return false
	}
	if v, assigned := ck.vars["CDPATH"]; assigned {
		return v != ""
	}
	if v, ok := ck.env.Env["CDPATH"]; ok {
		return v != ""
	}
	if ck.env.Environ != nil {
		v, set := ck.env.Environ("CDPATH")
		return set && v != ""
	}
	return false
}
