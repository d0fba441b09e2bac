package interp

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// quietEval runs guardsh's own code through eval without tracing it: body,
// then status, a single simple command whose status is the eval's.
func (g *Runner) quietEval(body, status string) []string {
	g.sh.traceQuiet.Add(1)
	return []string{"eval", body + "; " + quietEnd + "; " + status}
}

// internalCall handles markers and internal names reaching the call
// handler. Only the rewrites' markers are honoured; any other internal name
// can only come from a forged string and is refused.
func (g *Runner) internalCall(hc interp.HandlerContext, args []string) ([]string, error) {
	switch args[0] {
	case markBg:
		if len(args) == 3 {
			j := g.sh.bgStarted(args[1], args[2])
			if g.cfg.shared != nil { // a nested shell: its stdio copies wait for its jobs
				g.own.add(j)
			}
		}
		return []string{":"}, nil
	case markTimeStart:
		g.sh.timeStart(len(args) > 1 && args[1] == "-p")
		return []string{":"}, nil
	case markTimeEnd, markPS, markPSRet, markFd, markFdSave, markFdRestore,
		internalPrefix + "err", internalPrefix + "out": // err, out: from guardsh's own eval'd code
		return args, nil
	case markPSSet:
		if len(args) == 3 {
			return g.quietEval(g.sh.pipeStatusSet(args[1], args[2]), "true"), nil
		}
		return []string{":"}, nil
	case markSuffix, markRepl, markSplit, markDefault, markQuote:
		// an expansion guardsh computes (compat_suffix.go, compat_ifs.go):
		// its result is set as a variable of the shell running it (a
		// subshell's own, too)
		if len(args) < 3 {
			return []string{":"}, nil
		}
		id, rest := args[1], args[2:]
		var assign string
		switch args[0] {
		case markSuffix:
			assign = suffixVar + id + "=" + evalQuote(removeShortSuffix(rest[0], rest[1:]))
		case markRepl:
			vals, _ := replaceAnchored(rest)
			assign = suffixVar + id + "=(" + shellJoin(vals) + ")"
		case markDefault:
			assign = suffixVar + id + "=(" + shellJoin(g.defaultFields(hc, rest)) + ")"
		case markQuote:
			assign = suffixVar + id + "=(" + shellJoin(quoteValues(rest)) + ")"
		default:
			assign = suffixVar + id + "=(" + shellJoin(g.splitFields(hc, rest[0])) + ")"
		}
		return g.quietEval(assign, "true"), nil
	case markBgStart:
		if len(args) == 2 {
			id, _ := strconv.Atoi(args[1])
			p := g.sh.track(0, id, nil, nil)
			return []string{"eval", vpidVar + "=" + strconv.Itoa(p.pid)}, nil
		}
		return []string{":"}, nil
	}
	return []string{deniedCmd, "guardsh: denied [shell.internal]: internal guardsh name. Use the plain command name"}, nil
}

