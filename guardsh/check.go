package guardsh

import (
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// CheckEnv describes where a script would run, for the static checker.
type CheckEnv struct {
	Dir     string            // working directory (absolute); "" means Project
	Project string            // project root (absolute)
	Home    string            // home directory, for ~ and $HOME
	Env     map[string]string // variables known to be set, e.g. TMPDIR
	// Environ, when set, is the environment the checked command will
	// inherit (the hook's is the agent's): a variable the script does not
	// assign that is not in it is unset when bash evaluates it.
	Environ func(name string) (string, bool)
	Via     string // how the script arrived ("check", "hook", ...); "" means "check"
}

// CommandVerdict is the verdict on one simple command of a script.
type CommandVerdict struct {
	Source string   `json:"source"` // the command as written
	Args   []string `json:"args"`   // normalised argv; words not known statically as written
	Line   uint     `json:"line"`
	Col    uint     `json:"col"`
	Verdict
}

// ScriptVerdict is the checker's answer on a whole script: the verdict of
// its most dangerous simple command, and every simple command's verdict.
type ScriptVerdict struct {
	Verdict
	Commands []CommandVerdict `json:"commands"`
}

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// CheckScript judges a script without running anything: every simple
// command (in chains, pipes, substitutions, subshells, functions, aliases,
// here-docs) after the expansion the checker can do statically. The
// verdict is the most dangerous command's. A script that does not parse
// is an error (and an ask verdict).
func (p *Policy) CheckScript(src string, env CheckEnv) (ScriptVerdict, error) {
	ck := newChecker(p, env, 0, src)
	if !ck.b.precheck(src) {
		v := ck.b.verdict(p)
		ck.record(CommandVerdict{Source: clip(src), Args: []string{clip(src)}, Line: 1, Col: 1, Verdict: v})
		return ScriptVerdict{Verdict: v, Commands: ck.out}, nil
	}
	if fb, ok := forkBomb(src); ok {
		ck.record(CommandVerdict{Source: fb, Args: []string{fb}, Line: 1, Col: 1, Verdict: ck.markUnseen(p.settle(judged(kOther, idForkBomb, fb)))})
	}
	stmts, err := ck.b.parse(src)
	ck.stmts(stmts, source{})
	if err != nil {
		// bash runs the statements before the error: they were checked
		ck.add(p.settle(judged(kOther, idParse, err.Error())))
	}
	ck.overBudget()
	sv := ScriptVerdict{Verdict: ck.total, Commands: ck.out}
	if !ck.has {
		sv.Verdict = verdictOf(idShellBuiltin, "no commands", Effects{})
	}
	return sv, err
}

// overBudget records the deny of a check that ran out of budget.
func (ck *checker) overBudget() {
	if ck.b.over == "" || ck.b.reported {
		return
	}
	ck.b.reported = true
	v := ck.b.verdict(ck.p)
	ck.markUnseen(v)
	ck.record(CommandVerdict{Source: clip(ck.src), Args: []string{clip(ck.src)}, Line: 1, Col: 1, Verdict: v})
}

// clip shortens a script for display.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// LineCheck judges a whole command line or script before it runs, for
// what the runner cannot judge command by command because no simple
// command carries it in its argv: fork bombs, and code fed to a shell or
// interpreter through a pipe, a here-doc, <(...) or $(...) (curl | sh,
// base64 -d | bash, python3 <<EOF ... EOF). ok is false when the line must
// not run; the verdict says why. Everything else is left to Classify as the
// commands run (a line that does not parse is left to the shell's own
// error).
func (p *Policy) LineCheck(src string, env CheckEnv) (v Verdict, ok bool) {
	if !strings.ContainsAny(src, "|<`(") {
		// no pipe, here-doc, substitution or function: nothing to see
		return Verdict{Decision: Allow, Rule: idShellBuiltin.String()}, true
	}
	ck := newChecker(p, env, 0, src)
	ck.out = nil
	if !ck.b.precheck(src) {
		return ck.b.verdict(p), false
	}
	if fb, found := forkBomb(src); found {
		return p.settle(judged(kOther, idForkBomb, fb)), false
	}
	stmts, err := ck.b.parse(src)
	if err != nil && ck.b.over == "" {
		return Verdict{Decision: Allow, Rule: idParse.String()}, true
	}
	ck.depth = 1 // no command list needed
	ck.stmts(stmts, source{})
	if ck.b.over != "" {
		return ck.b.verdict(p), false
	}
	if ck.hasUnseen {
		return ck.unseen, false
	}
	return Verdict{Decision: Allow, Rule: idShellBuiltin.String()}, true
}

// scriptVerdict checks shell code run by a command (sh -c, eval, su -c).
func (p *Policy) scriptVerdict(src string, c *Command, depth int) Verdict {
	return p.scriptVerdictArgs(src, c, depth, nil)
}

// scriptVerdictArgs is scriptVerdict with $0 and the positional
// parameters known (params[0] is $0); nil means they are not known.
func (p *Policy) scriptVerdictArgs(src string, c *Command, depth int, params []string) Verdict {
	return p.scriptVerdictIn(src, c, depth, params, nil)
}

// scriptVerdictIn is scriptVerdictArgs knowing the shell's standard input:
// bash -c 'bash' <<< CODE runs CODE, as every command of the script
// inherits that input.
func (p *Policy) scriptVerdictIn(src string, c *Command, depth int, params []string, stdin *source) Verdict {
	if depth > maxDepth {
		return p.settle(judged(kOther, idNesting, ""))
	}
	env := CheckEnv{Dir: c.Dir, Project: c.Project, Home: c.Home, Via: c.Via}
	ck := newChecker(p, env, depth, src)
	if c.budget != nil {
		ck.b = c.budget
	}
	ck.envFn = c.Env
	if c.links != nil {
		ck.links = c.links
	}
	if params != nil {
		ck.hasPar = true
		if len(params) > 0 {
			ck.setVar("0", params[0])
			ck.params = params[1:]
		}
	}
	if !ck.b.precheck(src) {
		return ck.b.verdict(p)
	}
	if fb, ok := forkBomb(src); ok {
		ck.add(p.settle(judged(kOther, idForkBomb, fb)))
	}
	stmts, err := ck.b.parse(src)
	in := source{}
	if stdin != nil {
		in = *stdin
	}
	ck.stmts(stmts, in)
	if err != nil {
		ck.add(p.settle(judged(kOther, idParse, err.Error())))
	}
	if ck.b.over != "" {
		ck.add(ck.b.verdict(p))
	}
	if !ck.has {
		return verdictOf(idShellBuiltin, "", Effects{})
	}
	return ck.total
}

// procFileWhat marks the source of a <(...) file argument, and procFile
// is the name bash gives it.
const (
	procFileWhat = "a <(...) file"
	procFile     = "/dev/fd/63"
)

// srcKind is what feeds a shell or interpreter its script.
type srcKind uint8

const (
	srcNone    srcKind = iota // nothing (the terminal)
	srcStatic                 // text known statically
	srcUnknown                // another command's output or a file
	srcDecoded                // decoded at run time (base64 -d, xxd -r)
	srcNetwork                // fetched from the network
)

type source struct {
	kind srcKind
	text string
	what string
}

func (a source) max(b source) source {
	if b.kind > a.kind {
		return b
	}
	return a
}

// unknownVal marks a variable whose value is not known statically.
const unknownVal = "\x00"

type checker struct {
	p       *Policy
	env     CheckEnv
	envFn   func(string) string
	dir     string   // current directory; "" when not known
	dirs    []string // pushd's stack
	vars    map[string]string
	funcs   map[string]*syntax.Stmt
	aliases map[string]string
	params  []string
	hasPar  bool
	depth   int
	calls   int
	src     string
	out     []CommandVerdict
	total   Verdict
	has     bool
	b       *checkBudget
	bash    *bashState // bash's own state the checker follows (check_bashcode.go)
	ecfg    *expand.Config
	// unseen is the strictest deny found in code the runner cannot judge
	// command by command (see LineCheck).
	unseen    Verdict
	hasUnseen bool
	seen      map[[2]uint]int // recorded commands by line and column
	// links are the symlinks the script has made so far (ln -s), by
	// absolute path: later commands' paths resolve through them.
	links map[string]string
}

func (ck *checker) markUnseen(v Verdict) Verdict {
	// plan mode's denials come back when the command itself is judged
	if v.Decision == Deny && v.Rule != idModePlan.String() && !ck.hasUnseen {
		ck.unseen, ck.hasUnseen = v, true
	}
	return v
}

func newChecker(p *Policy, env CheckEnv, depth int, src string) *checker {
	ck := &checker{p: p, env: env, depth: depth, src: src, b: newBudget(), links: map[string]string{}}
	ck.dir = env.Dir
	if ck.dir == "" {
		ck.dir = env.Project
	}
	return ck
}

func (ck *checker) add(v Verdict) {
	if !ck.has {
		ck.total, ck.has = v, true
		return
	}
	ck.total = combine(ck.total, v)
}

func (ck *checker) record(cv CommandVerdict) {
	ck.add(cv.Verdict)
	if ck.depth != 0 || len(ck.out) >= 10000 {
		return
	}
	// A loop body walked once per item lists each command once, with its
	// strictest verdict.
	key := [2]uint{cv.Line, cv.Col}
	if i, ok := ck.seen[key]; ok && ck.out[i].Source == cv.Source {
		if cv.Decision > ck.out[i].Decision {
			ck.out[i] = cv
		}
		return
	}
	if ck.seen == nil {
		ck.seen = map[[2]uint]int{}
	}
	ck.seen[key] = len(ck.out)
	ck.out = append(ck.out, cv)
}

// lookup returns a variable's value; ok is false when it is not known.
func (ck *checker) lookup(name string) (string, bool) {
	if v, ok := ck.vars[name]; ok {
		if v == unknownVal || v == numericVal {
			return "", false
		}
		return v, true
	}
	switch name {
	case "HOME":
		if ck.env.Home != "" {
			return ck.env.Home, true
		}
	case "PWD":
		if ck.dir != "" {
			return ck.dir, true
		}
	case "IFS":
		return " \t\n", true
	}
	if v, ok := ck.env.Env[name]; ok {
		return v, true
	}
	if ck.envFn != nil {
		if v := ck.envFn(name); v != "" {
			return v, true
		}
	}
	return "", false
}

func (ck *checker) setVar(name, val string) {
	if ck.vars == nil {
		ck.vars = map[string]string{}
	}
	if len(val) > maxTrackedValue {
		// a=$a$a, b=${a//?/$a}: values that grow are not followed (each
		// step would double or square what the checker holds)
		ck.b.spend(len(val) / 16)
		val = unknownVal
	}
	ck.vars[name] = val
}

// maxTrackedValue is the longest variable value the checker follows;
// a longer one is not known.
const maxTrackedValue = 4096

// ckEnv adapts the checker's variables for mvdan's expander.
type ckEnv struct{ ck *checker }

func (e ckEnv) Get(name string) expand.Variable {
	ck := e.ck
	// every value handed to the expander is work: a word that repeats
	// a long value many times runs out of budget, not out of memory
	switch name {
	case "@", "*":
		if !ck.b.spend(1 + len(ck.params)) {
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.Indexed, List: ck.params}
	case "#":
		return expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(len(ck.params))}
	}
	if name == "0" {
		if v, ok := ck.vars["0"]; ok && v != unknownVal && v != numericVal {
			return expand.Variable{Set: true, Kind: expand.String, Str: v}
		}
		return expand.Variable{}
	}
	if isNumber(name) {
		n, _ := strconv.Atoi(name)
		if n >= 1 && n <= len(ck.params) {
			return expand.Variable{Set: true, Kind: expand.String, Str: ck.params[n-1]}
		}
		return expand.Variable{}
	}
	if v, ok := ck.lookup(name); ok {
		if !ck.b.spend(1 + len(v)/16) {
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	return expand.Variable{}
}

func (e ckEnv) Each(fn func(name string, vr expand.Variable) bool) {}

func (ck *checker) cfg() *expand.Config {
	if ck.ecfg == nil {
		ck.ecfg = &expand.Config{Env: ckEnv{ck}}
	}
	return ck.ecfg
}

// isNumber reports whether s is all ASCII digits (a positional parameter).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainLit returns the value of a word that needs no expansion at all.
func plainLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.Lit:
		if strings.ContainsAny(x.Value, "\\~{") {
			return "", false
		}
		return x.Value, true
	case *syntax.SglQuoted:
		if !x.Dollar {
			return x.Value, true
		}
	}
	return "", false
}

