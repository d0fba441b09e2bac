package interp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// bashState is what guardsh's versions of bash builtins remember that
// mvdan's interpreter does not: trap commands (for trap -p), completion
// specifications (complete, compgen), the last argument ($_). One per
// Runner; a subshell shares its shell's.
type bashState struct {
	mu       sync.Mutex
	traps    map[string]string // condition (EXIT, SIGINT, ERR...) -> command
	complete map[string]string // command name -> "complete ... NAME"
	lastArg  string
	aliases  map[string]string // name -> value, as alias defined them
	// noclobber is set -C: ">" refuses to overwrite a file.
	noclobber atomic.Bool
	// noglob is set -f, for the fields guardsh splits (compat_ifs.go).
	noglob atomic.Bool
}

// noteSetOptions records the options of a set command line that guardsh
// implements itself (-C, -o noclobber).
func (s *bashState) noteSetOptions(args []string) {
	for i, a := range args {
		if a == "--" || a == "-" {
			return
		}
		switch {
		case (a == "-o" || a == "+o") && i+1 < len(args) && args[i+1] == "noclobber":
			s.noclobber.Store(a == "-o")
		case (a == "-o" || a == "+o") && i+1 < len(args) && args[i+1] == "noglob":
			s.noglob.Store(a == "-o")
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a[1] != 'o':
			if strings.ContainsRune(a, 'C') {
				s.noclobber.Store(a[0] == '-')
			}
			if strings.ContainsRune(a, 'f') {
				s.noglob.Store(a[0] == '-')
			}
		}
	}
}

// setLastArg records the last argument of the command being run: $_
// from the next command on.
func (s *bashState) setLastArg(a string) {
	s.mu.Lock()
	s.lastArg = a
	s.mu.Unlock()
}

// lastArgValue is $_.
func (s *bashState) lastArgValue() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastArg
}

// bashBuiltinCall routes a command line to guardsh's own version of a bash
// builtin where mvdan's lacks what the line uses; args is returned
// unchanged otherwise.
func (g *Runner) bashBuiltinCall(hc interp.HandlerContext, args []string) []string {
	switch args[0] {
	case "type":
		return append([]string{internalPrefix + "type"}, args[1:]...)
	case "compgen", "complete", "compopt":
		return append([]string{internalPrefix + args[0]}, args[1:]...)
	case "export":
		if len(args) == 1 || len(args) == 2 && args[1] == "-p" {
			return []string{internalPrefix + "export-p"}
		}
		if len(args) > 1 && strings.HasPrefix(args[1], "-") && strings.Contains(args[1], "f") {
			return g.exportFunc(args)
		}
		if len(args) > 1 && args[1] == "-n" {
			// mvdan has no "declare +x": the value is set again, unexported
			var b strings.Builder
			for _, a := range args[2:] {
				if isName(a) && !strings.Contains(a, "[") {
					fmt.Fprintf(&b, "__guardsh_v=\"${%s}\"; unset %s; %s=\"$__guardsh_v\"; ", a, a, a)
				}
			}
			return g.quietEval(b.String()+"unset __guardsh_v", "true")
		}
	case "readonly":
		if len(args) == 1 || len(args) == 2 && args[1] == "-p" {
			return []string{internalPrefix + "readonly-p"}
		}
	case "declare", "typeset":
		if len(args) > 1 && (args[1] == "-F" || args[1] == "-Ff" || args[1] == "-fF") {
			return append([]string{internalPrefix + "declare-F"}, args[2:]...)
		}
		if len(args) == 2 && args[1] == "-f" {
			return []string{internalPrefix + "declare-f"}
		}
	case "set":
		if len(args) == 1 {
			return []string{internalPrefix + "set-list"}
		}
	}
	return args
}