// compatCall rewrites an allowed simple command where mvdan's interpreter
// differs from bash: unknown set/shopt options, and the builtins guardsh
// provides itself.
func (g *Runner) compatCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	switch args[0] {
	case "type", "compgen", "complete", "compopt", "export", "readonly", "declare", "typeset", "set":
		if out := g.bashBuiltinCall(hc, args); out[0] != args[0] {
			return out
		}
	}
	switch args[0] {
	case "command":
		if len(args) > 2 && args[1] == "-V" {
			return append([]string{"type"}, args[2:]...) // mvdan lacks -V; bash's output is type's
		}
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") && ownBuiltins[args[1]] {
			return g.compatCall(ctx, hc, args[1:])
		}
	case "builtin":
		if len(args) > 1 && ownBuiltins[args[1]] {
			return g.compatCall(ctx, hc, args[1:])
		}
	case "set":
		g.bs.noteSetOptions(args[1:])
		filtered, verbose, changed := filterSetArgs(args[1:])
		if verbose {
			g.verbose = true
		}
		if bad := badSetOption(args[1:]); bad != "" {
			return []string{internalPrefix + "err", "2", "set: " + bad + ": invalid option name"}
		}
		if !changed {
			return args
		}
		if len(filtered) == 0 {
			return []string{":"}
		}
		return append([]string{"set"}, filtered...)
	case "shopt":
		return g.shopt(args)
	case "printf":
		return g.printfCall(hc, args)
	case "wait":
		return g.waitCall(args)
	case "eval":
		return g.evalCall(args)
	case "alias":
		// bash's alias takes "--" (Claude Code's snapshots write
		// alias -- ll='ls -alF'); mvdan's looks the name "--" up.
		return g.aliasCall(args)
	case "unalias":
		return g.unaliasCall(args)
	case "cd":
		return g.cdCall(hc, args)
	case "read":
		return g.readCall(hc, args[1:])
	case "source", ".":
		return g.sourceCall(args)
	case "exit":
		if len(args) == 2 {
			if _, err := strconv.Atoi(strings.TrimSpace(args[1])); err != nil {
				// bash: the message, then exit with status 2
				msg := fmt.Sprintf("%s: line %d: exit: %s: numeric argument required", g.name, hc.Pos.Line(), args[1])
				return g.quietEval("printf '%s\\n' "+shellQuote(msg)+" >&2", "exit 2")
			}
		}
	case "echo":
		if g.cfg.dashEcho {
			return append([]string{internalPrefix + "dashecho"}, args[1:]...)
		}
		// mvdan's echo knows -n, -e and -E only as separate words and
		// its -e escapes are printf's; bash's are echo's own.
		for _, a := range args[1:] {
			if !isEchoOpt(a) {
				break
			}
			if len(a) > 2 || a == "-e" {
				return append([]string{internalPrefix + "echo"}, args[1:]...)
			}
		}
	case "[", "test":
		// Evaluated here, in the call handler: mvdan then runs a plain
		// true or false, without its exec handler's context and lookups
		// (a loop's [ costs about a third less).
		// Unless a script may define true or false as functions.
		if !g.sh.mayBeFunction("true") && !g.sh.mayBeFunction("false") {
			switch g.testBuiltin(ctx, hc, args[0], args[1:]) {
			case 0:
				return trueArgv
			case 1:
				return falseArgv
			}
			return []string{internalPrefix + "err", "2"} // message printed
		}
		return append([]string{internalPrefix + "test", args[0]}, args[1:]...)
	case "trap":
		if len(args) > 1 && args[1] == "-p" {
			return append([]string{internalPrefix + "trap-p"}, args[2:]...)
		}
		g.recordTrap(args)
		out := trapCall(args)
		if len(out) > 2 && out[0] == "trap" && out[1] != "-" && out[1] != "" {
			// the trap's code runs with guardsh's rewrites (">&5" to a
			// high fd in configure's EXIT trap...)
			if text, ok := g.rewriteText(out[1]); ok {
				out = append([]string{"trap", text}, out[2:]...)
			}
		}
		return out
	}
	if ownBuiltins[args[0]] {
		return append([]string{internalPrefix + args[0]}, args[1:]...)
	}
	return args
}

// trueArgv and falseArgv are what an evaluated test leaves mvdan to run.
// Shared: mvdan does not modify the argv a call handler returns.
var (
	trueArgv  = []string{"true"}
	falseArgv = []string{"false"}
)

// ownBuiltins are the bash builtins mvdan's interpreter lacks, which guardsh
// implements itself (see builtin_*.go).
var ownBuiltins = map[string]bool{
	"kill": true, "umask": true, "ulimit": true, "jobs": true, "disown": true,
	"printf": true, "wait": true, "times": true,
}

// setOptions maps "set -o NAME" names to whether mvdan supports them; the
// others are accepted and ignored, as bash's job control, history and
// similar options mean nothing to a non-interactive guarded shell.
var setOptions = map[string]bool{
	"allexport": true, "errexit": true, "noexec": true, "noglob": true, "nounset": true,
	"xtrace": true, "pipefail": true,
	"braceexpand": false, "emacs": false, "errtrace": false, "functrace": false,
	"hashall": false, "histexpand": false, "history": false, "ignoreeof": false,
	"interactive-comments": false, "keyword": false, "monitor": false, "noclobber": false,
	"nolog": false, "notify": false, "onecmd": false, "physical": false, "posix": false,
	"privileged": false, "verbose": false, "vi": false,
}

// supportedLetters are the "set" letters mvdan implements.
const supportedLetters = "aefnux"