// known reports whether a parameter expansion's value is known.
func (ck *checker) knownParam(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.NestedParam != nil || pe.Names != 0 {
		return false
	}
	if pe.Excl {
		// ${!x}: x names the variable
		ref, ok := ck.lookup(pe.Param.Value)
		if !ok || pe.Index != nil || pe.Exp != nil || pe.Slice != nil || pe.Repl != nil || pe.Length {
			return false
		}
		_, ok = ck.lookup(ref)
		return ok
	}
	name := pe.Param.Value
	switch name {
	case "@", "*", "#":
		return ck.hasPar
	case "?", "$", "!", "-", "_", "RANDOM", "LINENO", "SECONDS", "BASHPID", "PPID", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM":
		return false
	}
	if name == "0" {
		_, ok := ck.vars["0"]
		return ok && ck.vars["0"] != unknownVal && ck.vars["0"] != numericVal
	}
	if isNumber(name) {
		return ck.hasPar
	}
	if _, ok := ck.lookup(name); !ok {
		// ${X:-default} with X unknown is still unknown
		return false
	}
	if pe.Index != nil {
		return false
	}
	if pe.Exp != nil && pe.Exp.Word != nil && !ck.staticWord(pe.Exp.Word) {
		return false
	}
	if pe.Repl != nil && (pe.Repl.Orig != nil && !ck.staticWord(pe.Repl.Orig) || pe.Repl.With != nil && !ck.staticWord(pe.Repl.With)) {
		return false
	}
	return true
}

// staticParts reports whether word parts are known statically.
func (ck *checker) staticParts(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob, *syntax.BraceExp:
		case *syntax.DblQuoted:
			if !ck.staticParts(x.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if !ck.knownParam(x) {
				return false
			}
		case *syntax.ArithmExp:
			if !ck.staticArith(x.X) {
				return false
			}
		case *syntax.ProcSubst:
			return false
		default:
			return false
		}
	}
	return true
}

func (ck *checker) staticArith(x syntax.ArithmExpr) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			ok = false
		case *syntax.ParamExp:
			if !ck.knownParam(n) {
				ok = false
			}
		case *syntax.Lit:
			// a bare name in arithmetic is a variable
			if n.Value != "" && (n.Value[0] < '0' || n.Value[0] > '9') {
				if _, known := ck.lookup(n.Value); !known {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

func (ck *checker) staticWord(w *syntax.Word) bool { return w == nil || ck.staticParts(w.Parts) }

// substs checks every command and process substitution inside node n and
// returns what they produce (for pipe-to-shell analysis).
func (ck *checker) substs(n syntax.Node) source {
	var src source
	if isNilNode(n) {
		return src
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if !ck.b.spend(1) {
			return false
		}
		switch x := node.(type) {
		case *syntax.CmdSubst:
			ck.stmts(x.Stmts, source{})
			src = src.max(ck.stmtsSource(x.Stmts))
			return false
		case *syntax.ProcSubst:
			ck.stmts(x.Stmts, source{})
			src = src.max(ck.stmtsSource(x.Stmts))
			return false
		}
		return true
	})
	return src
}

// isNilNode reports whether n is nil, also as a typed nil pointer (an
// Assign's Array or Index, a loop's missing clause).
func isNilNode(n syntax.Node) bool {
	switch x := n.(type) {
	case nil:
		return true
	case *syntax.Word:
		return x == nil
	case *syntax.ArrayExpr:
		return x == nil
	case *syntax.CStyleLoop:
		return x == nil
	case *syntax.Stmt:
		return x == nil
	case *syntax.Redirect:
		return x == nil
	case *syntax.Assign:
		return x == nil
	case *syntax.CallExpr:
		return x == nil
	case *syntax.BinaryArithm:
		return x == nil
	case *syntax.UnaryArithm:
		return x == nil
	case *syntax.ParenArithm:
		return x == nil
	case *syntax.BinaryTest:
		return x == nil
	case *syntax.UnaryTest:
		return x == nil
	case *syntax.ParenTest:
		return x == nil
	}
	return false
}

// wordSrc returns the source text of a node.
func (ck *checker) text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(ck.src) || s > e {
		return ""
	}
	return ck.src[s:e]
}