// exportFunc is "export -f NAME...": each function's text goes into a
// hidden exported variable (see exportedFuncPrefix); "export -fn NAME"
// removes it.
func (g *Runner) exportFunc(args []string) []string {
	unexport := strings.Contains(args[1], "n")
	var b strings.Builder
	st := "true"
	for _, name := range args[2:] {
		name, _, _ = strings.Cut(name, "=")
		if !isName(name) {
			continue
		}
		if unexport {
			fmt.Fprintf(&b, "unset %s%s; ", exportedFuncPrefix, name)
			continue
		}
		body, ok := g.r.Funcs[name]
		if !ok {
			fmt.Fprintf(&b, "printf '%%s\\n' %s >&2; ", shellQuote(g.name+": export: "+name+": not a function"))
			st = "false"
			continue
		}
		fmt.Fprintf(&b, "export %s%s=%s; ", exportedFuncPrefix, name, evalQuote("() "+printNode(body)))
	}
	body := strings.TrimSuffix(b.String(), "; ")
	if body == "" {
		body = ":"
	}
	return g.quietEval(body, st)
}

// printNode prints a node in mvdan's layout.
func printNode(n syntax.Node) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, n)
	return strings.TrimRight(b.String(), "\n")
}

// importFuncs is the source text defining the functions bash exports in
// the environment (BASH_FUNC_NAME%%=() BODY); a definition that does not
// parse is skipped, as bash skips it.
func importFuncs(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		rest, ok := strings.CutPrefix(kv, "BASH_FUNC_")
		if !ok {
			continue
		}
		name, body, ok := strings.Cut(rest, "%%=")
		if !ok || !isName(name) || !strings.HasPrefix(body, "()") {
			continue
		}
		def := name + " " + body
		if _, err := syntax.NewParser().Parse(strings.NewReader(def), ""); err != nil {
			continue
		}
		fmt.Fprintf(&b, "%s\n%s%s=%s\nexport %s%s\n", def, exportedFuncPrefix, name, evalQuote(body), exportedFuncPrefix, name)
	}
	return b.String()
}

// funcEnvName maps an environment entry carrying an exported function to
// bash's form; ok is false for other entries.
func funcEnvName(name string) (string, bool) {
	f, ok := strings.CutPrefix(name, exportedFuncPrefix)
	if !ok {
		return "", false
	}
	return "BASH_FUNC_" + f + "%%", true
}

// hiddenVar reports whether a variable is guardsh's bookkeeping, never
// listed by set, declare -p or export -p.
func hiddenVar(name string) bool {
	return strings.HasPrefix(name, "__guardsh_") || strings.HasPrefix(name, "BASH_FUNC_") || strings.ContainsRune(name, 0)
}

// bashBuiltin runs one of the builtins of this file.
func (g *Runner) bashBuiltin(hc interp.HandlerContext, name string, args []string) (int, bool) {
	switch name {
	case "type":
		return g.typeBuiltin(hc, args), true
	case "compgen":
		return g.compgen(hc, args), true
	case "complete":
		return g.completeBuiltin(hc, args), true
	case "compopt":
		return 0, true
	case "trap-p":
		g.trapList(hc, args)
		return 0, true
	case "declare-F":
		return g.declareF(hc, args), true
	case "declare-f":
		g.declareAllF(hc)
		return 0, true
	case "set-list":
		g.setList(hc)
		return 0, true
	case "export-p", "readonly-p":
		g.attrList(hc, name == "export-p")
		return 0, true
	}
	return 0, false
}

// bashBuiltinNames are bash 5.2's builtins (compgen -b).
var bashBuiltinNames = strings.Fields(". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait")

// bashKeywords are bash's reserved words (compgen -k).
var bashKeywords = strings.Fields("if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc")

func isBashBuiltin(s string) bool {
	for _, b := range bashBuiltinNames {
		if b == s {
			return true
		}
	}
	return false
}

func isKeyword(s string) bool {
	for _, k := range bashKeywords {
		if k == s {
			return true
		}
	}
	return false
}