// filterSetArgs drops the options of a "set" command line that mvdan does
// not implement (bash accepts them; guardsh ignores them). verbose reports
// "-v"/"-o verbose". changed is false when nothing was dropped.
func filterSetArgs(args []string) (out []string, verbose, changed bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			out = append(out, args[i:]...)
			break
		}
		keep := []byte{a[0]}
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch {
			case c == 'o':
				if i+1 >= len(args) {
					keep = append(keep, c)
					continue
				}
				i++
				name := args[i]
				if name == "verbose" {
					verbose = a[0] == '-'
				}
				if setOptions[name] || !isKnownSetOption(name) {
					out = append(out, string(a[0])+"o", name)
				} else {
					changed = true
				}
			case strings.IndexByte(supportedLetters, c) >= 0:
				keep = append(keep, c)
			default:
				if c == 'v' {
					verbose = a[0] == '-'
				}
				changed = true
			}
		}
		if len(keep) > 1 {
			out = append(out, string(keep))
		}
	}
	return out, verbose, changed
}

func isKnownSetOption(name string) bool { _, ok := setOptions[name]; return ok }

// badSetOption returns the first "-o NAME" that bash does not know either.
func badSetOption(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			return ""
		}
		if strings.HasSuffix(a, "o") && i+1 < len(args) {
			i++
			if !isKnownSetOption(args[i]) {
				return args[i]
			}
		}
	}
	return ""
}

// bashShopts are bash 5.2's shopt names with their default state.
var bashShopts = map[string]bool{
	"autocd": false, "assoc_expand_once": false, "cdable_vars": false, "cdspell": false,
	"checkhash": false, "checkjobs": false, "checkwinsize": true, "cmdhist": true,
	"compat31": false, "compat32": false, "compat40": false, "compat41": false,
	"compat42": false, "compat43": false, "compat44": false, "complete_fullquote": true,
	"direxpand": false, "dirspell": false, "dotglob": false, "execfail": false,
	"expand_aliases": false, "extdebug": false, "extglob": false, "extquote": true,
	"failglob": false, "force_fignore": true, "globasciiranges": true, "globskipdots": true,
	"globstar": false, "gnu_errfmt": false, "histappend": false, "histreedit": false,
	"histverify": false, "hostcomplete": true, "huponexit": false, "inherit_errexit": false,
	"interactive_comments": true, "lastpipe": false, "lithist": false, "localvar_inherit": false,
	"localvar_unset": false, "login_shell": false, "mailwarn": false,
	"no_empty_cmd_completion": false, "nocaseglob": false, "nocasematch": false,
	"noexpand_translation": false, "nullglob": false, "patsub_replacement": true,
	"progcomp": true, "progcomp_alias": false, "promptvars": true, "restricted_shell": false,
	"shift_verbose": false, "sourcepath": true, "varredir_close": false, "xpg_echo": false,
}

// mvdanShopts are the shopt names mvdan implements in both states.
var mvdanShopts = map[string]bool{
	"dotglob": true, "expand_aliases": true, "extglob": true, "globstar": true,
	"nocaseglob": true, "nullglob": true,
}

// shopt handles the names mvdan does not know or support: they are
// accepted silently (as bash does) and remembered for "shopt -q"; names
// bash does not know either get bash's error.
func (g *Runner) shopt(args []string) []string {
	mode := ""
	var names []string
	opts := false
	for i, a := range args[1:] {
		if strings.HasPrefix(a, "-") && len(a) > 1 && a != "--" {
			for _, c := range a[1:] {
				switch c {
				case 's', 'u':
					mode = string(c)
				case 'q':
					if mode == "" {
						mode = "q"
					}
				case 'o':
					opts = true
				case 'p':
					if mode == "" {
						mode = "p"
					}
				}
			}
			continue
		}
		names = args[1+i:]
		break
	}
	if opts || len(names) == 0 {
		if mode == "q" || mode == "p" {
			return []string{":"}
		}
		return args
	}
	g.sh.mu.Lock()
	defer g.sh.mu.Unlock()
	var keep []string
	status := "0"
	var out strings.Builder
	for _, n := range names {
		def, known := bashShopts[n]
		if !known {
			return []string{internalPrefix + "err", "1", "shopt: " + n + ": invalid shell option name"}
		}
		state, set := g.sh.shopts[n]
		if !set {
			state = def
		}
		switch mode {
		case "s", "u":
			g.sh.shopts[n] = mode == "s"
			if mvdanShopts[n] {
				keep = append(keep, n)
			}
		case "q":
			if !state {
				status = "1"
			}
		default: // print, as bash: "NAME<pad>\ton" or "shopt -s NAME"
			if !state {
				status = "1"
			}
			onOff, flag := "off", "-u"
			if state {
				onOff, flag = "on", "-s"
			}
			if mode == "p" {
				fmt.Fprintf(&out, "shopt %s %s\n", flag, n)
			} else {
				fmt.Fprintf(&out, "%-15s\t%s\n", n, onOff)
			}
		}
	}
	switch {
	case mode == "q":
		return []string{internalPrefix + "err", status, ""}
	case mode == "" || mode == "p":
		return []string{internalPrefix + "out", status, out.String()}
	case len(keep) == 0:
		return []string{":"}
	case mode == "s" || mode == "u":
		return append([]string{"shopt", "-" + mode}, keep...)
	}
	return append([]string{"shopt"}, keep...)
}