// fields expands words to argv. Words not known statically become
// placeholders (dynWord); srcs tells, per field, what command
// substitutions produced it.
func (ck *checker) fields(words []*syntax.Word) (args []string, srcs []source) {
	ck.b.spend(len(words))
	args = make([]string, 0, len(words))
	srcs = make([]source, 0, len(words))
	for _, w := range words {
		if v, ok := plainLit(w); ok {
			args = append(args, v)
			srcs = append(srcs, source{})
			continue
		}
		cfg := ck.cfg()
		sub := ck.substs(w)
		if ck.staticParts(w.Parts) {
			fs, err := expand.Fields(cfg, w)
			if err == nil {
				for _, f := range fs {
					args = append(args, f)
					srcs = append(srcs, source{})
				}
				continue
			}
		}
		if len(w.Parts) == 1 {
			if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok {
				args = append(args, procFile)
				// the file's content: static when the substitution
				// only prints known text, else another command's output
				fs := ck.stmtsSource(ps.Stmts)
				switch fs.kind {
				case srcStatic:
					fs.what = procFileWhat
				case srcNone, srcUnknown:
					fs = source{kind: srcUnknown, what: procFileWhat}
				}
				srcs = append(srcs, fs)
				continue
			}
		}
		if name, ok := ck.whichSubst(w); ok {
			args = append(args, name)
			srcs = append(srcs, source{})
			continue
		}
		if text, quoted, ok := ck.substText(w); ok {
			if quoted {
				args = append(args, text)
				srcs = append(srcs, source{})
			} else {
				for _, f := range strings.Fields(text) {
					args = append(args, f)
					srcs = append(srcs, source{})
				}
			}
			continue
		}
		args = append(args, ck.dynamic(w))
		if sub.kind == srcNone {
			sub.kind = srcUnknown
		}
		srcs = append(srcs, sub)
	}
	return args, srcs
}

// dynamic makes the placeholder for a word not known statically. A word
// whose known prefix is "/" or home ("/$X", "~/$X") stands for anything
// below it.
func (ck *checker) dynamic(w *syntax.Word) string {
	src := ck.text(w)
	// ${X:-/} with X unknown may well be its default: a dangerous default
	// (/, home, a system directory) is taken as the value.
	if len(w.Parts) == 1 {
		part := w.Parts[0]
		if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			part = dq.Parts[0]
		}
		if pe, ok := part.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Exp.Word != nil &&
			(pe.Exp.Op == syntax.DefaultUnset || pe.Exp.Op == syntax.DefaultUnsetOrNull) && ck.staticWord(pe.Exp.Word) {
			if d, err := expand.Literal(ck.cfg(), pe.Exp.Word); err == nil {
				if strings.HasPrefix(d, "~") && ck.env.Home != "" {
					d = ck.env.Home + d[1:]
				}
				e := pathEnv{dir: ck.dir, project: cleanAbs(ck.env.Project), home: cleanAbs(ck.env.Home)}
				switch e.resolve(d).loc {
				case locRoot, locHome, locSystem:
					return d
				}
			}
		}
	}
	var pre strings.Builder
	for _, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) > 0 {
				if l, ok := dq.Parts[0].(*syntax.Lit); ok {
					pre.WriteString(l.Value)
				} else if pe, ok := dq.Parts[0].(*syntax.ParamExp); ok && ck.knownParam(pe) {
					v, _ := ck.lookup(pe.Param.Value)
					pre.WriteString(v)
					if len(dq.Parts) > 1 {
						if l, ok := dq.Parts[1].(*syntax.Lit); ok {
							pre.WriteString(l.Value)
						}
					}
				}
			} else if pe, ok := part.(*syntax.ParamExp); ok && ck.knownParam(pe) {
				v, _ := ck.lookup(pe.Param.Value)
				pre.WriteString(v)
				continue
			}
			break
		}
		pre.WriteString(lit.Value)
	}
	p := pre.String()
	if strings.HasPrefix(p, "~") && ck.env.Home != "" {
		p = ck.env.Home + p[1:]
	}
	if p == "/" || ck.env.Home != "" && p == ck.env.Home+"/" {
		return p + "*"
	}
	return dynWord(src)
}

// substText returns the output of a word that is one command substitution
// whose output is known statically ($(echo rm -rf /), "$(printf x)"), and
// whether it was double-quoted.
func (ck *checker) substText(w *syntax.Word) (text string, quoted, ok bool) {
	if len(w.Parts) != 1 {
		return "", false, false
	}
	part := w.Parts[0]
	if dq, isDQ := part.(*syntax.DblQuoted); isDQ && len(dq.Parts) == 1 {
		part, quoted = dq.Parts[0], true
	}
	cs, isCS := part.(*syntax.CmdSubst)
	if !isCS || len(cs.Stmts) == 0 {
		return "", false, false
	}
	src := ck.stmtsSource(cs.Stmts)
	if src.kind != srcStatic {
		return "", false, false
	}
	return strings.TrimRight(src.text, "\n"), quoted, true
}

// soleSubstCall returns the simple command of a word that is nothing but
// one command substitution, "$(cmd ...)" or $(cmd ...), or nil.
func soleSubstCall(w *syntax.Word) *syntax.CallExpr {
	if len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	cs, ok := part.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return nil
	}
	call, _ := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	return call
}

// whichSubst resolves $(which rm), $(command -v rm), `type -p rm`.
func (ck *checker) whichSubst(w *syntax.Word) (string, bool) {
	call := soleSubstCall(w)
	if call == nil || len(call.Args) < 2 {
		return "", false
	}
	var words []string
	for _, a := range call.Args {
		l := a.Lit()
		if l == "" {
			return "", false
		}
		words = append(words, l)
	}
	switch {
	case words[0] == "which" || words[0] == "whereis" || words[0] == "realpath":
	case (words[0] == "command" || words[0] == "type") && (words[1] == "-v" || words[1] == "-p" || words[1] == "-P"):
		words = words[1:]
	default:
		return "", false
	}
	return words[len(words)-1], true
}

func (ck *checker) stmts(list []*syntax.Stmt, in source) {
	for _, s := range list {
		ck.stmt(s, in)
	}
}

func (ck *checker) stmt(s *syntax.Stmt, in source) {
	if s == nil || !ck.b.step() {
		return
	}
	ck.corners(s) // check_bashcode.go
	// Redirections: files read and written, here-docs feeding stdin.
	var writes []redirWrite
	for _, r := range s.Redirs {
		if r.Hdoc != nil {
			hsrc := ck.substs(r.Hdoc)
			text, ok := ck.document(r.Hdoc)
			switch {
			case ok:
				in = source{kind: srcStatic, text: text}
			default:
				in = hsrc.max(source{kind: srcUnknown})
			}
			continue
		}
		switch r.Op {
		case syntax.WordHdoc:
			args, srcs := ck.fields([]*syntax.Word{r.Word})
			if len(args) == 1 && !isDynamic(args[0]) {
				in = source{kind: srcStatic, text: args[0]}
			} else {
				in = source{kind: srcUnknown}
				for _, s := range srcs {
					in = in.max(s)
				}
			}
		case syntax.RdrIn:
			args, _ := ck.fields([]*syntax.Word{r.Word})
			if len(args) == 1 {
				writes = append(writes, redirWrite{path: args[0], write: false, node: r})
			}
			in = source{kind: srcUnknown, what: "file"}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.RdrAllClob, syntax.AppAllClob:
			args, _ := ck.fields([]*syntax.Word{r.Word})
			if len(args) == 1 {
				writes = append(writes, redirWrite{path: args[0], write: true, node: r})
			}
		case syntax.DplOut, syntax.DplIn:
			// >&2, <&0, >&- : file descriptors, or a file for ">& file"
			if l := r.Word.Lit(); l != "" && l != "-" && strings.Trim(l, "0123456789-") != "" {
				args, _ := ck.fields([]*syntax.Word{r.Word})
				if len(args) == 1 {
					writes = append(writes, redirWrite{path: args[0], write: r.Op == syntax.DplOut, node: r})
				}
			}
		default:
			ck.substs(r.Word)
		}
	}
	for _, w := range writes {
		ck.access(w)
		if t, ok := ck.throughLink(w.path, false); ok {
			w.path = t
			ck.access(w)
		}
	}
	ck.command(s, in)
}