// pathAll lists every executable file named name on PATH.
func pathAll(hc interp.HandlerContext, name string) []string {
	if strings.Contains(name, "/") {
		if fi, err := os.Stat(name); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return []string{name}
		}
		return nil
	}
	var out []string
	for _, dir := range filepath.SplitList(hc.Env.Get("PATH").String()) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
}

// typeBuiltin is bash's type with -t, -p, -P, -a and -f.
func (g *Runner) typeBuiltin(hc interp.HandlerContext, args []string) int {
	var tflag, pflag, Pflag, aflag, fflag bool
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		for _, c := range args[0][1:] {
			switch c {
			case 't':
				tflag = true
			case 'p':
				pflag = true
			case 'P':
				Pflag = true
			case 'a':
				aflag = true
			case 'f':
				fflag = true
			default:
				g.errf(hc, "type: -%c: invalid option", c)
				fmt.Fprintf(hc.Stderr, "type: usage: type [-afptP] name [name ...]\n")
				return 2
			}
		}
		args = args[1:]
	}
	st := 0
	for _, name := range args {
		found := false
		say := func(kind, long string) {
			found = true
			switch {
			case tflag:
				fmt.Fprintln(hc.Stdout, kind)
			case !pflag && !Pflag:
				fmt.Fprintln(hc.Stdout, long)
			}
		}
		if !Pflag {
			if isKeyword(name) {
				say("keyword", name+" is a shell keyword")
			}
			if !found || aflag {
				if body, ok := g.r.Funcs[name]; ok && !fflag {
					say("function", name+" is a function\n"+name+" () "+printNode(body))
				}
			}
			if !found || aflag {
				if isBashBuiltin(name) {
					say("builtin", name+" is a shell builtin")
				}
			}
		}
		if !found || aflag {
			paths := pathAll(hc, name)
			if !aflag && len(paths) > 1 {
				paths = paths[:1]
			}
			for _, p := range paths {
				found = true
				switch {
				case tflag:
					fmt.Fprintln(hc.Stdout, "file")
				case pflag || Pflag:
					fmt.Fprintln(hc.Stdout, p)
				default:
					fmt.Fprintf(hc.Stdout, "%s is %s\n", name, p)
				}
			}
		}
		if !found {
			if !tflag && !pflag && !Pflag {
				g.errf(hc, "type: %s: not found", name)
			}
			st = 1
		}
	}
	return st
}

// declareF is "declare -F [NAME...]": function names.
func (g *Runner) declareF(hc interp.HandlerContext, names []string) int {
	if len(names) == 0 {
		var all []string
		for n := range g.r.Funcs {
			all = append(all, n)
		}
		sort.Strings(all)
		for _, n := range all {
			fmt.Fprintf(hc.Stdout, "declare -f %s\n", n)
		}
		return 0
	}
	st := 0
	for _, n := range names {
		if _, ok := g.r.Funcs[n]; ok {
			fmt.Fprintln(hc.Stdout, n)
		} else {
			st = 1
		}
	}
	return st
}

// declareAllF is "declare -f" without names: every function, sorted, as
// "declare -f NAME" prints one (the shell snapshots of Codex CLI and Claude
// Code are made from it).
func (g *Runner) declareAllF(hc interp.HandlerContext) {
	names := make([]string, 0, len(g.r.Funcs))
	for n := range g.r.Funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	printer := syntax.NewPrinter()
	for _, n := range names {
		var b bytes.Buffer
		printer.Print(&b, g.r.Funcs[n])
		fmt.Fprintf(hc.Stdout, "%s()\n%s\n", n, b.String())
	}
}