// evalCall applies guardsh's rewrites (">|", time, $!) to eval'd code.
func (g *Runner) evalCall(args []string) []string {
	if len(args) < 2 {
		return args
	}
	src := strings.Join(args[1:], " ")
	// "(" also: eval'd text may define functions (Claude Code's shell
	// snapshots define theirs with eval "$(... | base64 -d)"), which the
	// walk records, so that calling them is judged as a function call.
	if !strings.ContainsAny(src, ">!|(\\=") && !strings.Contains(src, "time") && !strings.Contains(src, "function") {
		return args
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		return args
	}
	if !g.rewrite(f) {
		return args
	}
	text, ok := printForReparse(f)
	if !ok {
		return args
	}
	return []string{"eval", text}
}

// rewriteText applies guardsh's rewrites to code held as text (a trap's
// command); ok is false when they change nothing or it does not parse.
func (g *Runner) rewriteText(src string) (string, bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil || !g.rewrite(f) {
		return "", false
	}
	return printForReparse(f)
}

// cdCall reports a failing cd the way bash does, and takes bash's
// options, which mvdan's cd refuses: -L (the default), -P (the directory
// with its symbolic links resolved), -e, -@ and "--".
func (g *Runner) cdCall(hc interp.HandlerContext, args []string) []string {
	rest := args[1:]
	physical := false
	for len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' {
		opt := rest[0]
		rest = rest[1:]
		if opt == "--" {
			break
		}
		for _, c := range opt[1:] {
			switch c {
			case 'P':
				physical = true
			case 'L':
				physical = false
			case 'e', '@':
			default:
				return []string{internalPrefix + "err", "2", "cd: -" + string(c) + ": invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]"}
			}
		}
	}
	if len(rest) > 1 {
		return []string{internalPrefix + "err", "1", "cd: too many arguments"}
	}
	if len(rest) == 0 {
		if len(args) == 1 {
			return args
		}
		return []string{"cd"}
	}
	dir := rest[0]
	if dir == "-" {
		return []string{"cd", "-"}
	}
	if dir == "" {
		return []string{":"} // bash: an empty name leaves the directory alone
	}
	if _, status, msg := statDir(hc.Dir, dir); status != 0 {
		return []string{internalPrefix + "err", "1", "cd: " + dir + ": " + msg}
	}
	if physical {
		p := dir
		if !filepath.IsAbs(p) {
			p = filepath.Join(hc.Dir, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return []string{"cd", real}
		}
	}
	if strings.HasPrefix(dir, "-") {
		dir = "./" + dir // mvdan's cd would read it as an option
	}
	return []string{"cd", dir}
}