type redirWrite struct {
	path  string
	write bool
	node  syntax.Node
}

// symlink records the links ln -s makes (ln's arguments): TARGET LINK,
// TARGET... DIR, or TARGET alone (a link in the working directory). A
// target not known statically makes everything below the link unknown.
func (ck *checker) symlink(args []string) {
	sym, noDeref := false, false
	dir := "" // -t DIR, --target-directory=DIR
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "--symbolic":
			sym = true
		case a == "--no-dereference":
			noDeref = true
		case strings.HasPrefix(a, "--target-directory="):
			dir = a[len("--target-directory="):]
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && a[0] == '-' && !isDynamic(a):
			sym = sym || strings.ContainsRune(a, 's')
			noDeref = noDeref || strings.ContainsRune(a, 'n')
			if strings.HasSuffix(a, "t") && i+1 < len(args) {
				i++
				dir = args[i]
			}
		default:
			ops = append(ops, a)
		}
	}
	if !sym || len(ops) == 0 {
		return
	}
	e := pathEnv{dir: ck.dir, home: cleanAbs(ck.env.Home)}
	add := func(target, link string) {
		l, ok := e.abs(link)
		if !ok {
			return
		}
		if isDynamic(target) {
			target = unknownLink
		}
		if ck.links == nil {
			ck.links = map[string]string{}
		}
		ck.links[l] = target
	}
	inDir := func(d string) {
		for _, t := range ops {
			add(t, strings.TrimSuffix(d, "/")+"/"+path.Base(t))
		}
	}
	switch {
	case dir != "":
		inDir(dir)
	case len(ops) == 1:
		add(ops[0], path.Base(ops[0]))
	case len(ops) > 2:
		last := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		inDir(last)
	default:
		// ln -s T L; L an existing directory (not with -n when it is a
		// link) gets the link inside
		if l, ok := e.abs(ops[1]); ok && !noDeref {
			if fi, err := os.Stat(l); err == nil && fi.IsDir() {
				ops = ops[:1]
				inDir(l)
				return
			}
		}
		add(ops[0], ops[1])
	}
}

// access judges a redirection's file.
func (ck *checker) access(w redirWrite) {
	var v Verdict
	if isDynamic(w.path) {
		if w.write {
			v = ck.p.settle(judged(kOther, idWriteOutside, "redirection target not known before it runs: "+displayArg(w.path)))
		} else {
			v = ck.p.settle(judged(kRead, idReadOutside, "redirection source not known before it runs: "+displayArg(w.path)))
		}
	} else {
		e := pathEnv{dir: ck.dir, project: cleanAbs(ck.env.Project), home: cleanAbs(ck.env.Home), links: ck.links}
		j, ok := e.joined(w.path)
		re := e.realEnv()
		var real string
		if ok {
			real, ok = realPath(j, re.dir, ck.links)
		}
		if !ok {
			v = ck.p.settle(judged(kOther, idWriteOutside, "path not known: "+w.path))
		} else {
			env := func(n string) string { v, _ := ck.lookup(n); return v }
			v = ck.p.ClassifyAccess(Access{Path: w.path, Resolved: real, Inside: re.project == "" || within(real, re.project), Write: w.write, Dir: ck.dir, Project: ck.env.Project, Home: ck.env.Home, Via: "redirect", Env: env})
		}
	}
	op := "<"
	if w.write {
		op = ">"
	}
	pos := w.node.Pos()
	ck.record(CommandVerdict{Source: ck.text(w.node), Args: []string{op, displayArg(w.path)}, Line: pos.Line(), Col: pos.Col(), Verdict: v})
}

// document expands a here-doc body; ok is false if it is not static.
func (ck *checker) document(w *syntax.Word) (string, bool) {
	if !ck.staticParts(w.Parts) {
		return "", false
	}
	s, err := expand.Document(ck.cfg(), w)
	return s, err == nil
}

func (ck *checker) command(s *syntax.Stmt, in source) {
	switch x := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		ck.call(s, x, in)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			ck.stmt(x.X, in)
			ck.stmt(x.Y, ck.stmtSource(x.X))
		default:
			ck.stmt(x.X, in)
			ck.stmt(x.Y, in)
		}
	case *syntax.Block:
		ck.stmts(x.Stmts, in)
	case *syntax.Subshell:
		saved, savedDir := ck.copyVars(), ck.dir
		ck.stmts(x.Stmts, in)
		ck.vars, ck.dir = saved, savedDir
	case *syntax.IfClause:
		for c := x; c != nil; c = c.Else {
			ck.stmts(c.Cond, in)
			ck.stmts(c.Then, in)
		}
	case *syntax.WhileClause:
		ck.stmts(x.Cond, in)
		ck.stmts(x.Do, in)
	case *syntax.ForClause:
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			var items []string
			if l.InPos.IsValid() {
				items, _ = ck.fields(l.Items)
			} else if ck.hasPar {
				items = ck.params
			} else {
				items = []string{dynWord(`"$@"`)}
			}
			static := len(items) <= 16
			for _, it := range items {
				if isDynamic(it) {
					static = false
				}
			}
			if static && len(items) > 0 {
				for _, it := range items {
					ck.setVar(l.Name.Value, it)
					ck.stmts(x.Do, in)
				}
				return
			}
			numeric := l.InPos.IsValid() && len(l.Items) > 0
			for _, w := range l.Items {
				numeric = numeric && ck.numericWord(w)
			}
			if numeric {
				ck.setNum(l.Name.Value)
			} else {
				ck.setVar(l.Name.Value, unknownVal)
			}
			ck.stmts(x.Do, in)
		case *syntax.CStyleLoop:
			ck.substs(l)
			syntax.Walk(l, func(n syntax.Node) bool {
				if a, ok := n.(*syntax.BinaryArithm); ok {
					if w, ok := a.X.(*syntax.Word); ok {
						if lit := w.Lit(); lit != "" {
							ck.setNum(lit) // assigned by arithmetic
						}
					}
				}
				return true
			})
			ck.stmts(x.Do, in)
		}
	case *syntax.CaseClause:
		ck.substs(x.Word)
		for _, it := range x.Items {
			for _, pat := range it.Patterns {
				ck.substs(pat)
			}
			ck.stmts(it.Stmts, in)
		}
	case *syntax.FuncDecl:
		name := ""
		if x.Name != nil {
			name = x.Name.Value
		}
		if name != "" {
			if ck.funcs == nil {
				ck.funcs = map[string]*syntax.Stmt{}
			}
			ck.funcs[name] = x.Body
			if name == "command_not_found_handle" && ck.realBash() && ck.calls < 32 {
				// bash runs it for any command it does not find: judged
				// as if it ran
				ck.calls++
				ck.stmt(x.Body, in)
			}
			if selfSpawning(name, x.Body) {
				pos := x.Pos()
				ck.record(CommandVerdict{Source: ck.text(x), Args: []string{name + "()"}, Line: pos.Line(), Col: pos.Col(), Verdict: ck.markUnseen(ck.p.settle(judged(kOther, idForkBomb, name)))})
			}
		}
	case *syntax.ArithmCmd:
		ck.substs(x.X)
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			ck.substs(e)
		}
	case *syntax.TestClause:
		ck.substs(x.X)
	case *syntax.DeclClause:
		ck.assigns(x.Args, true)
		ck.guardshAssigns(s, x, x.Args)
		ck.strictExports(s, x)
	case *syntax.TimeClause:
		ck.stmt(x.Stmt, in)
	case *syntax.CoprocClause:
		ck.stmt(x.Stmt, in)
	default:
		ck.substs(s.Cmd)
	}
}