// recordTrap remembers what "trap CMD COND..." set, for trap -p.
func (g *Runner) recordTrap(args []string) {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return
	}
	cmd := rest[0]
	conds := rest[1:]
	if len(rest) == 1 {
		conds, cmd = rest, "-" // "trap COND" resets it
	}
	g.bs.mu.Lock()
	defer g.bs.mu.Unlock()
	if g.bs.traps == nil {
		g.bs.traps = map[string]string{}
	}
	for _, c := range conds {
		key := trapKey(c)
		if key == "" {
			continue
		}
		if cmd == "-" {
			delete(g.bs.traps, key)
		} else {
			g.bs.traps[key] = cmd
		}
	}
}

// trapKey is bash's name of a trap condition (EXIT, SIGINT, ERR...).
func trapKey(c string) string {
	u := strings.TrimPrefix(strings.ToUpper(c), "SIG")
	switch u {
	case "EXIT", "0":
		return "EXIT"
	case "ERR", "DEBUG", "RETURN":
		return u
	}
	if sig, ok := parseSignal(u); ok && int(sig) > 0 && int(sig) < len(signalNames) {
		return "SIG" + signalNames[sig]
	}
	return ""
}

// trapOrder is the order of trap -p's listing: EXIT, signals by number,
// then DEBUG, ERR, RETURN.
func trapOrder(key string) int {
	switch key {
	case "EXIT":
		return 0
	case "DEBUG":
		return 1000
	case "ERR":
		return 1001
	case "RETURN":
		return 1002
	}
	if sig, ok := parseSignal(strings.TrimPrefix(key, "SIG")); ok {
		return int(sig)
	}
	return 999
}

// trapList is "trap -p [COND...]".
func (g *Runner) trapList(hc interp.HandlerContext, conds []string) {
	g.bs.mu.Lock()
	defer g.bs.mu.Unlock()
	var keys []string
	if len(conds) == 0 {
		for k := range g.bs.traps {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return trapOrder(keys[i]) < trapOrder(keys[j]) })
	} else {
		for _, c := range conds {
			keys = append(keys, trapKey(c))
		}
	}
	for _, k := range keys {
		if cmd, ok := g.bs.traps[k]; ok {
			fmt.Fprintf(hc.Stdout, "trap -- %s %s\n", shellQuote(cmd), k)
		}
	}
}

// completeBuiltin is bash's complete: specifications are remembered and
// listed (-p), removed (-r); guardsh has no interactive completion.
func (g *Runner) completeBuiltin(hc interp.HandlerContext, args []string) int {
	g.bs.mu.Lock()
	defer g.bs.mu.Unlock()
	if g.bs.complete == nil {
		g.bs.complete = map[string]string{}
	}
	var opts []string
	var names []string
	print, remove := len(args) == 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-p":
			print = true
		case a == "-r":
			remove = true
		case a == "--":
			names = append(names, args[i+1:]...)
			i = len(args)
		case a == "-D" || a == "-E" || a == "-I":
			names = append(names, a)
		case strings.HasPrefix(a, "-") && len(a) == 2 && strings.Contains("oAGWFCXPS", a[1:]):
			if i+1 < len(args) {
				opts = append(opts, a, completeQuote(args[i+1]))
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			opts = append(opts, a)
		default:
			names = append(names, a)
		}
	}
	switch {
	case print:
		if len(names) == 0 {
			for n := range g.bs.complete {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		st := 0
		for _, n := range names {
			spec, ok := g.bs.complete[n]
			if !ok {
				g.errf(hc, "complete: %s: no completion specification", n)
				st = 1
				continue
			}
			fmt.Fprintln(hc.Stdout, spec)
		}
		return st
	case remove:
		if len(names) == 0 {
			clear(g.bs.complete)
		}
		for _, n := range names {
			delete(g.bs.complete, n)
		}
		return 0
	}
	for _, n := range names {
		spec := "complete"
		if len(opts) > 0 {
			spec += " " + strings.Join(opts, " ")
		}
		g.bs.complete[n] = spec + " " + n
	}
	return 0
}

// completeQuote quotes an option argument of complete as bash prints it.
func completeQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
		return s
	}
	return shellQuote(s)
}