// isName reports whether s is a valid shell variable name, optionally
// followed by an array subscript.
func isName(s string) bool {
	base, sub, hasSub := strings.Cut(s, "[")
	if hasSub && !strings.HasSuffix(sub, "]") {
		return false
	}
	if base == "" {
		return false
	}
	for i, c := range base {
		if c != '_' && !unicode.IsLetter(c) && (i == 0 || !unicode.IsDigit(c)) {
			return false
		}
		if c > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// trapCall keeps the conditions mvdan's trap knows (EXIT, ERR) and drops
// signals and DEBUG/RETURN silently: bash accepts "trap cleanup EXIT INT
// TERM", mvdan refuses the whole command. Signal traps do not run in
// guardsh (its own signal handling applies; see the README).
func trapCall(args []string) []string {
	if len(args) < 2 || strings.HasPrefix(args[1], "-") && args[1] != "-" {
		return args
	}
	rest := args[1:]
	head := []string{"trap"}
	if len(rest) >= 2 || (len(rest) == 1 && !isTrapCondition(rest[0])) {
		head = append(head, rest[0])
		rest = rest[1:]
	}
	var keep []string
	for _, c := range rest {
		switch strings.TrimPrefix(strings.ToUpper(c), "SIG") {
		case "EXIT", "0":
			keep = append(keep, "EXIT")
		case "ERR":
			keep = append(keep, "ERR")
		default:
			if !isTrapCondition(c) {
				return args // let mvdan report it
			}
		}
	}
	if len(keep) == 0 {
		return []string{":"}
	}
	return append(head, keep...)
}

// isTrapCondition reports whether s names a signal or trap condition.
func isTrapCondition(s string) bool {
	u := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	switch u {
	case "EXIT", "ERR", "DEBUG", "RETURN":
		return true
	}
	if _, ok := parseSignal(u); ok {
		return true
	}
	return false
}

// sourceCall keeps BASH_SOURCE while a file is sourced: the file is pushed
// in front, and popped when it ends; source's status is kept.
func (g *Runner) sourceCall(args []string) []string {
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return args
	}
	quoted := make([]string, len(args)-1)
	for i, a := range args[1:] {
		quoted[i] = evalQuote(a)
	}
	// Traced as bash traces it: the sourced file's commands, nothing of
	// the bookkeeping around them.
	g.sh.traceQuiet.Add(1)
	src := `BASH_SOURCE=(` + quoted[0] + ` "${BASH_SOURCE[@]}"); ` + quietEnd + `; builtin source ` + evalQuote(sourcePrefix+args[1]) + " " + strings.Join(quoted[1:], " ") +
		`; __guardsh_st=$?; ` + quietBegin + `; BASH_SOURCE=("${BASH_SOURCE[@]:1}"); `
	return []string{"eval", src + `if [ "$__guardsh_st" = 0 ]; then unset __guardsh_st; ` + quietEnd + `; true; else ` + quietEnd + `; (exit "$__guardsh_st"); fi`}
}

func isEchoOpt(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	for _, c := range a[1:] {
		if c != 'n' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

// echo is bash's echo: bundled -neE options, and -e's escapes (\0nnn
// octal, \xHH, \uHHHH, \c ending all output).
func echo(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && isEchoOpt(args[0]) {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !escapes {
			b.WriteString(a)
			continue
		}
		for j := 0; j < len(a); j++ {
			if a[j] != '\\' || j+1 >= len(a) {
				b.WriteByte(a[j])
				continue
			}
			if a[j+1] >= '1' && a[j+1] <= '7' {
				// only \0nnn is octal in echo
				b.WriteByte('\\')
				continue
			}
			t, adv, stop := escape(a[j:], true)
			if stop {
				return b.String()
			}
			b.WriteString(t)
			j += adv - 1
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

// dashEcho is dash's echo, for "sh" children where /bin/sh is dash: only
// "-n" is an option, and backslash escapes are always expanded.
func dashEcho(args []string) string {
	newline := true
	if len(args) > 0 && args[0] == "-n" {
		newline = false
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		for j := 0; j < len(a); j++ {
			if a[j] != '\\' || j+1 >= len(a) {
				b.WriteByte(a[j])
				continue
			}
			c := a[j+1]
			switch {
			case c == 'c':
				return b.String()
			case c >= '0' && c <= '7':
				k := j + 1
				if c == '0' {
					k++
				}
				start := k
				for k < len(a) && k < start+3 && a[k] >= '0' && a[k] <= '7' {
					k++
				}
				v, _ := strconv.ParseUint(a[start:k], 8, 16)
				if start == k {
					v = 0
				}
				b.WriteByte(byte(v))
				j = k - 1
				continue
			}
			if t, ok := map[byte]string{'a': "\a", 'b': "\b", 'e': "\x1b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v", '\\': "\\"}[c]; ok {
				b.WriteString(t)
				j++
				continue
			}
			b.WriteByte('\\')
		}
	}
	if newline {
		b.WriteByte('\n')
	}
	return b.String()
}

var dashSh = sync.OnceValue(func() bool {
	p, err := filepath.EvalSymlinks("/bin/sh")
	return err == nil && filepath.Base(p) == "dash"
})