func (ck *checker) copyVars() map[string]string {
	if ck.vars == nil {
		return nil
	}
	m := make(map[string]string, len(ck.vars))
	for k, v := range ck.vars {
		m[k] = v
	}
	return m
}

// assigns follows variable assignments.
func (ck *checker) assigns(list []*syntax.Assign, decl bool) {
	for _, a := range list {
		if a.Name == nil {
			if a.Value != nil {
				ck.substs(a.Value)
			}
			continue
		}
		name := a.Name.Value
		if a.Array != nil || a.Index != nil {
			if a.Array != nil {
				ck.substs(a.Array)
			}
			if a.Index != nil {
				ck.substs(a.Index)
			}
			if a.Value != nil {
				ck.substs(a.Value)
			}
			ck.setVar(name, unknownVal)
			continue
		}
		if a.Naked {
			continue
		}
		val := ""
		if a.Value != nil {
			ck.substs(a.Value)
			if p, ok := ck.mktempSubst(a.Value); ok {
				ck.setVar(name, p)
				continue
			}
			v, ok := ck.assignValue(a.Value)
			if !ok {
				if !a.Append && ck.numericWord(a.Value) {
					ck.setNum(name)
				} else {
					ck.setVar(name, unknownVal)
				}
				continue
			}
			val = v
		}
		if a.Append {
			old, ok := ck.lookup(name)
			if !ok {
				ck.setVar(name, unknownVal)
				continue
			}
			val = old + val
		}
		ck.setVar(name, val)
	}
}

// mktempSubst recognises X=$(mktemp ...): X names a new file or directory
// in the temp dir.
func (ck *checker) mktempSubst(w *syntax.Word) (string, bool) {
	call := soleSubstCall(w)
	if call == nil || len(call.Args) == 0 || call.Args[0].Lit() != "mktemp" {
		return "", false
	}
	for _, a := range call.Args[1:] {
		l := a.Lit()
		if l == "" || !strings.HasPrefix(l, "-") || strings.HasPrefix(l, "-p") || strings.HasPrefix(l, "--tmpdir=") {
			return "", false // a template or directory of its own
		}
	}
	base := "/tmp"
	if t, ok := ck.lookup("TMPDIR"); ok && strings.HasPrefix(t, "/") && t != "/" {
		base = strings.TrimRight(t, "/")
	}
	return base + "/tmp.mktemp", true
}

// assignValue expands an assignment's value (tilde at the start too).
func (ck *checker) assignValue(w *syntax.Word) (string, bool) {
	if !ck.staticParts(w.Parts) {
		return "", false
	}
	s, err := expand.Literal(ck.cfg(), w)
	if err != nil {
		return "", false
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") && ck.env.Home != "" {
		if s == "~" || strings.HasPrefix(s, "~/") {
			s = ck.env.Home + s[1:]
		}
	}
	return s, true
}

// guardshAssigns judges assignments of GUARDSH_* variables (they would
// reach nested guardsh shells) like export NAME=VALUE.
func (ck *checker) guardshAssigns(s *syntax.Stmt, n syntax.Node, list []*syntax.Assign) {
	for _, a := range list {
		if a.Name == nil || !strings.HasPrefix(a.Name.Value, "GUARDSH_") {
			continue
		}
		v, ok := ck.lookup(a.Name.Value)
		if !ok {
			v = "?"
		}
		cmd := Command{Args: []string{"export", a.Name.Value + "=" + v}, Dir: ck.dir, Project: ck.env.Project, Home: ck.env.Home, Via: "check", links: ck.links}
		pos := s.Pos()
		ck.record(CommandVerdict{Source: ck.text(n), Args: cmd.Args, Line: pos.Line(), Col: pos.Col(), Verdict: ck.p.classifyArgs(&cmd, cmd.Args, ck.depth, false)})
	}
}

// codeRunners are commands that run text as code.
var codeRunners = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"tcsh": true, "csh": true, "yash": true, "rbash": true, "python": true, "python2": true, "python3": true,
	"pypy": true, "node": true, "nodejs": true, "perl": true, "ruby": true, "php": true, "lua": true, "deno": true,
	"bun": true, "eval": true, "source": true, ".": true, "osascript": true, "pwsh": true, "powershell": true,
	"tclsh": true, "irb": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "busybox": true,
}

var shellNames = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
	"tcsh": true, "csh": true, "yash": true, "rbash": true, "posh": true,
}