// compgen is bash's compgen for word lists (-W), builtins (-b), keywords
// (-k), functions, variables, aliases left to mvdan's knowledge, files and
// directories (-f, -d), commands (-c).
func (g *Runner) compgen(hc interp.HandlerContext, args []string) int {
	var words []string
	var prefix string
	add := func(ws ...string) { words = append(words, ws...) }
	funcs := func() {
		for n := range g.r.Funcs {
			add(n)
		}
	}
	vars := func() {
		hc.Env.Each(func(name string, vr expand.Variable) bool {
			if vr.IsSet() && !hiddenVar(name) {
				add(name)
			}
			return true
		})
	}

	var files, dirs, cmds bool
	for i := 0; i < len(args); i++ {
		a := args[i]
		arg := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-W":
			add(strings.Fields(arg())...)
		case "-b":
			add(bashBuiltinNames...)
		case "-k":
			add(bashKeywords...)
		case "-v":
			vars()
		case "-f":
			files = true
		case "-d":
			dirs = true
		case "-c":
			cmds = true
		case "-A":
			switch arg() {
			case "function":
				funcs()
			case "variable":
				vars()
			case "builtin":
				add(bashBuiltinNames...)
			case "keyword":
				add(bashKeywords...)
			case "file":
				files = true
			case "directory":
				dirs = true
			case "command":
				cmds = true
			}
		case "-o", "-F", "-C", "-X", "-P", "-S", "-G":
			arg()
		case "--":
			if i+1 < len(args) {
				prefix = args[i+1]
			}
			i = len(args)
		default:
			if !strings.HasPrefix(a, "-") {
				prefix = a
			}
		}
	}
	if cmds {
		funcs()
		add(bashBuiltinNames...)
		add(bashKeywords...)
		seen := map[string]bool{}
		for _, dir := range filepath.SplitList(hc.Env.Get("PATH").String()) {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), prefix) && !seen[e.Name()] {
					seen[e.Name()] = true
					add(e.Name())
				}
			}
		}
	}
	if files || dirs {
		dir, base := filepath.Split(prefix)
		d := dir
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(hc.Dir, d)
		}
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), base) || strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".") {
				continue
			}
			if files || e.IsDir() {
				add(dir + e.Name())
			}
		}
	}
	st := 1
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			fmt.Fprintln(hc.Stdout, w)
			st = 0
		}
	}
	return st
}

// setList is "set" without arguments: every variable, sorted, as bash
// prints them, then the functions.
func (g *Runner) setList(hc interp.HandlerContext) {
	type kv struct{ name, text string }
	var list []kv
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if !vr.IsSet() || hiddenVar(name) {
			return true
		}
		list = append(list, kv{name, name + "=" + varText(vr)})
		return true
	})
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	for _, e := range list {
		fmt.Fprintln(hc.Stdout, e.text)
	}
	var fns []string
	for n := range g.r.Funcs {
		fns = append(fns, n)
	}
	sort.Strings(fns)
	for _, n := range fns {
		fmt.Fprintf(hc.Stdout, "%s () %s\n", n, printNode(g.r.Funcs[n]))
	}
}

// varText is a variable's value as "set" prints it.
func varText(vr expand.Variable) string {
	switch vr.Kind {
	case expand.Indexed:
		var b strings.Builder
		b.WriteString("(")
		for i, v := range vr.List {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "[%d]=%s", i, dqQuote(v))
		}
		b.WriteString(")")
		return b.String()
	case expand.Associative:
		keys := make([]string, 0, len(vr.Map))
		for k := range vr.Map {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("(")
		for _, k := range keys {
			fmt.Fprintf(&b, "[%s]=%s ", k, dqQuote(vr.Map[k]))
		}
		b.WriteString(")")
		return b.String()
	}
	s := vr.String()
	if s == "" {
		return "" // bash: name=
	}
	if !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	if strings.ContainsAny(s, "\t\n\r\x1b") {
		return ansiQuote(s)
	}
	return shellQuote(s)
}