func (ck *checker) call(s *syntax.Stmt, x *syntax.CallExpr, in source) {
	if len(x.Args) == 0 {
		ck.assigns(x.Assigns, false)
		ck.guardshAssigns(s, x, x.Assigns)
		return
	}
	// Prefix assignments apply to the command's environment only.
	var prefix map[string]string
	var guardshVars []string
	for _, a := range x.Assigns {
		if a.Name == nil {
			continue
		}
		if a.Value != nil {
			ck.substs(a.Value)
		}
		if prefix == nil {
			prefix = map[string]string{}
		}
		v, ok := "", true
		if a.Value != nil {
			v, ok = ck.assignValue(a.Value)
		}
		if !ok {
			v = unknownVal
		}
		prefix[a.Name.Value] = v
		if strings.HasPrefix(a.Name.Value, "GUARDSH_") && v != unknownVal {
			guardshVars = append(guardshVars, a.Name.Value+"="+v)
		}
	}
	// Aliases replace the first word.
	if lit := x.Args[0].Lit(); lit != "" && ck.aliases != nil && ck.calls < 16 {
		if val, ok := ck.aliases[lit]; ok {
			rest := ""
			if len(x.Args) > 1 {
				s, e := int(x.Args[1].Pos().Offset()), int(x.End().Offset())
				if s >= 0 && s <= e && e <= len(ck.src) {
					rest = " " + ck.src[s:e]
				}
			}
			ck.calls++
			ck.nested(val+rest, in, true)
			return
		}
	}
	args, srcs := ck.fields(x.Args)
	if len(args) == 0 {
		return
	}
	pos := s.Pos()
	// hash -p or BASH_CMDS set the program a name runs (check_bashcode.go)
	args = ck.hashedArgs(args)
	name := args[0]
	// builtins run as words (builtin read, command hash, "let")
	if eff := builtinArgs(args); len(eff) > 0 { // check_bashcode.go
		ck.nameArgs(x, eff[0], eff)
		ck.callbacks(x, eff[0], eff)
		if len(eff) < len(args) {
			switch eff[0] {
			case "hash":
				ck.noteHash(s, x, eff)
			case "enable":
				ck.noteEnable(s, x, eff)
			case "trap":
				ck.trapBody(s, x, eff)
			}
		}
		if eff[0] == "let" {
			ck.letArgs(x, eff)
		}
	}
	if baseName(cmdName(name)) == "env" {
		ck.envAssigns(x, args)
	}
	cmd := Command{Args: args, Dir: ck.dir, Project: ck.env.Project, Home: ck.env.Home, Via: ck.env.Via, budget: ck.b, links: ck.links,
		NameEscaped: len(x.Args) > 0 && WordEscaped(x.Args[0])}
	if len(x.Args) > 1 {
		cmd.EscapedWords = EscapedWords(x.Args[1:])
	}
	if cmd.Via == "" {
		cmd.Via = "check"
	}
	cmd.Env = func(n string) string {
		if v, ok := prefix[n]; ok {
			if v == unknownVal {
				return ""
			}
			return v
		}
		v, _ := ck.lookup(n)
		return v
	}
	if !isDynamic(name) {
		// Calls of functions defined in the script are judged by their body.
		if body, ok := ck.funcs[name]; ok && ck.calls < 32 {
			ck.calls++
			saved, savedHas := ck.params, ck.hasPar
			ck.params, ck.hasPar = args[1:], true
			ck.stmt(body, in)
			ck.params, ck.hasPar = saved, savedHas
			return
		}
		switch name {
		case "source", ".":
			// activating a venv: later pip/python run from it
			if len(args) > 1 && !isDynamic(args[1]) && strings.HasSuffix(args[1], "/bin/activate") {
				e := pathEnv{dir: ck.dir, home: ck.env.Home}
				if d, ok := e.abs(strings.TrimSuffix(args[1], "/bin/activate")); ok {
					ck.setVar("VIRTUAL_ENV", d)
				}
			}
		case "alias":
			for _, a := range args[1:] {
				if k, v, ok := strings.Cut(a, "="); ok && !isDynamic(a) {
					if ck.aliases == nil {
						ck.aliases = map[string]string{}
					}
					ck.aliases[k] = v
				}
			}
		case "popd":
			if n := len(ck.dirs); n > 0 {
				ck.dir, ck.dirs = ck.dirs[n-1], ck.dirs[:n-1]
			} else {
				ck.dir = ""
			}
		case "cd", "pushd":
			if name == "pushd" {
				ck.dirs = append(ck.dirs, ck.dir)
			}
			if ck.dir != "" {
				ck.setVar("OLDPWD", ck.dir)
			} else {
				ck.setVar("OLDPWD", unknownVal)
			}
			ops := operands(args[1:], optSpec{})
			switch {
			case len(ops) == 0:
				ck.dir = ck.env.Home
			case isDynamic(ops[0]) || ops[0] == "-" || ck.cdpathApplies(ops[0]):
				ck.dir = ""
			default:
				e := pathEnv{dir: ck.dir, home: ck.env.Home}
				op := ops[0]
				if t, ok := ck.throughLink(op, false); ok {
					op = t
				}
				if d, ok := e.abs(op); ok {
					ck.dir = d
				} else {
					ck.dir = ""
				}
			}
		case "read", "mapfile", "readarray", "getopts", "printf":
			for k := 1; k < len(args); k++ {
				a := args[k]
				if name == "printf" {
					if a == "-v" && k+1 < len(args) {
						ck.setVar(args[k+1], unknownVal)
					}
					continue
				}
				if !strings.HasPrefix(a, "-") && !isDynamic(a) {
					ck.setVar(a, unknownVal)
				}
			}
		case "set":
			for k, a := range args[1:] {
				if a == "--" {
					ck.params, ck.hasPar = append([]string(nil), args[k+2:]...), true
					if len(ck.params) > maxTrackedValue/16 {
						// set -- "$@" "$@": not followed, as setVar
						ck.params, ck.hasPar = nil, false
					}
					break
				}
			}
		case "shift":
			if ck.hasPar && len(ck.params) > 0 {
				ck.params = ck.params[1:]
			}
		case "hash":
			ck.noteHash(s, x, args)
		case "enable":
			ck.noteEnable(s, x, args)
		case "trap":
			ck.trapBody(s, x, args)
		case "eval":
			if ck.bash != nil && ck.bash.ifs && ck.realBash() {
				ck.recordCall(s, x, args, ck.p.settle(judged(kOther, idCodeEvalDynamic, "IFS was changed before this eval: the words it joins and splits are not the ones written")), pos)
			}
			var b strings.Builder
			dyn := false
			for k, a := range args[1:] {
				if isDynamic(a) {
					dyn = true
				}
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(a)
			}
			if !dyn {
				ck.recordCall(s, x, args, ck.nested(b.String(), in, false), pos)
				return
			}
		}
	}
	var stdin *source
	if in.kind != srcNone {
		stdin = &in
	}
	cargs := args
	if len(guardshVars) > 0 {
		cargs = append(append([]string(nil), guardshVars...), args...)
	}
	v := ck.p.classifyArgsIn(&cmd, cargs, ck.depth, false, stdin)
	if name == "ln" {
		ck.symlink(args[1:]) // later commands' paths resolve through the link
	}
	if alt, ok := ck.followLinks(baseName(cmdName(name)), cargs); ok {
		// a path through a link the script made: judged as what it
		// points to too, and the more dangerous reading wins
		alt := alt
		cmd2 := cmd
		cmd2.Args = alt
		v = combine(v, ck.p.classifyArgsIn(&cmd2, alt, ck.depth, false, stdin))
	}
	if n := NormalizeArgv(args); len(n) > 0 {
		switch baseName(cmdName(n[0])) {
		case "ln":
			ck.noteLinks(n)
		case "mv":
			ck.moveLinks(n)
		}
	}
	if isDynamic(name) && srcs[0].kind >= srcDecoded {
		v = combine(v, ck.markUnseen(ck.pipeDeny(srcs[0], "the shell")))
	}
	// Code fed to shells and interpreters: pipes, here-docs, <(...), $(...).
	norm := NormalizeArgv(args)
	if len(norm) > 0 && codeRunners[baseName(cmdName(norm[0]))] {
		v = ck.codeFeed(v, &cmd, norm, args, srcs, in, numberedRedir(s))
	}
	ck.recordCall(s, x, args, v, pos)
}

func (ck *checker) recordCall(s *syntax.Stmt, x *syntax.CallExpr, args []string, v Verdict, pos syntax.Pos) {
	norm := NormalizeArgv(args)
	if len(norm) == 0 {
		norm = args
	}
	disp := make([]string, len(norm))
	for i, a := range norm {
		disp[i] = displayArg(a)
	}
	ck.record(CommandVerdict{Source: ck.text(x), Args: disp, Line: pos.Line(), Col: pos.Col(), Verdict: v})
}

// nested checks text as shell code in this checker's context (aliases,
// eval) and returns its verdict.
func (ck *checker) nested(text string, in source, alias bool) Verdict {
	if ck.depth >= maxDepth {
		return ck.p.settle(judged(kOther, idNesting, ""))
	}
	stmts, err := ck.b.parse(text)
	sub := &checker{p: ck.p, env: ck.env, envFn: ck.envFn, dir: ck.dir, vars: ck.vars, funcs: ck.funcs, aliases: ck.aliases,
		params: ck.params, hasPar: ck.hasPar, depth: ck.depth + 1, calls: ck.calls + 1, src: text, b: ck.b, bash: ck.bash}
	if alias {
		// an alias is not expanded again inside itself
		sub.aliases = nil
	}
	sub.stmts(stmts, in)
	if err != nil {
		sub.add(ck.p.settle(judged(kOther, idParse, err.Error())))
	}
	if ck.b.over != "" {
		sub.add(ck.b.verdict(ck.p))
	}
	ck.vars, ck.funcs, ck.dir, ck.bash = sub.vars, sub.funcs, sub.dir, sub.bash
	if sub.hasUnseen {
		ck.markUnseen(sub.unseen)
	}
	if !sub.has {
		return verdictOf(idShellBuiltin, "", Effects{})
	}
	if alias {
		ck.add(sub.total)
		if ck.depth == 0 {
			ck.out = append(ck.out, sub.out...)
		}
	}
	return sub.total
}

// codeFeed judges the code a shell or interpreter is fed: from a pipe or
// here-doc on stdin, a <(...) file argument, or a $(...) in its code
// argument. Code from the network or decoded at run time is denied;
// unknown code asks; static code is checked.
//
// fdRedir says the statement redirects a numbered descriptor above 2,
// which may replace the one bash gives a <(...) file (bash <(echo ls)
// 63<<< CODE runs CODE).
func (ck *checker) codeFeed(v Verdict, cmd *Command, norm, args []string, srcs []source, in source, fdRedir bool) Verdict {
	name := baseName(cmdName(norm[0]))
	// Anything fetched or decoded in an argument of a code runner.
	worst := source{}
	for _, s := range srcs {
		worst = worst.max(s)
	}
	if worst.kind >= srcDecoded {
		return combine(v, ck.markUnseen(ck.pipeDeny(worst, name)))
	}
	if shellNames[name] || name == "eval" {
		for _, s := range srcs {
			if s.kind == srcStatic && s.text != "" {
				v = combine(v, ck.markUnseen(ck.p.scriptVerdict(s.text, cmd, ck.depth+1)))
			}
		}
	}
	// A <(...) file given to a shell or to source is its script (or a
	// file it may source): bash runs what the substitution prints.
	if shellNames[name] || name == "source" || name == "." {
		for _, s := range srcs {
			if s.what != procFileWhat {
				continue
			}
			switch {
			case fdRedir:
				j := judged(kOther, idShellStdin, name+" reads a <(...) file while the command redirects other descriptors")
				v = combine(v, ck.p.settle(j))
			case s.kind == srcStatic && s.text != "":
				v = combine(v, ck.markUnseen(ck.p.scriptVerdict(s.text, cmd, ck.depth+1)))
			case s.kind == srcUnknown:
				j := judged(kOther, idShellStdin, name+" reads a script from a <(...) file guardsh cannot see")
				v = combine(v, ck.p.settle(j))
			}
		}
	}
	// A script read from another file descriptor (bash /dev/fd/3
	// 3<<< CODE, exec 3<...; source /dev/fd/3): guardsh does not follow
	// what each descriptor holds.
	if op, ok := scriptOperand(name, norm); ok && !readsStdin(name, norm) {
		if _, isFd := fdPath(op); isFd && op != procFile {
			j := judged(kOther, idShellStdin, name+" reads its program from the file descriptor "+op)
			return combine(v, ck.p.settle(j))
		}
	}
	if !readsStdin(name, norm) {
		return v
	}
	switch in.kind {
	case srcNetwork, srcDecoded:
		return combine(v, ck.markUnseen(ck.pipeDeny(in, name)))
	case srcStatic:
		var code []string
		switch {
		case shellNames[name]:
			code = []string{name, "-c", in.text}
		case name == "source" || name == ".":
			// source /dev/stdin: the current shell runs the text
			code = []string{"bash", "-c", in.text}
		case name == "python" || name == "python2" || name == "python3" || name == "pypy":
			code = []string{"python", "-c", in.text}
		case name == "node" || name == "nodejs" || name == "deno" || name == "bun":
			code = []string{"node", "-e", in.text}
		case name == "perl" || name == "ruby" || name == "lua":
			code = []string{name, "-e", in.text}
		case name == "php":
			code = []string{"php", "-r", in.text}
		default:
			return v
		}
		return combine(v, ck.markUnseen(ck.p.classifyArgs(cmd, code, ck.depth+1, false)))
	case srcUnknown:
		j := judged(kOther, idShellStdin, name+" reads its program from another command's output")
		return combine(v, ck.p.settle(j))
	}
	return v
}

func (ck *checker) pipeDeny(s source, name string) Verdict {
	what := "fetched from the network"
	if s.kind == srcDecoded {
		what = "decoded at run time"
	}
	if s.what != "" {
		what += " by " + s.what
	}
	return ck.p.settle(judged(kOther, idPipeShell, name+" runs code "+what))
}

// readsStdin reports whether a shell or interpreter takes its program from
// standard input.
func readsStdin(name string, args []string) bool {
	op, ok := scriptOperand(name, args)
	if !ok {
		return false
	}
	if op == "" || op == "-" {
		return true
	}
	fd, isFd := fdPath(op)
	return isFd && fd == 0
}

// scriptOperand returns the file a shell, interpreter or source takes its
// program from: "" when it reads standard input by default, ok false when
// the program is given another way (-c, -e) or no file is named (eval).
func scriptOperand(name string, args []string) (string, bool) {
	switch name {
	case "eval":
		return "", false
	case "source", ".":
		k := 1
		if k < len(args) && args[k] == "--" {
			k++
		}
		if k < len(args) {
			return args[k], true
		}
		return "", false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "-" {
			return a, true
		}
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", true
		}
		if isDynamic(a) || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			return a, true // a script file
		}
		if strings.HasPrefix(a, "--") {
			if a == "--eval" || a == "--command" || a == "--print" {
				return "", false
			}
			continue
		}
		if a == "-s" {
			return "", true
		}
		for k := 1; k < len(a); k++ {
			switch a[k] {
			case 'c', 'e', 'E', 'r', 'p':
				if shellNames[name] && a[k] != 'c' {
					continue
				}
				if name == "perl" && a[k] == 'p' {
					continue
				}
				return "", false
			case 'm':
				if strings.HasPrefix(name, "python") {
					return "", false
				}
			case 'o', 'O':
				i++
			}
		}
	}
	return "", true
}

// numberedRedir reports whether a statement redirects a descriptor above 2
// by number (3<file, {fd}<file counts too).
func numberedRedir(s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		if r.N == nil {
			continue
		}
		if n, err := strconv.Atoi(r.N.Value); err != nil || n > 2 {
			return true
		}
	}
	return false
}

// fdPath reports whether p names an open file descriptor of the process
// that opens it (/dev/stdin, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N,
// however spelled: //dev/./fd/../stdin is /dev/stdin) and which; -1 when
// the number is not known.
func fdPath(p string) (int, bool) {
	if !strings.HasPrefix(p, "/") {
		return 0, false
	}
	c := path.Clean("/" + strings.TrimLeft(p, "/"))
	switch c {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	var num string
	switch {
	case strings.HasPrefix(c, "/dev/fd/"):
		num = c[len("/dev/fd/"):]
	case strings.HasPrefix(c, "/proc/"):
		rest := c[len("/proc/"):]
		pid, fd, ok := strings.Cut(rest, "/fd/")
		if !ok || strings.Contains(pid, "/") {
			return 0, false
		}
		num = fd
	default:
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return -1, true
	}
	return n, true
}

// stmtSource says what a statement writes to its stdout, for the command
// it pipes into.
func (ck *checker) stmtSource(s *syntax.Stmt) source {
	if s == nil || !ck.b.spend(1) {
		return source{kind: srcUnknown}
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			l, r := ck.stmtSource(x.X), ck.stmtSource(x.Y)
			if r.kind == srcStatic {
				// cat, tee ... pass their input on
				return l.max(r)
			}
			if l.kind >= srcDecoded && r.kind < srcDecoded {
				r.kind = l.kind
				r.what = l.what
			}
			return r.max(source{kind: srcUnknown})
		}
		return ck.stmtSource(x.X).max(ck.stmtSource(x.Y)).max(source{kind: srcUnknown})
	case *syntax.CallExpr:
		return ck.callSource(s, x)
	case *syntax.Block:
		return ck.stmtsSource(x.Stmts)
	case *syntax.Subshell:
		return ck.stmtsSource(x.Stmts)
	}
	return source{kind: srcUnknown}
}

func (ck *checker) stmtsSource(list []*syntax.Stmt) source {
	out := source{}
	for _, s := range list {
		out = out.max(ck.stmtSource(s))
	}
	if len(list) > 1 && out.kind == srcStatic {
		out.kind = srcUnknown
	}
	return out
}

// network fetchers and decoders.
var fetchers = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "http": true, "https": true, "xh": true, "aria2c": true,
	"nc": true, "ncat": true, "netcat": true, "socat": true, "lynx": true, "w3m": true, "links": true,
	"ssh": true, "scp": true, "telnet": true, "ftp": true, "tftp": true, "curlie": true, "httpie": true,
	"gsutil": true, "aws": true, "gcloud": true, "az": true, "gh": true, "glab": true, "git": false,
	"python": false, "iwr": true, "invoke-webrequest": true, "dig": true,
}