// dqQuote quotes s in double quotes, as declare -p prints values.
func dqQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// attrList is "export -p" and "readonly -p".
func (g *Runner) attrList(hc interp.HandlerContext, exported bool) {
	var lines []string
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if hiddenVar(name) || (exported && !vr.Exported) || (!exported && !vr.ReadOnly) {
			return true
		}
		flags := "-"
		switch vr.Kind {
		case expand.Indexed:
			flags += "a"
		case expand.Associative:
			flags += "A"
		}
		if vr.ReadOnly {
			flags += "r"
		}
		if vr.Exported {
			flags += "x"
		}
		line := "declare " + flags + " " + name
		if vr.IsSet() {
			if vr.Kind == expand.String {
				line += "=" + dqQuote(vr.Str)
			} else {
				line += "=" + varText(vr)
			}
		}
		lines = append(lines, line)
		return true
	})
	sort.Strings(lines)
	for _, l := range lines {
		io.WriteString(hc.Stdout, l+"\n")
	}
}

// declAsCall turns the declaration commands whose forms guardsh implements
// itself (export -f, export -n, export/readonly without names or with -p,
// declare/typeset -F) into plain commands, which reach the call handler:
// mvdan runs declarations itself.
func declAsCall(st *syntax.Stmt) bool {
	dc, ok := st.Cmd.(*syntax.DeclClause)
	if !ok || dc.Variant == nil {
		return false
	}
	var words []*syntax.Word
	for _, as := range dc.Args {
		switch {
		case as.Naked && as.Value != nil:
			words = append(words, as.Value)
		case as.Naked && as.Name != nil && as.Index == nil:
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{as.Name}})
		default:
			return false
		}
	}
	first := ""
	if len(words) > 0 {
		first = words[0].Lit()
	}
	if v := dc.Variant.Value; (v == "declare" || v == "typeset") && len(first) > 2 && first[0] == '-' &&
		strings.Contains(first, "p") && strings.Trim(first[1:], "xpfrgaAilnu") == "" {
		// "declare -xp NAME" (Codex CLI's snapshot lists exports so) is
		// "declare -x -p NAME": mvdan takes the query flag alone only
		var split []*syntax.Assign
		for _, c := range first[1:] {
			split = append(split, &syntax.Assign{Naked: true, Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "-" + string(c)}}}})
		}
		dc.Args = append(split, dc.Args[1:]...)
		return false
	}
	switch dc.Variant.Value {
	case "export":
		if !(len(words) == 0 || first == "-p" && len(words) == 1 || first == "-n" ||
			strings.HasPrefix(first, "-") && strings.Contains(first, "f")) {
			return false
		}
	case "readonly":
		if !(len(words) == 0 || first == "-p" && len(words) == 1) {
			return false
		}
	case "declare", "typeset":
		if first != "-F" && first != "-fF" && first != "-Ff" && !(first == "-f" && len(words) == 1) {
			return false
		}
	default:
		return false
	}
	args := append([]*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: dc.Variant.ValuePos, ValueEnd: dc.Variant.ValueEnd, Value: dc.Variant.Value}}}}, words...)
	st.Cmd = &syntax.CallExpr{Args: args}
	return true
}