func (ck *checker) callSource(s *syntax.Stmt, x *syntax.CallExpr) source {
	if len(x.Args) == 0 {
		return source{}
	}
	args, srcs := ck.fieldsQuiet(x.Args)
	norm := NormalizeArgv(args)
	if len(norm) == 0 {
		return source{kind: srcUnknown}
	}
	name := baseName(cmdName(norm[0]))
	sub := source{}
	for _, s := range srcs {
		sub = sub.max(s)
	}
	switch {
	case isDynamic(norm[0]):
		return source{kind: srcUnknown}.max(sub)
	case fetchers[name]:
		return source{kind: srcNetwork, what: name}
	case name == "base64" || name == "base32" || name == "basenc":
		if hasOpt(norm[1:], 'd', "decode") || hasOpt(norm[1:], 'D') {
			return source{kind: srcDecoded, what: name + " -d"}.max(sub)
		}
	case name == "xxd":
		if hasOpt(norm[1:], 'r', "revert") {
			return source{kind: srcDecoded, what: "xxd -r"}
		}
	case name == "openssl":
		for _, a := range norm[1:] {
			if a == "-d" || a == "enc" || a == "base64" {
				return source{kind: srcDecoded, what: "openssl"}
			}
		}
	case name == "uudecode" || name == "gunzip" || name == "zcat" || name == "bzcat" || name == "xzcat" || name == "rev" || name == "gpg":
		return source{kind: srcDecoded, what: name}.max(sub)
	case name == "tr" || name == "sed" || name == "awk" || name == "perl" || name == "python" || name == "python3":
		// transformations of input: unknown, unless decoding network data
		return source{kind: srcUnknown}.max(sub)
	case name == "echo" || name == "printf":
		if sub.kind > srcStatic {
			return sub
		}
		text, ok := echoText(name, norm[1:])
		if ok {
			if text2, ok2 := ck.hdocText(s); ok2 && name == "cat" {
				text = text2
			}
			return source{kind: srcStatic, text: text}
		}
		return source{kind: srcUnknown}
	case name == "pwd" && len(norm) == 1 && ck.dir != "":
		return source{kind: srcStatic, text: ck.dir + "\n"}
	case (name == "dirname" || name == "basename") && len(norm) >= 2 && !isDynamic(norm[1]) && sub.kind == srcNone:
		p := norm[1]
		if name == "dirname" {
			p = path.Dir(p)
		} else {
			p = path.Base(p)
		}
		return source{kind: srcStatic, text: p + "\n"}
	case name == "cat":
		if len(norm) == 1 {
			if text, ok := ck.hdocText(s); ok {
				return source{kind: srcStatic, text: text}
			}
		}
		return source{kind: srcUnknown, what: "cat"}
	}
	return source{kind: srcUnknown}.max(sub)
}

// hdocText returns a statement's static here-doc or here-string.
func (ck *checker) hdocText(s *syntax.Stmt) (string, bool) {
	for _, r := range s.Redirs {
		if r.Hdoc != nil {
			return ck.document(r.Hdoc)
		}
		if r.Op == syntax.WordHdoc && ck.staticWord(r.Word) {
			if v, err := expand.Literal(ck.cfg(), r.Word); err == nil {
				return v, true
			}
		}
	}
	return "", false
}

// fieldsQuiet expands words without checking substitutions again.
func (ck *checker) fieldsQuiet(words []*syntax.Word) ([]string, []source) {
	cfg := ck.cfg()
	var args []string
	var srcs []source
	for _, w := range words {
		if ck.staticParts(w.Parts) {
			if fs, err := expand.Fields(cfg, w); err == nil {
				for _, f := range fs {
					args = append(args, f)
					srcs = append(srcs, source{})
				}
				continue
			}
		}
		if name, ok := ck.whichSubst(w); ok {
			args = append(args, name)
			srcs = append(srcs, source{})
			continue
		}
		s := source{kind: srcUnknown}
		syntax.Walk(w, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.CmdSubst:
				s = s.max(ck.stmtsSource(x.Stmts))
				return false
			case *syntax.ProcSubst:
				s = s.max(ck.stmtsSource(x.Stmts))
				return false
			}
			return true
		})
		args = append(args, dynWord(ck.text(w)))
		srcs = append(srcs, s)
	}
	return args, srcs
}

// echoText is what echo/printf print, when static.
func echoText(name string, args []string) (string, bool) {
	for _, a := range args {
		if isDynamic(a) {
			return "", false
		}
	}
	if name == "echo" {
		escapes := false
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E" || args[0] == "-ne" || args[0] == "-en") {
			if strings.Contains(args[0], "e") {
				escapes = true
			}
			args = args[1:]
		}
		s := strings.Join(args, " ")
		if escapes {
			s = cEscapes(s)
		}
		return s, true
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return "", true
	}
	f := args[0]
	if strings.Contains(f, "%") {
		out, _, err := expand.Format(nil, f, args[1:])
		if err != nil {
			return "", false
		}
		return out, true
	}
	return cEscapes(f), true
}

// cEscapes decodes \n, \t, \xHH, \NNN.
func cEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 < len(s)+0 && i+2 <= len(s)-1 {
				if v, ok := hexByte(s[i+1 : i+3]); ok {
					b.WriteByte(v)
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		case '0', '1', '2', '3':
			v, n := 0, 0
			for n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7' {
				v = v*8 + int(s[i]-'0')
				i++
				n++
			}
			i--
			b.WriteByte(byte(v))
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// selfSpawning reports whether a function body starts copies of itself in
// the background or in a pipe (a fork bomb).
func selfSpawning(name string, body *syntax.Stmt) bool {
	calls, spawn := 0, false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background {
				spawn = true
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				spawn = true
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 && x.Args[0].Lit() == name {
				calls++
			}
		}
		return true
	})
	return spawn && calls >= 2
}

// forkBomb finds a fork bomb in the raw text, before any splitting:
// name(){ name|name& };name with any spacing, ${IFS} or quoting.
func forkBomb(src string) (string, bool) {
	if !strings.Contains(src, "(") {
		return "", false
	}
	s := strings.NewReplacer("${IFS}", " ", "$IFS", " ", `"`, "", `'`, "", "\\\n", "", "function ", " ").Replace(src)
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], "()")
		if i < 0 {
			break
		}
		at := off + i
		off = at + 2
		// the name before "()"
		k := at
		for k > 0 && s[k-1] == ' ' {
			k--
		}
		st := k
		for st > 0 && !strings.ContainsRune(" \t\n;&|(){}", rune(s[st-1])) {
			st--
		}
		name := s[st:k]
		if name == "" {
			continue
		}
		rest := s[at+2:]
		if len(rest) > 4096 {
			rest = rest[:4096] // a body is short; bounds the scan
		}
		rest = strings.TrimLeft(rest, " \t\n")
		if !strings.HasPrefix(rest, "{") {
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			end = len(rest)
		}
		body := rest[1:end]
		// the body is nothing but calls of itself: name|name&, name & name
		n, other := 0, false
		for _, tok := range strings.FieldsFunc(body, func(r rune) bool { return strings.ContainsRune(" \t\n;&|(){}", r) }) {
			if tok == name {
				n++
			} else {
				other = true
			}
		}
		if n >= 2 && !other && strings.ContainsAny(body, "|&") {
			show := strings.TrimSpace(s[st:])
			if len(show) > 40 {
				show = show[:40] + "..."
			}
			return show, true
		}
	}
	return "", false
}

// WordEscaped reports whether a word as written holds a backslash escape
// outside single quotes (\rm, r\m, "r\m"): what the shell runs is not
// spelled as it reads.
func WordEscaped(w *syntax.Word) bool {
	escaped := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if lit, ok := n.(*syntax.Lit); ok && strings.Contains(lit.Value, `\`) {
			escaped = true
		}
		if _, ok := n.(*syntax.SglQuoted); ok {
			return false
		}
		return !escaped
	})
	return escaped
}

// EscapedWords returns the words of ws written with a backslash
// (WordEscaped), after quote removal ("" for one holding an expansion);
// nil when there is none.
func EscapedWords(ws []*syntax.Word) []string {
	var out []string
	for _, w := range ws {
		if WordEscaped(w) {
			out = append(out, UnescapedWord(w))
		}
	}
	return out
}

// UnescapedWord is a word after quote removal, for literal parts only
// ("" when it holds an expansion).
func UnescapedWord(w *syntax.Word) string {
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