// aliasCall is bash's alias: definitions are remembered (listed sorted,
// queried), and a value with operators becomes an eval of it.
func (g *Runner) aliasCall(args []string) []string {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	list := len(rest) == 0 || len(rest) == 1 && rest[0] == "-p"
	g.bs.mu.Lock()
	defer g.bs.mu.Unlock()
	if g.bs.aliases == nil {
		g.bs.aliases = map[string]string{}
	}
	if list {
		names := make([]string, 0, len(g.bs.aliases))
		for n := range g.bs.aliases {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "alias %s=%s\n", n, shellQuote(g.bs.aliases[n]))
		}
		return []string{internalPrefix + "out", "0", b.String()}
	}
	out := []string{"alias"}
	var b strings.Builder
	var missing []string
	for _, a := range rest {
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			v, known := g.bs.aliases[name]
			if !known {
				missing = append(missing, name)
				continue
			}
			fmt.Fprintf(&b, "alias %s=%s\n", name, shellQuote(v))
			continue
		}
		g.bs.aliases[name] = val
		if strings.ContainsAny(val, "|&;<>()\n") {
			val = aliasCmd + " " + name + " "
		}
		out = append(out, name+"="+val)
	}
	if len(out) > 1 && b.Len() == 0 && len(missing) == 0 {
		return out
	}
	// definitions ("builtin": not this function again), then what was
	// asked for, then an error for each unknown name
	var cmds []string
	if len(out) > 1 {
		cmds = append(cmds, "builtin "+shellJoin(out))
	}
	if b.Len() > 0 {
		cmds = append(cmds, internalArgv(internalPrefix+"out", "0", b.String()))
	}
	for _, m := range missing {
		cmds = append(cmds, internalArgv(internalPrefix+"err", "1", "alias: "+m+": not found"))
	}
	if len(cmds) == 1 && len(out) == 1 && b.Len() > 0 {
		return []string{internalPrefix + "out", "0", b.String()}
	}
	if len(cmds) == 1 && len(out) == 1 && len(missing) == 1 {
		return []string{internalPrefix + "err", "1", "alias: " + missing[0] + ": not found"}
	}
	return []string{"eval", strings.Join(cmds, "; ")}
}

// internalArgv is a command line of guardsh's internal names for eval,
// spelt as reparsed code spells them (printForReparse).
func internalArgv(words ...string) string {
	return strings.ReplaceAll(shellJoin(words), internalPrefix, reparseToken)
}

// unaliasCall keeps the remembered aliases in step with mvdan's.
func (g *Runner) unaliasCall(args []string) []string {
	g.bs.mu.Lock()
	defer g.bs.mu.Unlock()
	var keep []string
	var missing []string
	for _, a := range args[1:] {
		if a == "-a" {
			clear(g.bs.aliases)
			return []string{":"}
		}
		if _, ok := g.bs.aliases[a]; !ok {
			missing = append(missing, a)
			continue
		}
		delete(g.bs.aliases, a)
		keep = append(keep, a)
	}
	var cmds []string
	if len(keep) > 0 {
		cmds = append(cmds, "builtin "+shellJoin(append([]string{"unalias"}, keep...)))
	}
	for _, m := range missing {
		cmds = append(cmds, internalArgv(internalPrefix+"err", "1", "unalias: "+m+": not found"))
	}
	switch {
	case len(cmds) == 0:
		return []string{":"}
	case len(missing) == 0:
		return append([]string{"unalias"}, keep...)
	case len(keep) == 0 && len(missing) == 1:
		return []string{internalPrefix + "err", "1", "unalias: " + missing[0] + ": not found"}
	}
	return []string{"eval", strings.Join(cmds, "; ")}
}

// aliasRun is what "__guardsh_alias NAME ARGS..." runs: the alias's value
// with the arguments after it, as bash's textual expansion reads it.
func (g *Runner) aliasRun(args []string) []string {
	if len(args) < 2 {
		return []string{":"}
	}
	g.bs.mu.Lock()
	val, ok := g.bs.aliases[args[1]]
	g.bs.mu.Unlock()
	if !ok {
		return []string{internalPrefix + "err", "127", args[1] + ": command not found"}
	}
	src := val
	for _, a := range args[2:] {
		src += " " + evalQuote(a)
	}
	return []string{"eval", src}
}

// shellJoin quotes each word for the shell and joins them.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = evalQuote(w)
	}
	return strings.Join(q, " ")
}
