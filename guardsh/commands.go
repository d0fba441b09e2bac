package guardsh

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// cmdCtx is the state for judging one simple command.
type cmdCtx struct {
	p         *Policy
	c         *Command
	pe        pathEnv
	depth     int
	j         *judgement
	fromInput bool    // argv is completed from standard input (xargs)
	stdin     *source // what the checker knows about standard input
	prog      string  // the program whose handler runs (its base name)
	code      string  // the inline code being judged (inlineCode), for its calls
}

type handler func(cx *cmdCtx, name string, args []string)

var handlers map[string]handler

// handlerTable returns the command handlers, built on first use (not at
// init: a guardsh process that classifies nothing does not pay for them).
func handlerTable() map[string]handler {
	handlersOnce.Do(buildHandlers)
	return handlers
}

var handlersOnce sync.Once

// nest classifies a command this one runs.
func (cx *cmdCtx) nest(args []string) {
	cx.j.addNested(cx.p.classifyArgsIn(cx.c, args, cx.depth+1, cx.fromInput, cx.stdin))
}

// nestEnv classifies inner, run by a wrapper whose own words before it are
// pre (env GIT_SSH_COMMAND=x git push): the NAME=value words among them
// are in inner's environment.
func (cx *cmdCtx) nestEnv(pre, inner []string) {
	var set map[string]string
	for _, a := range pre {
		if isAssignWord(a) {
			if set == nil {
				set = map[string]string{}
			}
			k, v, _ := strings.Cut(a, "=")
			set[k] = v
		}
	}
	if set == nil {
		cx.nest(inner)
		return
	}
	c := *cx.c
	outer := cx.c.Env
	c.Env = func(name string) string {
		if v, ok := set[name]; ok {
			return v
		}
		if outer != nil {
			return outer(name)
		}
		return ""
	}
	cx.j.addNested(cx.p.classifyArgsIn(&c, inner, cx.depth+1, cx.fromInput, cx.stdin))
}

// nestInput classifies a command whose argv is completed from input.
func (cx *cmdCtx) nestInput(args []string) {
	cx.j.addNested(cx.p.classifyArgs(cx.c, args, cx.depth+1, true))
}

// nestItem classifies a command built from input items the checker
// knows (xargs, parallel): the input is data, not a command the agent
// named, so an unknown program in it is not left to the sandbox.
func (cx *cmdCtx) nestItem(args []string) {
	cx.j.addNested(uncontained(cx.p.classifyArgsIn(cx.c, args, cx.depth+1, cx.fromInput, cx.stdin)))
}

// nestItemScript is nestItem for an input line run as shell code.
func (cx *cmdCtx) nestItemScript(src string) {
	cx.j.addNested(uncontained(cx.p.scriptVerdict(src, cx.c, cx.depth+1)))
}

// uncontained turns an allow by the session sandbox back into the ask it
// replaced.
func uncontained(v Verdict) Verdict {
	if v.Rule == idSandboxContained.String() {
		return verdictOf(idUnknown, "a command built from input", v.Effects)
	}
	return v
}

// nestScript checks shell code this command runs.
func (cx *cmdCtx) nestScript(src string) {
	cx.j.addNested(cx.p.scriptVerdictIn(src, cx.c, cx.depth+1, nil, cx.stdin))
}

// nestScriptArgs checks shell code run with $0 and positional parameters
// (sh -c 'rm -rf "$1"' _ DIR).
func (cx *cmdCtx) nestScriptArgs(src string, params []string) {
	cx.j.addNested(cx.p.scriptVerdictIn(src, cx.c, cx.depth+1, params, cx.stdin))
}

// run judges argv.
func (cx *cmdCtx) run(args []string) {
	j := cx.j
	i := 0
	for i < len(args) && isAssignWord(args[i]) {
		i++
	}
	if i == len(args) {
		j.kind = kPure
		return
	}
	for _, a := range args[:i] {
		cx.guardshEnv(a)
	}
	args = normDashes(args[i:])
	if isDynamic(args[0]) {
		cx.dynamicCommand(args)
		return
	}
	name := baseName(cmdName(args[0]))
	if hasUpper(args[0]) && !strings.Contains(args[0], "/") && !strings.Contains(args[0], `\`) {
		// Linux file names are case-sensitive (GIT is not git), but on
		// case-insensitive file systems they are not: ask, and deny what
		// the lower-case command would deny.
		j.other(idUnknown, args[0])
		if handlerTable()[name] != nil || privWrappers[name] {
			if v := cx.p.classifyArgs(cx.c, append([]string{name}, args[1:]...), cx.depth+1, cx.fromInput); v.Decision == Deny {
				j.addNested(v)
			}
		}
		return
	}
	if privWrappers[name] {
		j.other(idPrivSudo, strings.Join(displayArgs(args, 6), " "))
		j.priv = name
		if inner, script, ok := unwrap(append([]string{name}, args[1:]...)); ok {
			if script != "" {
				cx.nestScript(script)
			} else if len(inner) > 0 {
				cx.nest(inner)
			}
		}
		return
	}
	if name == "xargs" || name == "parallel" {
		cx.xargs(name, args)
		return
	}
	if name == "env" || name == "sudo" {
		for _, a := range args[1:] {
			cx.guardshEnv(a)
		}
	}
	if inner, script, ok := unwrap(append([]string{name}, args[1:]...)); ok {
		j.kind = kPure
		if script != "" {
			cx.nestScript(script)
		} else if len(inner) > 0 {
			var pre []string
			if n := len(args) - len(inner); n > 1 && slices.Equal(args[n:], inner) {
				pre = args[1:n]
			}
			cx.nestEnv(pre, inner)
			if name == "watch" {
				// watch joins its arguments and runs them with sh -c
				cx.nestScript(strings.Join(inner, " "))
			}
		}
		return
	}
	if name != "guardsh" && strings.Contains(args[0], "/") {
		// guardsh under another name (a copy, a link, a rename) is
		// guardsh: judged by what the file is, not what it is called
		if t := cx.pe.resolve(args[0]); t.abs != "" && IsGuardshBinary(t.abs) {
			hGuardsh(cx, "guardsh", args)
			return
		}
	}
	if !slices.Contains(identityShells, name) && strings.Contains(args[0], "/") {
		// a shell under another name (cp /bin/bash ./b) is that shell
		if t := cx.pe.resolve(args[0]); t.abs != "" {
			if sh := ShellByIdentity(t.abs); sh != "" {
				hShell(cx, sh, args)
				return
			}
		}
	}
	if h := handlerTable()[name]; h != nil {
		cx.prog = name
		h(cx, name, args)
		return
	}
	// A program inside the project (./configure, ./scripts/test.sh).
	if strings.Contains(args[0], "/") {
		t := cx.pe.resolve(args[0])
		if t.loc == locProject {
			j.atLeast(kDev)
			return
		}
	}
	j.other(idUnknown, name)
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// normDashes turns Unicode dashes at the start of words into ASCII ones
// (‐‐hard is --hard to a rule, whatever the program makes of it).
func normDashes(args []string) []string {
	var out []string
	for i, a := range args {
		if len(a) < 3 || a[0] < 0x80 {
			continue
		}
		b := a
		for _, d := range [...]string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe63", "\uff0d"} {
			b = strings.ReplaceAll(b, d, "-")
		}
		if b != a {
			if out == nil {
				out = append([]string(nil), args...)
			}
			out[i] = b
		}
	}
	if out == nil {
		return args
	}
	return out
}

// guardshEnv denies assignments that loosen guardsh itself from inside a
// session: GUARDSH_MODE laxer than the current mode, GUARDSH_SANDBOX=off,
// GUARDSH_SANDBOX_DISABLE, GUARDSH_SANDBOX_WRITE, GUARDSH_CONFIG...
func (cx *cmdCtx) guardshEnv(assign string) {
	k, v, ok := strings.Cut(assign, "=")
	if !ok || !strings.HasPrefix(k, "GUARDSH_") {
		return
	}
	switch k {
	case "GUARDSH_MODE":
		if m, err := ParseMode(v); err == nil && laxer(m, cx.p.Mode) {
			cx.j.match(idGuardshSelf, assign)
		}
	case "GUARDSH_SANDBOX", "GUARDSH_SANDBOX_DISABLE", "GUARDSH_SANDBOX_WRITE", "GUARDSH_SANDBOX_TMP", "GUARDSH_SANDBOX_UNIX",
		"GUARDSH_CONFIG", "GUARDSH_PROJECT", "GUARDSH_TRUST", "GUARDSH_AUDIT", "GUARDSH_SANDBOX_RUN":
		cx.j.match(idGuardshSelf, assign)
	}
}

// laxer reports whether mode a allows more than mode b.
func laxer(a, b Mode) bool {
	rank := func(m Mode) int {
		switch m {
		case ModeStrict:
			return -1
		case ModePlan:
			return 0
		case ModeEdits:
			return 2
		case ModeAuto:
			return 3
		case ModeBypass:
			return 4
		}
		return 1
	}
	return rank(a) > rank(b)
}

// hGuardsh: a nested guardsh keeps the session's mode and sandbox.
func hGuardsh(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	for k, a := range args[1:] {
		switch {
		case a == "--mode" && k+2 < len(args):
			cx.guardshEnv("GUARDSH_MODE=" + args[k+2])
		case strings.HasPrefix(a, "--mode="):
			cx.guardshEnv("GUARDSH_MODE=" + a[len("--mode="):])
		case a == "--no-sandbox" || a == "--trust" || strings.HasPrefix(a, "--trust="):
			cx.j.match(idGuardshSelf, a)
		case strings.HasPrefix(strings.TrimLeft(a, "-"), "admin") && strings.HasPrefix(a, "-"):
			cx.j.match(idGuardshAdmin, a)
		}
	}
}

// hDeclare: export/declare/readonly ... may set GUARDSH_* variables.
func hDeclare(cx *cmdCtx, name string, args []string) {
	cx.j.kind = kPure
	for _, a := range args[1:] {
		cx.guardshEnv(a)
	}
}

func displayArgs(args []string, n int) []string {
	out := make([]string, 0, n)
	for i, a := range args {
		if i == n {
			out = append(out, "...")
			break
		}
		out = append(out, displayArg(a))
	}
	return out
}

// dynamicCommand judges a command whose name is not known statically: it
// asks, unless the arguments would be denied for rm or a shell.
func (cx *cmdCtx) dynamicCommand(args []string) {
	cx.j.other(idDynamicCommand, displayArg(args[0]))
	if len(args) < 2 {
		return
	}
	// Guess only when the arguments read like rm's (-rf ...) or a shell's
	// (-c STRING): $CMD -rf /, $SHELL -c "...".
	rmLike, shLike := false, false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rR") && strings.Trim(a[1:], "rRfvid") == "" || a == "--recursive" || a == "--no-preserve-root" {
			rmLike = true
		}
	}
	if len(args[1]) > 1 && args[1][0] == '-' && args[1][1] != '-' && strings.ContainsRune(args[1], 'c') {
		shLike = true
	}
	for _, as := range [...]string{"rm", "sh"} {
		if as == "rm" && !rmLike || as == "sh" && !shLike {
			continue
		}
		v := cx.p.classifyArgs(cx.c, append([]string{as}, args[1:]...), cx.depth+1, cx.fromInput)
		if v.Decision == Deny {
			v.Reason = "command name not known statically (" + displayArg(args[0]) + "); as " + as + " this is denied: " + v.Reason
			cx.j.addNested(v)
			return
		}
	}
}

// inputWord stands for the arguments xargs and parallel read from input.
var inputWord = dynWord("(input)")

// operands returns the words that are not options (all words after "--").
func operands(args []string, spec optSpec) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' && !isDynamic(a) {
			if strings.HasPrefix(a, "--") {
				if !strings.Contains(a, "=") && spec.longTakes(a[2:]) {
					i++
				}
				continue
			}
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(spec.short, a[k]) >= 0 {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// optValue returns the value of option short -c / --long (last wins).
func optValue(args []string, c byte, long string) (string, bool) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case long != "" && a == "--"+long:
			if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		case long != "" && strings.HasPrefix(a, "--"+long+"="):
			val, found = a[len(long)+3:], true
		case c != 0 && len(a) >= 2 && a[0] == '-' && a[1] == c:
			if len(a) > 2 {
				val, found = a[2:], true
			} else if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		}
	}
	return val, found
}

// optValues is optValue's every occurrence, in order.
func optValues(args []string, c byte, long string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case long != "" && a == "--"+long:
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case long != "" && strings.HasPrefix(a, "--"+long+"="):
			out = append(out, a[len(long)+3:])
		case c != 0 && len(a) >= 2 && a[0] == '-' && a[1] == c:
			if len(a) > 2 {
				out = append(out, a[2:])
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out
}

// read judges reading a path.
func (cx *cmdCtx) read(arg string) {
	t := cx.pe.resolve(arg)
	if t.abs == "" {
		return
	}
	if len(cx.j.eff.Reads) < 32 {
		cx.j.eff.Reads = append(cx.j.eff.Reads, t.abs)
	}
	switch {
	case t.loc == locDevice:
		cx.j.other(idDiskReadRaw, t.abs)
	case cx.pe.credential(t.abs):
		cx.j.matchOver(idReadCredentials, t.abs)
	}
}

// readTree judges reading a whole directory tree (tar, zip -r, cp -r,
// rsync, grep -r): a tree that holds credentials (/, home, ~/.config,
// /etc, /root) asks like reading them.
func (cx *cmdCtx) readTree(arg string) {
	cx.read(arg)
	t := cx.pe.resolve(arg)
	if t.abs == "" {
		return
	}
	holds := t.loc == locRoot || t.loc == locHome || t.abs == "/etc" || t.abs == "/root" || t.abs == "/home"
	if !holds && cx.pe.home != "" {
		for _, c := range [...]string{"/.ssh", "/.aws", "/.config", "/.gnupg", "/.kube", "/.docker", "/.local/share", "/.mozilla", "/Library"} {
			if within(cx.pe.home+c, t.abs) {
				holds = true
				break
			}
		}
	}
	if holds {
		cx.j.matchOver(idReadCredentials, "reads the whole tree "+t.abs+", credentials included")
	}
}

// write judges writing (del: deleting) a path.
func (cx *cmdCtx) write(arg string, del bool) { cx.writeAt(cx.pe.resolve(arg), arg, del) }

// writeName is write for an operation on the name itself (rename, a link
// created): a symlink in the last component is not followed.
func (cx *cmdCtx) writeName(arg string, del bool) { cx.writeAt(cx.pe.resolveName(arg), arg, del) }

func (cx *cmdCtx) writeAt(t target, arg string, del bool) {
	j := cx.j
	if t.abs != "" && len(j.eff.Writes) < 32 {
		j.eff.Writes = append(j.eff.Writes, t.abs)
	}
	switch {
	case t.loc == locUnknown:
		j.other(idWriteOutside, "target not known before it runs: "+displayArg(arg))
	case t.loc == locDevSafe:
		if del {
			j.match(idRmSystemFile, t.abs)
		}
		j.atLeast(kEdit)
	case t.loc == locDevice:
		j.match(idDevice, t.abs)
	case cx.pe.protectedWrite(t.abs):
		j.match(idWriteProtected, t.abs)
	case agentConfig(t.abs):
		j.other(idWriteAgentConfig, t.abs)
	case del && t.loc.inside() && gitDataID(cx.pe.project, t.abs) != idNone:
		j.match(gitDataDelete(cx.pe.project, t.abs))
	case t.loc.inside() || t.loc == locSharedTmp && !del:
		j.atLeast(kEdit)
	case t.loc == locSystem && del:
		j.match(idRmSystemFile, t.abs)
	case t.loc == locRoot || t.loc == locHome:
		if del {
			id := idRmRoot
			if t.loc == locHome {
				id = idRmHome
			}
			j.match(id, t.abs)
		} else {
			j.other(idWriteOutside, t.abs)
		}
	default:
		j.other(idWriteOutside, t.abs)
	}
}

// sandboxedTmpDelete reports whether a recursive delete below the shared
// /tmp or /var/tmp is one the session sandbox contains: those are writable
// roots of the sandbox (anything that runs there may delete in them), and
// the target is named literally to rm, without "..", a glob, or input
// from elsewhere (find -delete may follow links; inline code's paths are
// read from its text). (A symlink in the path is resolved by the runner, which judges
// the resolved target too.)
func (cx *cmdCtx) sandboxedTmpDelete(arg string) bool {
	return cx.p.Sandboxed && cx.prog == "rm" && !cx.fromInput && !isDynamic(arg) && !strings.Contains(arg, "..") &&
		!strings.ContainsAny(arg, "*?[")
}

// artifactDirs are generated directories a build can recreate.
var artifactDirs = map[string]bool{
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true, "__pycache__": true,
	".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true, ".tox": true, ".nox": true,
	".venv": true, "venv": true, "coverage": true, "htmlcov": true, ".coverage": true, ".cache": true,
	".next": true, ".nuxt": true, ".parcel-cache": true, ".turbo": true, ".gradle": true, "obj": true,
	".eggs": true, ".svelte-kit": true, "tmp": true, "temp": true, ".tmp": true, "_build": true,
	".angular": true, "storybook-static": true, "site": true, "bin": false, ".hypothesis": true,
	"pkg": false, "zig-cache": true, "zig-out": true, ".zig-cache": true, "cmake-build-debug": true,
	"cmake-build-release": true, ".dart_tool": true, ".expo": true, "buck-out": true, "bazel-out": true,
	"lib-cov": true, ".nyc_output": true, "test-results": true, "playwright-report": true, "logs": true,
}

func (cx *cmdCtx) artifact(abs string) bool {
	rel, ok := strings.CutPrefix(abs, cx.pe.project+"/")
	if !ok {
		return false
	}
	for _, comp := range strings.Split(rel, "/") {
		if artifactDirs[comp] || strings.HasSuffix(comp, ".egg-info") || strings.HasPrefix(comp, "cmake-build-") {
			return true
		}
	}
	return false
}

// remove judges deleting a target; rec: recursively.
func (cx *cmdCtx) remove(arg string, rec bool) {
	j := cx.j
	t := cx.pe.resolveName(arg)
	if t.abs != "" && len(j.eff.Writes) < 32 {
		j.eff.Writes = append(j.eff.Writes, t.abs)
	}
	rec = rec || t.whole
	what := t.abs
	if t.whole {
		what += "/*"
	}
	if r, ok := strings.CutSuffix(what, "/\x01found"); ok {
		what = "the files find matches below " + r // findMatch's stand-in
	}
	switch {
	case t.loc == locUnknown:
		switch {
		case rec && (cx.fromInput || arg == inputWord):
			j.match(idRmXargs, displayArg(arg))
		case rec:
			j.other(idRmDynamic, displayArg(arg))
		default:
			j.other(idWriteOutside, "target not known before it runs: "+displayArg(arg))
		}
	case t.loc == locRoot:
		j.match(idRmRoot, what)
	case t.loc == locHome:
		j.match(idRmHome, what)
	case t.loc == locDevice:
		j.match(idDevice, t.abs)
	case t.loc == locDevSafe:
		j.match(idRmSystemFile, t.abs)
	case cx.pe.protectedWrite(t.abs):
		j.match(idWriteProtected, t.abs)
	case t.loc == locSystem:
		if rec {
			j.match(idRmSystem, what)
		} else {
			j.match(idRmSystemFile, what)
		}
	case t.loc == locProject && gitDataID(cx.pe.project, t.abs) != idNone:
		j.match(gitDataDelete(cx.pe.project, t.abs))
	case t.loc == locProjectRoot:
		if rec {
			j.match(idRmProjectRoot, what)
		} else {
			j.atLeast(kEdit)
		}
	case t.loc == locProject:
		if rec && !cx.artifact(t.abs) {
			j.other(idRmProject, what)
		} else {
			j.atLeast(kEdit)
		}
	case t.loc == locTemp || t.loc == locSharedTmp && (!rec || cx.sandboxedTmpDelete(arg)):
		j.atLeast(kEdit)
	case t.loc == locSharedTmp:
		j.other(idWriteOutside, what)
	case t.loc == locTempRoot:
		switch {
		case rec && !t.whole:
			j.match(idRmSystem, what)
		case rec && sharedTempRoot(t.abs):
			j.match(idRmSharedTemp, what)
		case rec:
			// the session's own temp dir's contents
			j.atLeast(kEdit)
		}
	case agentConfig(t.abs):
		j.other(idWriteAgentConfig, t.abs)
	default: // home or elsewhere, outside the project
		if rec && t.loc == locHomeSub {
			j.match(idRmHome, what)
		} else if rec {
			j.match(idRmOutside, what)
		} else {
			j.other(idWriteOutside, what)
		}
	}
}

// longIs reports whether a (before any "=") is an abbreviation of the long
// option full ("--rec" for "--recursive") of at least min characters.
func longIs(a, full string, min int) bool {
	name, _, _ := strings.Cut(a, "=")
	return len(name) >= min && strings.HasPrefix(full, name)
}

func hRm(cx *cmdCtx, name string, args []string) {
	rec, noPreserve, dynOpt := false, false, false
	var targets []string
	optsDone := false
	for _, a := range args[1:] {
		switch {
		case optsDone:
			targets = append(targets, a)
		case a == "--":
			optsDone = true
		case isDynamic(a):
			if a != inputWord {
				dynOpt = true // $FLAGS may hold -r
			}
			targets = append(targets, a)
		case strings.HasPrefix(a, "--"):
			switch {
			case longIs(a, "--recursive", 3):
				rec = true
			case longIs(a, "--no-preserve-root", 4):
				noPreserve = true
			}
		case len(a) > 1 && a[0] == '-':
			if strings.ContainsAny(a[1:], "rR") {
				rec = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if name == "rmdir" || name == "unlink" {
		rec = false
	}
	if dynOpt {
		rec = true
	}
	if noPreserve {
		cx.j.match(idRmNoPreserveRoot, "")
	}
	if len(targets) == 0 && cx.fromInput {
		targets = []string{inputWord}
	}
	for _, t := range targets {
		cx.remove(t, rec)
	}
	if rec {
		cx.projectSweep(targets)
	}
	cx.j.atLeast(kEdit)
}

// projectSweep: at run time the shell has already expanded rm -rf * in the
// project root into its entries. Three or more top-level entries of the
// project that are not build artifacts are treated as that glob.
func (cx *cmdCtx) projectSweep(targets []string) {
	if cx.pe.project == "" || len(targets) < 3 {
		return
	}
	seen := map[string]bool{}
	for _, a := range targets {
		t := cx.pe.resolve(a)
		if t.loc != locProject || t.whole || path.Dir(t.abs) != cx.pe.project || cx.artifact(t.abs) {
			continue
		}
		seen[t.abs] = true
	}
	if len(seen) >= 3 {
		cx.j.match(idRmProjectRoot, fmt.Sprintf("%d top-level entries of the project at once (rm -rf * in the project root)", len(seen)))
	}
}

func hShred(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "nsr", long: []string{"iterations", "size", "random-source", "reference"}}
	ops := operands(args[1:], spec)
	for _, t := range ops {
		cx.remove(t, false)
	}
	if len(ops) > 0 {
		cx.j.other(idRmDestroyData, name+" "+strings.Join(displayArgs(ops, 3), " "))
	}
}

// xargs and parallel run a command with arguments read from input.
// maxXargsLines bounds the input lines of xargs and parallel judged (the
// runner hands at most 64 KiB at a time); xargsGroup is how many input
// words are judged in one command line.
const (
	maxXargsLines = 1 << 16
	xargsGroup    = 32
)

func (cx *cmdCtx) xargs(name string, args []string) {
	cx.j.kind = kPure
	// input lines, when the checker or the runner (Command.Input) knows
	// them: all of them count, the 17th line as much as the first
	var known []string
	if cx.stdin != nil && cx.stdin.kind == srcStatic {
		for _, l := range strings.Split(strings.TrimRight(cx.stdin.text, "\n"), "\n") {
			if len(known) == maxXargsLines {
				cx.j.other(idInlineCode, name+" input of more than "+strconv.Itoa(maxXargsLines)+" lines")
				break
			}
			known = append(known, l)
		}
	}
	if name == "parallel" {
		i := optSpec{short: "jSaI", long: []string{"jobs", "sshlogin", "arg-file", "joblog", "results", "tmpdir"}}.skip(args, 1)
		inner := args[i:]
		var items []string
		hasItems := false
		for k, a := range inner {
			if a == ":::" || a == "::::" {
				items = inner[k+1:]
				inner = inner[:k]
				hasItems = a == ":::"
				break
			}
		}
		if !hasItems && known != nil {
			items, hasItems = known, true
		}
		if len(inner) == 0 {
			// the input lines are the commands
			switch {
			case hasItems:
				for n, it := range items {
					if n == 8 {
						break
					}
					cx.nestItemScript(it)
				}
				cx.j.other(idShellStdin, "parallel runs its input lines as commands")
			default:
				cx.j.other(idShellStdin, "parallel runs its input lines as commands")
			}
			return
		}
		if hasItems {
			for n, it := range items {
				if n == 8 {
					break
				}
				cx.nestItem(append(append([]string(nil), inner...), it))
			}
			return
		}
		cx.nestInput(append(append([]string(nil), inner...), inputWord))
		return
	}
	i := specXargs.skip(args, 1)
	if name == "xargs" {
		// xargs -a FILE: the file's words become the command's arguments
		if f, ok := optValue(args[1:i], 'a', "arg-file"); ok {
			cx.read(f)
		}
	}
	inner := []string{"echo"}
	if i < len(args) {
		inner = append([]string(nil), args[i:]...)
	}
	repl, hasRepl := optValue(args[1:i], 'I', "replace")
	if !hasRepl {
		for _, a := range args[1:i] {
			if a == "-i" || strings.HasPrefix(a, "-i") && len(a) > 2 {
				repl, hasRepl = "{}", true
				if len(a) > 2 {
					repl = a[2:]
				}
			}
		}
	}
	if known != nil {
		if hasRepl && repl != "" {
			for _, line := range known {
				sub := make([]string, len(inner))
				found := false
				for k, w := range inner {
					found = found || strings.Contains(w, repl)
					sub[k] = strings.ReplaceAll(w, repl, line)
				}
				if !found {
					sub = append(sub, line)
				}
				cx.nestItem(sub)
			}
			return
		}
		var words []string
		for _, l := range known {
			words = append(words, strings.Fields(l)...)
		}
		// in groups the handlers judge whole (they look at 64 operands)
		for len(words) > xargsGroup {
			cx.nestItem(append(append([]string(nil), inner...), words[:xargsGroup]...))
			words = words[xargsGroup:]
		}
		cx.nestItem(append(append([]string(nil), inner...), words...))
		// xargs honours quotes: a line may also arrive as one argument
		for n, l := range known {
			if n == 4 {
				break
			}
			cx.nestItem(append(append([]string(nil), inner...), l))
		}
		return
	}
	replaced := false
	if hasRepl && repl != "" {
		for k := 1; k < len(inner); k++ {
			if strings.Contains(inner[k], repl) {
				inner[k] = dynWord(inner[k])
				replaced = true
			}
		}
	}
	if !replaced {
		inner = append(inner, inputWord)
	}
	cx.nestInput(inner)
}

func hPure(cx *cmdCtx, name string, args []string) { cx.j.kind = kPure }

func hDev(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	if name == "java" {
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
				cx.j.eff.Network = true
				cx.j.other(idNetwork, "java program talking to "+a)
				return
			}
		}
	}
}

// readSpecs lists read-only commands; the value is how many leading
// operands are not paths (grep's pattern).
var readSpecs = map[string]int{
	"ls": 0, "cat": 0, "head": 0, "tail": 0, "less": 0, "more": 0, "bat": 0, "batcat": 0, "wc": 0,
	"cut": 0, "tr": -1, "diff": 0, "cmp": 0, "comm": 0, "file": 0, "stat": 0, "du": 0, "df": 0,
	"tree": 0, "xxd": 0, "od": 0, "hexdump": 0, "strings": 0, "nl": 0, "tac": 0, "rev": 0,
	"column": 0, "fold": 0, "fmt": 0, "paste": 0, "join": 0, "md5sum": 0, "sha1sum": 0,
	"sha256sum": 0, "sha512sum": 0, "sha224sum": 0, "sha384sum": 0, "b2sum": 0, "cksum": 0, "sum": 0,
	"md5": 0, "shasum": 0, "base32": 0, "numfmt": -1, "expand": 0, "unexpand": 0, "zcat": 0,
	"bzcat": 0, "xzcat": 0, "zless": 0, "lsof": -1, "ps": -1, "pgrep": -1, "top": -1, "htop": -1,
	"free": -1, "uptime": -1, "w": -1, "who": -1, "last": -1, "lscpu": -1, "lsblk": -1, "lsusb": -1,
	"lspci": -1, "dmesg": -1, "printenv": -1, "locale": -1, "getconf": -1, "man": -1, "info": -1,
	"tldr": -1, "whereis": -1, "which": -1, "apropos": -1, "whatis": -1, "cal": -1, "factor": -1,
	"expr": -1, "bc": 0, "dc": 0, "whoami": -1, "id": -1, "groups": -1, "uname": -1, "arch": -1,
	"nproc": -1, "tty": -1, "realpath": 0, "readlink": 0, "basename": -1, "dirname": -1,
	"seq": -1, "date": -1, "sleep": -1, "yes": -1, "jq": 1, "yq": 1, "gojq": 1, "jless": 0,
	"grep": 1, "egrep": 1, "fgrep": 1, "zgrep": 1, "rg": 1, "ag": 1, "ack": 1, "git-grep": 1,
	"fd": 1, "fdfind": 1, "locate": -1, "look": 1, "shuf": 0, "sort": 0, "uniq": 0, "fzf": -1,
	"delta": 0, "difftool": 0, "colordiff": 0, "icdiff": 0, "wdiff": 0, "sdiff": 0, "diff3": 0,
	"pstree": -1, "vmstat": -1, "iostat": -1, "mpstat": -1, "ss": -1, "netstat": -1, "ip": -1,
	"ifconfig": -1, "env": -1, "pwd": -1, "hostname": -1, "stty": -1, "tput": -1, "clear": -1,
	"reset": -1, "history": -1, "cloc": 0, "tokei": 0, "scc": 0, "exa": 0, "eza": 0, "lsd": 0,
	"du-dust": 0, "dust": 0, "ncdu": 0, "duf": -1, "file-info": 0, "identify": 0, "exiftool": 0,
	"pdfinfo": 0, "pdftotext": 0, "mediainfo": 0, "ffprobe": 0, "sqlite3": -2, "csvlook": 0,
	"xmllint": 0, "htmlq": 1, "pup": -1, "mlr": -1, "tsc-check": 0, "python-config": -1,
	"pip-licenses": -1, "printf": -1, "echo": -1, "test": -1, "[": -1, "true": -1, "false": -1,
	"base64": 0, "iconv": 0, "ldd": 0, "nm": 0, "objdump": 0, "readelf": 0, "size": 0,
	"lsattr": 0, "getfacl": 0, "namei": 0, "tput-": -1, "hash": -1, "type": -1, "help": -1,
	"zipinfo": 0, "unzip-l": 0, "blkid": -1, "findmnt": -1, "mount-l": -1, "systemd-analyze": -1,
	"journalctl": -1, "timedatectl-status": -1, "lsmod": -1, "sensors": -1, "nvidia-smi": -1,
}

// readerSpecs are the options of readers whose option letters differ from
// grep's (the default spec): od -c and hexdump -C take no value, so the
// file after them is an operand.
var readerSpecs = map[string]optSpec{
	"od":      {short: "AjNSstw", long: []string{"address-radix", "skip-bytes", "read-bytes", "strings", "format", "width", "endian"}},
	"hexdump": {short: "efns", long: []string{"format", "format-file", "length", "skip"}},
	"xxd":     {short: "cglosnC", long: []string{"cols", "groupsize", "len", "offset", "seek", "name"}},
	"wc":      {long: []string{"files0-from"}},
	"strings": {short: "ntesT", long: []string{"bytes", "radix", "encoding", "target", "output-separator"}},
	"nl":      {short: "bdfhilnpsvw", long: []string{"body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"}},
	"md5sum":  {}, "sha1sum": {}, "sha256sum": {}, "sha512sum": {}, "sha224sum": {}, "sha384sum": {}, "b2sum": {short: "l", long: []string{"length"}},
	"cksum": {short: "al", long: []string{"algorithm", "length"}}, "sum": {}, "base32": {short: "w", long: []string{"wrap"}}, "tac": {short: "s", long: []string{"separator"}}, "rev": {},
}

func hRead(cx *cmdCtx, name string, args []string) {
	skip := readSpecs[name]
	j := cx.j
	j.atLeast(kRead)
	switch name {
	case "sort", "shuf":
		if out, ok := optValue(args[1:], 'o', "output"); ok {
			cx.write(out, false)
		}
		if name == "sort" && hasOpt(args[1:], 0, "compress-program") {
			j.other(idInlineCode, "sort --compress-program runs a program")
			cx.optionCommands(args, 0, "compress-program")
		}
	case "base64", "base32":
		if out, ok := optValue(args[1:], 'o', "output"); ok {
			cx.write(out, false)
		}
	case "rg":
		if hasOpt(args[1:], 0, "pre", "hostname-bin") {
			j.other(idInlineCode, "rg --pre runs a program for every file")
		}
	case "date":
		if hasOpt(args[1:], 's', "set") {
			j.other(idSysSystemWrite, "date --set")
		}
		// An operand other than +FORMAT (MMDDhhmm[[CC]YY][.ss]) sets the
		// clock, as --set does.
		for _, op := range operands(args[1:], optSpec{short: "dfrs", long: []string{"date", "file", "reference", "set"}}) {
			if !strings.HasPrefix(op, "+") {
				j.other(idSysSystemWrite, "date "+displayArg(op)+" (an operand other than +FORMAT sets the clock)")
				break
			}
		}
	case "hostname":
		if ops := operands(args[1:], optSpec{}); len(ops) > 0 {
			j.other(idSysSystemWrite, "hostname "+displayArg(ops[0]))
		}
	case "ip":
		if ops := operands(args[1:], optSpec{}); len(ops) > 1 {
			switch ops[1] {
			case "add", "del", "delete", "set", "change", "replace", "flush", "append":
				j.other(idSysSystemWrite, "ip "+strings.Join(displayArgs(ops, 3), " "))
			}
		}
	case "ifconfig":
		if ops := operands(args[1:], optSpec{}); len(ops) > 1 {
			j.other(idSysSystemWrite, "ifconfig "+strings.Join(displayArgs(ops, 3), " "))
		}
	case "sqlite3":
		// sqlite3 DB [SQL]: local database file, may write it; its SQL
		// arguments, -cmd values and standard input may hold dot-commands.
		j.atLeast(kEdit)
		ops := operands(args[1:], optSpec{short: "", long: []string{"cmd", "init", "separator", "newline", "nullvalue"}})
		if len(ops) > 0 && ops[0] != ":memory:" && ops[0] != "" {
			cx.write(ops[0], false)
		}
		for k, a := range args[1:] {
			if (a == "-cmd" || a == "--cmd") && k+2 < len(args) {
				cx.sqliteText(args[k+2])
			}
			if (a == "-init" || a == "--init") && k+2 < len(args) {
				cx.read(args[k+2])
			}
		}
		if len(ops) > 1 {
			for _, sql := range ops[1:] {
				cx.sqliteText(sql)
			}
		} else if text, ok := cx.stdinText(); ok {
			cx.sqliteText(text)
		}
		return
	case "uniq":
		if ops := operands(args[1:], optSpec{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}}); len(ops) > 1 {
			cx.write(ops[1], false)
		}
	case "fd", "fdfind":
		if hasOpt(args[1:], 'x', "exec", "exec-batch") || hasOpt(args[1:], 'X') {
			j.other(idUnknown, "fd --exec")
		}
	case "env", "printenv":
		// no command: prints the environment
	case "less", "more", "man":
		if name == "man" {
			cx.optionCommands(args, 'P', "pager")
		}
		// preprocessors and pagers they start
		if cx.c.Env != nil {
			for _, k := range [...]string{"LESSOPEN", "LESSCLOSE", "MANPAGER", "PAGER"} {
				if v := cx.c.Env(k); v != "" {
					cx.nestDenyOnly(strings.TrimLeft(v, "|- "))
				}
			}
		}
	}
	if skip < 0 {
		return
	}
	spec := optSpec{short: "efABCmdgtTMDnco", long: []string{"regexp", "file", "max-count", "context", "after-context", "before-context", "glob", "type", "type-not", "max-depth", "lines", "bytes"}}
	if name == "ls" || name == "cat" || name == "tree" || name == "du" {
		spec = optSpec{short: "ILIw", long: []string{"ignore", "hide", "block-size", "width", "exclude"}}
	}
	if s, ok := readerSpecs[name]; ok {
		spec = s
	}
	ops := operands(args[1:], spec)
	if skip > 0 && (name == "grep" || name == "egrep" || name == "fgrep" || name == "zgrep" || name == "rg" || name == "ag" || name == "ack") {
		if hasOpt(args[1:], 'e', "regexp") || hasOpt(args[1:], 'f', "file") {
			skip = 0
		}
	}
	tree := name == "rg" || name == "ag" || name == "ack" || (name == "grep" || name == "egrep" || name == "fgrep") && (hasOpt(args[1:], 'r', "recursive", "dereference-recursive") || hasOpt(args[1:], 'R')) || name == "du" || name == "tree"
	for k, o := range ops {
		if k < skip {
			continue
		}
		if k > 64 {
			break
		}
		if tree && name != "du" && name != "tree" {
			cx.readTree(o)
		} else {
			cx.read(o)
		}
	}
}

// Commands that only change files: every operand is written.
func hWriteAll(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "mrdtsSZ", long: []string{"mode", "reference", "date", "time", "size", "context"}}
	if name == "mknod" || name == "mkfifo" {
		if name == "mknod" {
			cx.j.other(idSysSystemWrite, "mknod creates device nodes")
		}
	}
	if name == "tee" {
		spec = optSpec{long: []string{"output-error"}}
	}
	ops := operands(args[1:], spec)
	if name == "mknod" && len(ops) > 0 {
		ops = ops[:1]
	}
	for _, o := range ops {
		cx.write(o, false)
	}
}

func hCopy(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "tSmogb", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup", "reply", "sparse", "preserve", "no-preserve", "reflink", "context"}}
	ops := operands(args[1:], spec)
	dest, hasT := optValue(args[1:], 't', "target-directory")
	if name == "install" && hasOpt(args[1:], 'd', "directory") {
		for _, o := range ops {
			cx.write(o, false)
		}
		return
	}
	if !hasT {
		if len(ops) == 0 {
			return
		}
		if len(ops) == 1 && name == "ln" {
			dest = "."
		} else {
			dest = ops[len(ops)-1]
			ops = ops[:len(ops)-1]
		}
	}
	switch name {
	case "mv":
		d := cx.pe.resolve(dest)
		if d.loc == locDevSafe || d.loc == locDevice {
			cx.j.match(idMvDevnull, displayArg(dest))
		}
		for _, o := range ops {
			t := cx.pe.resolveName(o)
			switch {
			case t.loc == locRoot || t.loc == locHome || t.loc == locProjectRoot || t.loc == locTempRoot ||
				t.loc == locSystem && strings.Count(t.abs, "/") <= 2:
				cx.j.match(idMvCatastrophic, t.abs)
			default:
				cx.writeName(o, true)
			}
		}
	case "ln":
		// a symbolic link's target is not touched; a hard link is the
		// same file under a new name, readable where the link is; the
		// link itself is written
		if !hasOpt(args[1:], 's', "symbolic") {
			for _, o := range ops {
				cx.read(o)
			}
		}
		cx.writeName(dest, false)
		return
	default:
		rec := hasOpt(args[1:], 'r', "recursive", "archive") || hasOpt(args[1:], 'R') || hasOpt(args[1:], 'a')
		for _, o := range ops {
			if rec {
				cx.readTree(o)
			} else {
				cx.read(o)
			}
		}
	}
	cx.write(dest, false)
}

func hPerms(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	rec := false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if isDynamic(a) {
			rec = true
		} else if strings.HasPrefix(a, "--") {
			if longIs(a, "--recursive", 4) {
				rec = true
			}
		} else if len(a) > 1 && a[0] == '-' && strings.ContainsRune(a[1:], 'R') {
			rec = true
		}
	}
	ops := operands(args[1:], optSpec{long: []string{"reference", "from"}})
	// chmod -x FILE: "-x" is a mode, not an option.
	if name == "chmod" {
		for _, a := range args[1:] {
			if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugo") == "" && !strings.ContainsRune(a, 'R') {
				ops = append([]string{a}, ops...)
				break
			}
		}
	}
	if !hasOpt(args[1:], 0, "reference") && len(ops) > 0 {
		mode := ops[0]
		ops = ops[1:]
		if name == "chmod" && setuidMode(mode) {
			cx.j.other(idPermsSetuid, mode)
		}
	}
	for _, o := range ops {
		t := cx.pe.resolve(o)
		if rec || t.whole {
			switch t.loc {
			case locRoot, locHome, locSystem, locTempRoot:
				cx.j.match(idPermsRecursiveSystem, t.abs)
				continue
			case locUnknown:
				cx.j.unsure(idPermsRecursiveSystem, "target not known before it runs: "+displayArg(o))
				continue
			}
		}
		cx.write(o, false)
	}
}

func setuidMode(m string) bool {
	if isDynamic(m) {
		return false
	}
	if strings.Trim(m, "01234567") == "" {
		return len(m) == 4 && (m[0] == '4' || m[0] == '2' || m[0] == '6')
	}
	return strings.Contains(m, "+s") || strings.ContainsAny(m, "s") && strings.Contains(m, "=")
}

func hDd(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "of="):
			cx.write(a[3:], false)
		case strings.HasPrefix(a, "if="):
			cx.read(a[3:])
		}
	}
}

// disk tools: formatting and partitioning.
func hDisk(cx *cmdCtx, name string, args []string) {
	list := false
	switch name {
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk":
		list = hasOpt(args[1:], 'l', "list") || hasOpt(args[1:], 'd', "dump") || hasOpt(args[1:], 'p', "print")
	case "wipefs":
		list = !hasOpt(args[1:], 'a', "all") && !hasOpt(args[1:], 'o', "offset")
	case "hdparm", "badblocks":
		list = !hasOpt(args[1:], 'w') && !hasOpt(args[1:], 0, "security-erase", "trim-sector-ranges")
	}
	if list {
		cx.j.atLeast(kRead)
		return
	}
	ops := operands(args[1:], optSpec{short: "tLbcCEgGIiJlmMNOoqrRsTUvF", long: []string{"type", "label", "block-size"}})
	dev := false
	for _, o := range ops {
		if isDynamic(o) {
			cx.j.unsure(idDiskFormat, "target not known before it runs: "+displayArg(o))
			continue
		}
		t := cx.pe.resolve(o)
		if t.loc == locDevice || strings.HasPrefix(t.abs, "/dev/") {
			cx.j.match(idDiskFormat, t.abs)
			dev = true
		}
	}
	if dev {
		return
	}
	// mkfs on an image file inside the project is an edit.
	for _, o := range ops {
		if strings.HasPrefix(o, "-") {
			continue
		}
		t := cx.pe.resolve(o)
		if t.loc.inside() {
			cx.j.atLeast(kEdit)
			if t.abs != "" {
				cx.j.eff.Writes = append(cx.j.eff.Writes, t.abs)
			}
			return
		}
	}
	cx.j.unsure(idDiskFormat, strings.Join(displayArgs(args, 4), " "))
}

func hKill(cx *cmdCtx, name string, args []string) {
	switch name {
	case "killall", "killall5":
		if hasOpt(args[1:], 'l', "list") {
			cx.j.kind = kPure
			return
		}
		cx.j.match(idProcKillAll, strings.Join(displayArgs(args, 4), " "))
		return
	case "pkill", "skill", "slay":
		cx.j.other(idProcKill, strings.Join(displayArgs(args, 4), " "))
		return
	}
	for _, a := range args[1:] {
		if a == "-l" || a == "-L" || a == "--list" || a == "--table" {
			cx.j.kind = kPure
			return
		}
	}
	ops := operands(args[1:], optSpec{short: "sn", long: []string{"signal"}})
	// "kill -9 -1": -1 after the signal is a pid; operands() took it as a flag.
	pidsAll := false
	for k, a := range args[1:] {
		if a == "-1" && (k > 0 || len(args) == 2) {
			pidsAll = true
		}
	}
	jobsOnly := len(ops) > 0
	for _, o := range ops {
		if o == "-1" || o == "1" {
			pidsAll = true
		}
		if !strings.HasPrefix(o, "%") && !cx.ownProcess(o) {
			jobsOnly = false
		}
	}
	switch {
	case pidsAll:
		cx.j.match(idProcKillAll, strings.Join(displayArgs(args, 4), " "))
	case jobsOnly:
		cx.j.kind = kPure
	default:
		cx.j.other(idProcKill, strings.Join(displayArgs(args, 4), " "))
	}
}

// ownProcess reports whether a kill operand is the PID of a process the
// runner started itself and still runs.
func (cx *cmdCtx) ownProcess(o string) bool {
	if cx.c.OwnProcess == nil || o == "" || o[0] < '1' || o[0] > '9' {
		return false
	}
	pid, err := strconv.Atoi(o)
	return err == nil && cx.c.OwnProcess(pid)
}

// opensslLocal are openssl subcommands that use no network (s_client,
// s_server, ocsp and the like do).
var opensslLocal = map[string]bool{
	"version": true, "help": true, "dgst": true, "x509": true, "req": true, "rand": true, "genrsa": true,
	"genpkey": true, "rsa": true, "pkey": true, "ec": true, "ecparam": true, "enc": true, "base64": true,
	"verify": true, "crl": true, "pkcs12": true, "pkcs7": true, "asn1parse": true, "list": true,
	"sha256": true, "sha1": true, "md5": true, "speed": true, "errstr": true, "passwd": true, "prime": true,
}

func hShutdown(cx *cmdCtx, name string, args []string) {
	if name == "shutdown" && hasOpt(args[1:], 'c') {
		cx.j.other(idSysService, "shutdown -c")
		return
	}
	cx.j.match(idSysShutdown, name)
}

func hInit(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{})
	if len(ops) > 0 && (ops[0] == "0" || ops[0] == "6") {
		cx.j.match(idSysShutdown, name+" "+ops[0])
		return
	}
	cx.j.other(idSysService, name)
}

func hSystemctl(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "HMpstn", long: []string{"host", "machine", "property", "type", "state", "signal", "lines", "output", "root"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "emergency", "rescue", "soft-reboot":
		cx.j.match(idSysShutdown, name+" "+ops[0])
	case "status", "show", "cat", "is-active", "is-enabled", "is-failed", "is-system-running", "list-units",
		"list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs", "help", "get-default", "show-environment":
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idSysService, name+" "+ops[0])
	}
}

func hService(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{})
	if len(ops) >= 2 && ops[1] == "status" || len(ops) == 1 && ops[0] == "--status-all" || hasOpt(args[1:], 0, "status-all") {
		cx.j.atLeast(kRead)
		return
	}
	cx.j.other(idSysService, strings.Join(displayArgs(args, 4), " "))
}

func hCrontab(cx *cmdCtx, name string, args []string) {
	switch {
	case hasOpt(args[1:], 'r'):
		cx.j.match(idSysCrontabRemove, "")
	case hasOpt(args[1:], 'l'):
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idSysSystemWrite, "crontab")
	}
}

func hSysWrite(cx *cmdCtx, name string, args []string) {
	switch name {
	case "sysctl":
		if !hasOpt(args[1:], 'w', "write") && !hasOpt(args[1:], 'p', "load", "system") {
			ok := true
			for _, o := range operands(args[1:], optSpec{}) {
				if strings.Contains(o, "=") {
					ok = false
				}
			}
			if ok {
				cx.j.atLeast(kRead)
				return
			}
		}
	case "mount":
		if len(args) == 1 || hasOpt(args[1:], 'l') {
			cx.j.atLeast(kRead)
			return
		}
	case "iptables", "ip6tables", "nft", "ufw":
		if hasOpt(args[1:], 'L', "list") || hasOpt(args[1:], 'S', "list-rules") || len(args) > 1 && (args[1] == "status" || args[1] == "list") {
			cx.j.atLeast(kRead)
			return
		}
	}
	cx.j.other(idSysSystemWrite, strings.Join(displayArgs(args, 4), " "))
}

// hShell judges sh/bash/... : -c STRING is checked as a script; a script
// file inside the project runs under the same policy.
func hShell(cx *cmdCtx, name string, args []string) {
	j := cx.j
	i := 1
	cmd := false
	for i < len(args) {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if isDynamic(a) || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		i++
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--rcfile", "--init-file":
				i++
			case "--command":
				cmd = true
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			switch a[k] {
			case 'c':
				cmd = true
			case 'o', 'O':
				i++
			}
		}
	}
	if cmd {
		if i >= len(args) {
			j.kind = kPure
			return
		}
		j.kind = kPure
		s := args[i]
		if isDynamic(s) {
			j.other(idShellStdin, "script given as "+displayArg(s))
			return
		}
		cx.nestScriptArgs(s, args[i+1:])
		return
	}
	if i >= len(args) {
		// Reads the script from standard input: the checker judges what
		// feeds it; at run time the runner interprets it itself.
		j.atLeast(kDev)
		return
	}
	t := cx.pe.resolve(args[i])
	switch {
	case t.loc == locProject || t.loc == locTemp || t.loc == locDevSafe:
		j.atLeast(kDev)
		cx.read(args[i])
	case cx.p.Sandboxed && t.loc != locUnknown:
		// a verified sandbox contains it: the runner runs an installed
		// script as the program it is, and interprets any other, judging
		// every command
		j.atLeast(kDev)
		cx.read(args[i])
	default:
		j.other(idShellStdin, "script "+displayArg(args[i]))
		cx.read(args[i])
	}
}

// hSource: source/. FILE runs the file in this shell; the runner judges
// each of its commands.
func hSource(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	if len(args) > 1 {
		t := cx.pe.resolve(args[1])
		if t.loc == locUnknown {
			cx.j.other(idCodeEvalDynamic, displayArg(args[1]))
		}
		cx.read(args[1])
	}
}

// hEval: the runner judges each command eval runs as it runs, so only a
// deny found now (a catastrophic line) is reported here.
func hEval(cx *cmdCtx, name string, args []string) {
	cx.j.kind = kPure
	var b strings.Builder
	for k, a := range args[1:] {
		if isDynamic(a) {
			cx.j.other(idCodeEvalDynamic, displayArg(a))
			return
		}
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	cx.nestDenyOnly(b.String())
}

// nestDenyOnly checks code that will be judged again when it runs (eval,
// trap): only what it would deny counts now.
func (cx *cmdCtx) nestDenyOnly(src string) {
	if v := cx.p.scriptVerdict(src, cx.c, cx.depth+1); v.Decision == Deny {
		cx.j.addNested(v)
	}
}

func hTrap(cx *cmdCtx, name string, args []string) {
	cx.j.kind = kPure
	ops := operands(args[1:], optSpec{})
	if len(ops) >= 2 && ops[0] != "-" && ops[0] != "" {
		if isDynamic(ops[0]) {
			cx.j.other(idCodeEvalDynamic, displayArg(ops[0]))
			return
		}
		cx.nestDenyOnly(ops[0])
	}
}

func hFind(cx *cmdCtx, name string, args []string) {
	j := cx.j
	j.atLeast(kRead)
	i := 1
	for i < len(args) {
		a := args[i]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") {
			i++
			continue
		}
		if a == "-D" {
			i += 2
			continue
		}
		break
	}
	var roots []string
	for i < len(args) {
		a := args[i]
		if !isDynamic(a) && (strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "\\(") {
			break
		}
		roots = append(roots, a)
		i++
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	filtered := false
	expr := args[i:]
	// artifacts: every filter is a -name/-iname naming build artifacts
	// (find . -name '*.pyc' -delete)
	artifacts, names, dirName := true, 0, ""
	for k := 0; k < len(expr); k++ {
		switch a := expr[k]; {
		case (a == "-name" || a == "-iname") && k+1 < len(expr):
			names++
			artifacts = artifacts && artifactName(expr[k+1])
			if artifactDirs[expr[k+1]] && names == 1 {
				dirName = expr[k+1]
			}
			k++
		case a == "-type" || a == "-maxdepth" || a == "-mindepth":
			k++
		case a == "-exec" || a == "-execdir":
			// the action: judged below, with {} standing for what is found
			for k+1 < len(expr) && expr[k+1] != ";" && expr[k+1] != "+" {
				k++
			}
			k++
		case a == "-delete" || a == "-print" || a == "-o" || a == "-or" || a == "(" || a == ")" || a == "\\(" || a == "\\)" || a == "-depth":
		default:
			artifacts = false
		}
	}
	artifacts = artifacts && names > 0
	for k := 0; k < len(expr); k++ {
		a := expr[k]
		switch a {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
			"-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-user", "-group", "-uid", "-gid",
			"-perm", "-links", "-inum", "-samefile", "-type", "-xtype", "-used", "-newermt", "-anewer", "-cnewer", "-fstype",
			"-context", "-mindepth":
			filtered = true
			k++
		case "-maxdepth", "-regextype", "-files0-from":
			k++
		case "-empty":
			filtered = true
		case "-printf", "-fprint", "-fprint0", "-fls", "-fprintf":
			if a != "-printf" && k+1 < len(expr) {
				cx.write(expr[k+1], false)
			}
			k++
			if a == "-fprintf" {
				k++
			}
		case "-delete":
			for _, r := range roots {
				if artifacts && !isDynamic(r) {
					if t := cx.pe.resolve(r); t.loc == locProject || t.loc == locProjectRoot || t.loc == locTemp {
						j.atLeast(kEdit) // generated files only; find -delete removes no non-empty directory
						continue
					}
				}
				cx.findDelete(r, filtered, true)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			end := k + 1
			for end < len(expr) && expr[end] != ";" && !(expr[end] == "+" && end > k+1 && strings.Contains(expr[end-1], "{}")) {
				end++
			}
			inner := append([]string(nil), expr[k+1:min(end, len(expr))]...)
			k = end
			if len(inner) == 0 {
				continue
			}
			// Without its terminator find refuses to run, but a ";" the
			// shell took as a separator is too easy to get wrong: judge it.
			j.kind = kPure
			if in := NormalizeArgv(inner); len(in) > 0 {
				switch in[0] {
				case "rm", "unlink", "shred", "rmdir", "truncate", "srm", "wipe":
					for _, r := range roots {
						switch cx.pe.resolve(r).loc {
						case locRoot, locHome, locSystem, locTempRoot:
							j.match(idFindDeleteOutside, displayArg(r)+" -exec "+in[0])
						}
					}
				}
			}
			for n, r := range roots {
				if n == 4 {
					break
				}
				match := findMatch(r, filtered)
				if artifacts && names == 1 && dirName != "" && !isDynamic(r) {
					// find . -name __pycache__ -exec rm -r {} +: what is
					// found is a generated directory of that name
					if t := cx.pe.resolve(r); t.loc == locProject || t.loc == locProjectRoot {
						match = strings.TrimSuffix(r, "/") + "/" + dirName
					}
				}
				sub := make([]string, len(inner))
				for x, w := range inner {
					if strings.Contains(w, "{}") {
						w = strings.ReplaceAll(w, "{}", match)
					}
					sub[x] = w
				}
				cx.nest(sub)
			}
		}
	}
}

// artifactPatterns are -name patterns of generated files.
var artifactPatterns = map[string]bool{
	"*.pyc": true, "*.pyo": true, "*.o": true, "*.obj": true, "*.class": true, "*.log": true, "*.tmp": true,
	"*~": true, ".DS_Store": true, "*.orig": true, "*.rej": true, "*.swp": true, "*.bak": true, "*.d": true,
	"*.gcda": true, "*.gcno": true, "*.egg-info": true, "*.py[co]": true, "*.so": true, "*.a": true,
	"Thumbs.db": true, "*.coverage": true, ".coverage": true,
}

// artifactName reports whether a find -name pattern names only generated
// files or directories (which find -delete removes only once empty).
func artifactName(p string) bool {
	return artifactPatterns[p] || artifactDirs[p]
}

// findMatch stands for "{}", a file find found below root.
func findMatch(root string, filtered bool) string {
	if isDynamic(root) {
		return root
	}
	root = strings.TrimSuffix(root, "/")
	if root == "" {
		root = "/"
	}
	if filtered {
		if root == "/" {
			return "/\x01found"
		}
		return root + "/\x01found"
	}
	if root == "/" {
		return "/*"
	}
	return root + "/*"
}

// findDelete judges find ROOT ... -delete.
func (cx *cmdCtx) findDelete(root string, filtered, rec bool) {
	t := cx.pe.resolve(root)
	switch t.loc {
	case locRoot, locHome, locSystem, locTempRoot:
		cx.j.match(idFindDeleteOutside, displayArg(root))
		return
	case locProject, locProjectRoot, locTemp, locUnknown:
		cx.remove(findMatch(root, filtered), rec)
		return
	}
	if filtered {
		cx.j.other(idWriteOutside, "find "+t.abs+" ... -delete")
		return
	}
	cx.remove(root, true)
}

// awkOctal decodes the octal escapes (\040) awk decodes in its strings,
// so that a command hidden in them reads as awk will run it.
func awkOctal(prog string) string {
	if !strings.Contains(prog, `\`) {
		return prog
	}
	var b strings.Builder
	for i := 0; i < len(prog); i++ {
		if prog[i] == '\\' && i+3 < len(prog) && isOctal(prog[i+1]) && isOctal(prog[i+2]) && isOctal(prog[i+3]) {
			b.WriteByte((prog[i+1]-'0')<<6 | (prog[i+2]-'0')<<3 | (prog[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(prog[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func hAwk(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	spec := optSpec{short: "Fvfe", long: []string{"field-separator", "assign", "file", "source", "include", "load"}}
	i := spec.skip(args, 1)
	prog := ""
	hasProgFile := false
	for k := 1; k < i && k < len(args); k++ {
		a := args[k]
		switch {
		case a == "-f" || a == "--file" || strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "-f") && len(a) > 2:
			hasProgFile = true
			f := strings.TrimPrefix(strings.TrimPrefix(a, "--file="), "-f")
			if (a == "-f" || a == "--file") && k+1 < len(args) {
				f = args[k+1]
			}
			if f == "-" || f == "/dev/stdin" || f == "/dev/fd/0" || f == "/proc/self/fd/0" {
				// the program is the standard input
				if text, ok := cx.stdinText(); ok {
					cx.inlineCode("awk", text)
				} else {
					cx.j.other(idInlineCode, "awk -f - runs a program read from standard input, not known before it runs")
				}
			}
		case (a == "-e" || a == "--source") && k+1 < len(args):
			prog = args[k+1]
		}
	}
	ops := args[min(i, len(args)):]
	if prog == "" && !hasProgFile && len(ops) > 0 {
		prog = ops[0]
		ops = ops[1:]
	}
	if hasProgFile {
		cx.j.atLeast(kDev)
	}
	if isDynamic(prog) {
		cx.j.other(idInlineCode, "awk program not known before it runs")
		return
	}
	cx.inlineCode("awk", awkOctal(prog))
	for _, o := range ops {
		if !strings.Contains(o, "=") {
			cx.read(o)
		}
	}
}

func hSed(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	spec := optSpec{short: "efl", long: []string{"expression", "file", "line-length"}}
	inPlace := false
	var scripts []string
	for k := 1; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			break
		}
		switch {
		case a == "-e" || a == "--expression":
			if k+1 < len(args) {
				scripts = append(scripts, args[k+1])
			}
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, a[len("--expression="):])
		case a == "-f" || a == "--file":
			cx.j.atLeast(kDev)
		case strings.HasPrefix(a, "--in-place") || a == "-I":
			inPlace = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			for x := 1; x < len(a); x++ {
				if a[x] == 'i' {
					inPlace = true
					break
				}
				if a[x] == 'e' || a[x] == 'f' || a[x] == 'l' {
					if a[x] == 'e' && x < len(a)-1 {
						scripts = append(scripts, a[x+1:])
					}
					break
				}
			}
		}
	}
	ops := operands(args[1:], spec)
	if len(scripts) == 0 && len(ops) > 0 && !hasOpt(args[1:], 'f', "file") {
		scripts = append(scripts, ops[0])
		ops = ops[1:]
	}
	for _, s := range scripts {
		if isDynamic(s) {
			cx.j.other(idInlineCode, "sed script not known before it runs")
			continue
		}
		execs, writes := sedEffects(s)
		if execs {
			cx.j.other(idInlineCode, "sed e command runs shell commands")
		}
		// the r and R commands read a file (to the end of the line)
		for _, m := range sedRead().FindAllStringSubmatch(s, 8) {
			cx.read(strings.TrimSpace(m[1]))
		}
		for _, w := range writes {
			cx.write(w, false)
		}
	}
	for _, o := range ops {
		if inPlace {
			cx.write(o, false)
		} else {
			cx.read(o)
		}
	}
}

// sedRead matches sed's r and R commands (after an optional address) and
// their file name.
var sedRead = lazyRE(`(?m)(?:^|[;{}])\s*(?:(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:,(?:\d+|\$|/(?:[^/\\]|\\.)*/))?)?\s*!?\s*[rR]\s*([^\n;}]+)`)

// sedEffects finds the e command / s///e flag (run shell commands) and the
// w command / s///w flag (write files) in a sed script.
func sedEffects(s string) (execs bool, writes []string) {
	i := 0
	for i < len(s) {
		for i < len(s) && strings.IndexByte(" \t\n;{}!", s[i]) >= 0 {
			i++
		}
		// addresses
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || strings.IndexByte(",$~+", s[i]) >= 0) {
			i++
		}
		if i < len(s) && (s[i] == '/' || s[i] == '\\') {
			d := s[i]
			if d == '\\' && i+1 < len(s) {
				i++
				d = s[i]
			}
			i++
			for i < len(s) && s[i] != d {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
			continue
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		switch c {
		case 'e':
			execs = true
		case 'w', 'W':
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			if f := strings.TrimSpace(s[i : i+end]); f != "" {
				writes = append(writes, f)
			}
			i += end
		case 's', 'y':
			if i >= len(s) {
				break
			}
			d := s[i]
			i++
			for n := 0; n < 2; n++ {
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i++
			}
			if c == 's' {
				for i < len(s) && strings.IndexByte(" \t\n;}", s[i]) < 0 {
					if s[i] == 'e' {
						execs = true
					}
					if s[i] == 'w' {
						end := strings.IndexByte(s[i:], '\n')
						if end < 0 {
							end = len(s) - i
						}
						if f := strings.TrimSpace(s[i+1 : i+end]); f != "" {
							writes = append(writes, f)
						}
						i += end
						break
					}
					i++
				}
			}
		case 'r', 'R', 'a', 'i', 'c', 'b', 't', 'T', ':', 'l', 'L', 'q', 'Q':
			// text or label to the end of the line
			end := strings.IndexAny(s[i:], "\n;")
			if c == 'a' || c == 'i' || c == 'c' || c == 'r' || c == 'R' {
				end = strings.IndexByte(s[i:], '\n')
			}
			if end < 0 {
				end = len(s) - i
			}
			i += end
		}
	}
	return execs, writes
}

func hTar(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	if len(args) < 2 {
		return
	}
	first := args[1]
	mode := ""
	has := func(c byte, long ...string) bool {
		if !strings.HasPrefix(first, "-") && strings.IndexByte(first, c) >= 0 {
			return true
		}
		return hasOpt(args[1:], c, long...)
	}
	switch {
	case has('x', "extract", "get"):
		mode = "x"
	case has('c', "create") || has('r', "append") || has('u', "update"):
		mode = "c"
	}
	if hasOpt(args[1:], 'I', "use-compress-program", "to-command", "checkpoint-action", "rsh-command", "info-script", "new-volume-script") {
		cx.j.other(idInlineCode, "tar runs another program")
		cx.optionCommands(args, 'I', "use-compress-program", "to-command", "checkpoint-action", "rsh-command", "info-script", "new-volume-script")
	}
	file, hasF := optValue(args[1:], 'f', "file")
	for k, a := range args[1:] {
		// -xf FILE, -xzvf FILE: f closes a cluster and takes the next word
		if hasF || a == "--" || len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		if i := strings.IndexByte(a, 'f'); i > 0 {
			if i == len(a)-1 && k+2 < len(args) {
				file, hasF = args[k+2], true
			} else if i < len(a)-1 {
				file, hasF = a[i+1:], true
			}
		}
	}
	if !hasF && !strings.HasPrefix(first, "-") && strings.IndexByte(first, 'f') >= 0 {
		if ops := operands(args[2:], optSpec{short: "CfTXIbHgKLMNV", long: []string{"directory", "file"}}); len(ops) > 0 {
			file = ops[0]
			hasF = true
		}
	}
	switch mode {
	case "x":
		dir, ok := optValue(args[1:], 'C', "directory")
		if !ok {
			dir = "."
		}
		cx.write(dir, false)
		if hasF {
			cx.read(file)
			if a, ok := cx.pe.abs(file); ok && file != "-" {
				ms, _ := archiveMembers(a)
				cx.writeMembers(dir, ms)
			}
		}
	case "c":
		if hasF {
			cx.write(file, false)
		}
		start := 2
		if strings.HasPrefix(first, "-") {
			start = 1
		}
		// --remove-files (or an unambiguous prefix of it, as GNU tar
		// takes) deletes what it archived, each operand relative to -C
		removes := false
		for _, a := range args[1:] {
			if a == "--" {
				break
			}
			if n, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "="); strings.HasPrefix(a, "--") && len(n) >= 3 && strings.HasPrefix("remove-files", n) {
				removes = true
			}
		}
		dir, hasDir := optValue(args[1:], 'C', "directory")
		for _, o := range operands(args[start:], optSpec{short: "CfTXIbHgKLMNV", long: []string{"directory", "file", "exclude", "files-from", "exclude-from", "transform", "owner", "group", "mode", "mtime", "format"}}) {
			if o != file {
				cx.readTree(o)
				// -C DIR: the operands after it are in DIR
				if hasDir && !strings.HasPrefix(o, "/") && !isDynamic(dir) {
					cx.readTree(strings.TrimSuffix(dir, "/") + "/" + o)
				}
				if removes {
					p := o
					if hasDir && !strings.HasPrefix(o, "/") {
						p = strings.TrimSuffix(dir, "/") + "/" + o
					}
					cx.remove(p, true)
				}
			}
		}
		if removes && hasOpt(args[1:], 'T', "files-from") {
			cx.j.other(idRmDynamic, "tar --remove-files with names from a list")
		}
	default:
		if hasF {
			cx.read(file)
		}
	}
}

func hArchive(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	switch name {
	case "unzip":
		if hasOpt(args[1:], 'l') || hasOpt(args[1:], 'v') || hasOpt(args[1:], 't') {
			cx.j.kind = kRead
			return
		}
		d, ok := optValue(args[1:], 'd', "")
		if !ok {
			d = "."
		}
		cx.write(d, false)
		if ops := operands(args[1:], optSpec{short: "dxP"}); len(ops) > 0 {
			if a, ok := cx.pe.abs(ops[0]); ok {
				ms, _ := archiveMembers(a)
				cx.writeMembers(d, ms)
			}
		}
		return
	case "zip", "7z", "7za", "rar":
		for k, a := range args[1:] {
			if (a == "-TT" || a == "--unzip-command") && k+2 < len(args) {
				cx.j.other(idInlineCode, "zip -TT runs a command")
				cx.nestDenyOnly(args[k+2])
			}
		}
		ops := operands(args[1:], optSpec{short: "xitnP", long: []string{"password"}})
		// zip -m / --move deletes the files it added
		moves := name == "zip" && hasOpt(args[1:], 'm', "move")
		if len(ops) > 0 {
			cx.write(ops[0], false)
			for _, o := range ops[1:] {
				cx.readTree(o)
				if moves {
					cx.remove(o, hasOpt(args[1:], 'r', "recurse-paths"))
				}
			}
		}
		return
	}
	if hasOpt(args[1:], 'c', "stdout", "to-stdout") || hasOpt(args[1:], 'l', "list") || hasOpt(args[1:], 't', "test") {
		cx.j.kind = kRead
		if hasOpt(args[1:], 'c', "stdout", "to-stdout") {
			// the file's contents, compressed or not, on standard output
			for _, o := range operands(args[1:], optSpec{short: "S", long: []string{"suffix"}}) {
				cx.read(o)
			}
		}
		return
	}
	for _, o := range operands(args[1:], optSpec{short: "S", long: []string{"suffix"}}) {
		cx.write(o, false)
	}
}

func hPatch(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	if d, ok := optValue(args[1:], 'd', "directory"); ok {
		cx.write(d, false)
	} else {
		cx.write(".", false)
	}
	if o, ok := optValue(args[1:], 'o', "output"); ok {
		cx.write(o, false)
	}
	ops := operands(args[1:], optSpec{short: "pdoiFBrzYVDg", long: []string{"strip", "directory", "output", "input", "fuzz", "prefix", "reject-file", "suffix"}})
	if len(ops) > 0 {
		cx.write(ops[0], false)
	}
	// the files the patch names
	pf, ok := optValue(args[1:], 'i', "input")
	if !ok && len(ops) > 1 {
		pf, ok = ops[1], true
	}
	if !ok {
		return
	}
	a, ok := cx.pe.abs(pf)
	if !ok {
		return
	}
	dir, ok := optValue(args[1:], 'd', "directory")
	if !ok {
		dir = "."
	}
	strips := []int{0, 1} // without -p, patch picks the name it finds
	if p, ok := optValue(args[1:], 'p', "strip"); ok {
		if n, ok := stripCount(p); ok {
			strips = []int{n}
		}
	}
	for _, n := range strips {
		names, _ := patchTargets(a, n)
		for _, name := range names {
			cx.writeName(strings.TrimSuffix(dir, "/")+"/"+name, false)
		}
	}
}

// network commands.
func hNet(cx *cmdCtx, name string, args []string) {
	if name == "openssl" && len(args) > 1 && opensslLocal[args[1]] {
		// a local subcommand (openssl version, dgst, x509 -in cert.pem)
		cx.j.atLeast(kRead)
		for k := 2; k+1 < len(args); k++ {
			if a := strings.TrimPrefix(args[k], "-"); a == "-out" || a == "out" || a == "keyout" || a == "-keyout" {
				cx.write(args[k+1], false)
			}
		}
		return
	}
	pre := cx.j.f // what the command's assignments found, before the network
	cx.j.eff.Network = true
	cx.j.other(idNetwork, name)
	switch name {
	case "curl":
		for _, o := range curlOpts(args[1:]) {
			cx.curlOpt(o.name, o.val)
		}
		if hasOpt(args[1:], 'O', "remote-name", "remote-name-all") {
			if d, ok := optValue(args[1:], 0, "output-dir"); ok {
				cx.write(d, false)
			} else {
				cx.write(".", false)
			}
		}
	case "wget":
		if o, ok := optValue(args[1:], 'O', "output-document"); ok {
			cx.write(o, false)
		} else if d, ok := optValue(args[1:], 'P', "directory-prefix"); ok {
			cx.write(d, false)
		} else {
			cx.write(".", false)
		}
		for _, o := range []struct {
			c     byte
			long  string
			write bool
		}{{'o', "output-file", true}, {'a', "append-output", true}, {0, "save-cookies", true}, {0, "warc-file", true},
			{0, "post-file", false}, {0, "body-file", false}, {0, "load-cookies", false}, {'i', "input-file", false}} {
			for _, v := range optValues(args[1:], o.c, o.long) {
				if o.write {
					cx.write(v, false)
				} else {
					cx.read(v)
				}
			}
		}
	case "nc", "ncat", "netcat":
		if hasOpt(args[1:], 'e', "exec", "sh-exec", "lua-exec") || hasOpt(args[1:], 'c') {
			cx.j.match(idNetReverseShell, strings.Join(displayArgs(args, 6), " "))
		}
	case "socat":
		for _, a := range args[1:] {
			la := strings.ToLower(a)
			if strings.HasPrefix(la, "exec:") || strings.HasPrefix(la, "system:") || strings.Contains(la, ",exec:") {
				cx.j.match(idNetReverseShell, strings.Join(displayArgs(args, 6), " "))
			}
		}
	case "ssh", "mosh":
		cx.j.matchOver(idNetRemoteShell, name)
		cx.sshOptionCommands(args)
	case "scp", "sftp", "rsync":
		cx.j.matchOver(idNetRemoteShell, name)
		cx.sshOptionCommands(args)
		if name == "rsync" {
			cx.optionCommands(args, 'e', "rsh")
		} else {
			cx.optionCommands(args, 'S', "")
		}
		cx.copyRemote(name, args, pre)
	}
}

// copyRemote judges scp/rsync: local destinations are written. pre is the
// finding from before hNet's network one: a local rsync copy goes back to
// it, and then reads and writes like cp.
func (cx *cmdCtx) copyRemote(name string, args []string, pre finding) {
	spec := optSpec{short: "iFoPlcSJe", long: []string{"rsh", "exclude", "include", "filter", "exclude-from", "include-from", "files-from", "rsync-path", "port", "password-file", "log-file", "temp-dir", "partial-dir", "backup-dir", "suffix", "chmod", "chown", "timeout", "bwlimit", "compare-dest", "copy-dest", "link-dest"}}
	ops := operands(args[1:], spec)
	if len(ops) < 2 {
		return
	}
	remote := func(s string) bool {
		if isDynamic(s) {
			return true
		}
		i := strings.IndexByte(s, ':')
		return i > 0 && !strings.Contains(s[:i], "/") || strings.HasPrefix(s, "rsync://")
	}
	anyRemote := false
	for _, o := range ops {
		if remote(o) {
			anyRemote = true
		}
	}
	dest := ops[len(ops)-1]
	local := !anyRemote && name == "rsync"
	if local {
		// a local copy: no network
		cx.j.f = pre
		cx.j.netf, cx.j.netOther, cx.j.netFirst = finding{}, false, false
		cx.j.kind = kEdit
		cx.j.eff.Network = false
	}
	for _, o := range ops[:len(ops)-1] {
		if !remote(o) {
			cx.readTree(o)
		}
	}
	if local {
		if hasOpt(args[1:], 'n', "dry-run") {
			// lists names, reads no contents
			cx.j.f = pre
			cx.j.netf, cx.j.netOther, cx.j.netFirst = finding{}, false, false
			cx.j.kind = kRead
			return
		}
		if hasOpt(args[1:], 0, "del", "delete", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded", "remove-source-files") {
			cx.remove(dest, true)
			if strings.HasSuffix(dest, "/") {
				cx.remove(strings.TrimSuffix(dest, "/")+"/*", true)
			}
		}
	}
	if !remote(dest) {
		cx.write(dest, false)
	}
}

func hCloud(cx *cmdCtx, name string, args []string) {
	cx.j.eff.Network = true
	if cloudRead(name, args) { // cloud.go
		cx.j.other(idNetwork, strings.Join(displayArgs(args, 3), " ")+" reads remote state")
		return
	}
	cx.j.other(idNetCloud, strings.Join(displayArgs(args, 3), " "))
}

func hDocker(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "Hc", long: []string{"host", "context", "config", "log-level"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	sub := ops[0]
	if (sub == "container" || sub == "image" || sub == "volume" || sub == "network" || sub == "system" || sub == "builder" || sub == "compose") && len(ops) > 1 {
		sub = ops[1]
	}
	if sub == "run" || sub == "create" || sub == "up" {
		cx.containerMounts(args)
	}
	switch sub {
	case "ps", "images", "ls", "inspect", "logs", "version", "info", "stats", "top", "port", "diff", "history", "events", "df", "config", "search":
		cx.j.atLeast(kRead)
	case "rm", "rmi", "prune", "kill", "stop", "down", "remove":
		cx.j.other(idContainerDestructive, strings.Join(displayArgs(ops, 3), " "))
	default:
		cx.j.eff.Network = true
		cx.j.other(idNetCloud, name+" "+displayArg(sub))
	}
}

// containerMounts: bind-mounting /, home or a system directory into a
// container hands it all of them (docker run -v /:/host ...).
func (cx *cmdCtx) containerMounts(args []string) {
	check := func(src string) {
		if src == "" || isDynamic(src) || !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "~") && !strings.HasPrefix(src, "$HOME") {
			return
		}
		t := cx.pe.resolve(src)
		switch t.loc {
		case locRoot, locHome, locSystem:
			if t.abs != "/var/run/docker.sock" && t.abs != "/run/docker.sock" {
				cx.j.match(idContainerHostMount, t.abs)
			} else {
				cx.j.match(idContainerHostMount, t.abs+" (the docker socket is root on the host)")
			}
		}
	}
	for k := 1; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "-v" || a == "--volume":
			if k+1 < len(args) {
				src, _, _ := strings.Cut(args[k+1], ":")
				check(src)
			}
		case strings.HasPrefix(a, "--volume="):
			src, _, _ := strings.Cut(a[len("--volume="):], ":")
			check(src)
		case strings.HasPrefix(a, "-v") && len(a) > 2:
			src, _, _ := strings.Cut(a[2:], ":")
			check(src)
		case a == "--mount" || strings.HasPrefix(a, "--mount="):
			spec := strings.TrimPrefix(a, "--mount=")
			if a == "--mount" && k+1 < len(args) {
				spec = args[k+1]
			}
			for _, kv := range strings.Split(spec, ",") {
				if v, ok := strings.CutPrefix(kv, "source="); ok {
					check(v)
				} else if v, ok := strings.CutPrefix(kv, "src="); ok {
					check(v)
				}
			}
		case a == "--privileged" || a == "--pid=host" || a == "--net=host" || a == "--network=host" || strings.HasPrefix(a, "--cap-add"):
			cx.j.other(idContainerPrivileged, a)
		}
	}
}

// hTmux runs the shell command given to tmux/screen, and keys sent to
// a shell.
func hTmux(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	if name == "screen" {
		i := optSpec{short: "SctLplrx", long: []string{}}.skip(args, 1)
		if i < len(args) {
			cx.nest(args[i:])
		}
		return
	}
	ops := operands(args[1:], optSpec{short: "tscnSFxyelLfABIT", long: []string{}})
	if len(ops) == 0 {
		return
	}
	switch ops[0] {
	case "new", "new-session", "neww", "new-window", "splitw", "split-window", "run", "run-shell", "respawn-pane", "respawnp", "pipe-pane", "pipep":
		if len(ops) > 1 {
			cx.nestScript(strings.Join(ops[1:], " "))
		}
	case "send-keys", "send":
		var keys []string
		for _, k := range ops[1:] {
			if k != "Enter" && k != "C-m" {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			cx.nestScript(strings.Join(keys, " "))
		}
	}
}

// hAt: at and batch schedule shell commands read from input or a file.
func hAt(cx *cmdCtx, name string, args []string) {
	if hasOpt(args[1:], 'l') || hasOpt(args[1:], 'c') || name == "atq" {
		cx.j.atLeast(kRead)
		return
	}
	cx.j.other(idSysSystemWrite, name+" schedules commands to run later")
	if cx.stdin != nil && cx.stdin.kind == srcStatic {
		// the script is its input: it inherits what is left of it
		cx.j.addNested(cx.p.scriptVerdict(cx.stdin.text, cx.c, cx.depth+1))
	}
}

// package managers.
func hPip(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "rceti", long: []string{"requirement", "constraint", "editable", "target", "index-url", "extra-index-url", "python", "prefix", "root", "find-links", "log", "cache-dir", "src", "platform", "python-version", "implementation", "abi", "upgrade-strategy", "progress-bar", "trusted-host", "proxy", "timeout", "retries", "exists-action", "cert", "client-cert", "report"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "uninstall", "download", "wheel":
		cx.install(args, name)
	case "list", "show", "freeze", "check", "help", "debug", "inspect", "hash", "config", "cache", "index", "search":
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idUnknown, name+" "+displayArg(ops[0]))
	}
}

// install judges a package install: inside a project venv it is an edit,
// otherwise it asks.
func (cx *cmdCtx) install(args []string, name string) {
	cx.j.eff.Install = true
	cx.j.eff.Network = true
	if cx.inVenv(args[0]) && !hasOpt(args[1:], 0, "user", "root", "prefix", "target", "global") {
		cx.j.atLeast(kEdit)
		cx.j.allowID = idInstallVenv
		cx.j.eff.Writes = append(cx.j.eff.Writes, cx.pe.project)
		return
	}
	cx.j.other(idInstall, strings.Join(displayArgs(args, 5), " "))
	// where an approved install writes, for the rights it receives
	home := cx.pe.home
	switch name {
	case "npm", "yarn", "pnpm", "bun":
		if !hasOpt(args[1:], 'g', "global") && !(len(args) > 1 && args[1] == "global") {
			cx.j.eff.Writes = append(cx.j.eff.Writes, cx.pe.project)
		}
	case "pip", "pip3", "python", "python3":
		if hasOpt(args[1:], 0, "user") && home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/.local")
		}
	case "cargo":
		if home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/.cargo")
		}
	case "go":
		if home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/go")
		}
	}
}

// inVenv reports whether program (pip, python, uv) runs from or for a
// virtual environment inside the project.
func (cx *cmdCtx) inVenv(program string) bool {
	if strings.Contains(program, "/") {
		t := cx.pe.resolve(program)
		if t.loc == locProject {
			return true
		}
	} else if cx.c.Which != nil {
		// the runner knows what the name runs: that decides, whatever
		// VIRTUAL_ENV says
		f := cx.c.Which(program)
		return f != "" && cx.pe.resolve(f).loc == locProject
	}
	if cx.c.Env != nil {
		if v := cx.c.Env("VIRTUAL_ENV"); v != "" {
			if t := cx.pe.resolve(v); t.loc == locProject {
				return true
			}
		}
	}
	return false
}

func hNpm(cx *cmdCtx, name string, args []string) {
	if name == "bun" && (hasOpt(args[1:], 'e', "eval") || hasOpt(args[1:], 'p', "print")) {
		hPythonLike(cx, name, args) // bun -e CODE is node -e CODE
		return
	}
	ops := operands(args[1:], optSpec{short: "wC", long: []string{"workspace", "prefix", "cwd", "filter", "dir", "registry"}})
	if len(ops) == 0 {
		if name == "yarn" || name == "bun" || name == "pnpm" {
			cx.install(args, name)
			return
		}
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "i", "ci", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "unlink", "link", "dedupe", "prune", "rebuild", "import", "patch-commit":
		cx.install(args, name)
	case "run", "run-script", "test", "t", "start", "build", "lint", "format", "fmt", "typecheck", "check", "dev", "tst", "exec", "pack", "init", "version", "create", "x":
		if ops[0] == "x" || ops[0] == "create" || ops[0] == "init" && len(ops) > 1 {
			cx.j.eff.Network = true
			cx.j.other(idNetwork, name+" "+ops[0]+" downloads and runs a package")
			return
		}
		cx.j.atLeast(kDev)
	case "ls", "list", "why", "explain", "config", "get", "help", "prefix", "root", "bin", "outdated", "view", "info", "show", "search", "audit", "doctor", "--version", "-v", "whoami", "licenses", "cache":
		if ops[0] == "outdated" || ops[0] == "view" || ops[0] == "info" || ops[0] == "search" || ops[0] == "audit" || ops[0] == "whoami" {
			cx.j.eff.Network = true
			cx.j.other(idNetwork, name+" "+ops[0])
			return
		}
		cx.j.atLeast(kRead)
	case "publish", "unpublish", "deprecate", "login", "logout", "adduser", "owner", "access", "token", "dist-tag", "team", "org", "star":
		cx.j.eff.Network = true
		cx.j.other(idNetCloud, name+" "+ops[0])
	case "global":
		cx.install(args, name)
	case "pkg":
		// npm pkg get|set|delete|fix: reads or edits the project's package.json
		if len(ops) > 1 && ops[1] == "get" {
			cx.j.atLeast(kRead)
			return
		}
		cx.j.atLeast(kEdit)
		cx.write("package.json", false)
	default:
		if name == "yarn" || name == "pnpm" || name == "bun" {
			// yarn SCRIPT runs a package.json script
			cx.j.atLeast(kDev)
			return
		}
		cx.j.other(idUnknown, name+" "+displayArg(ops[0]))
	}
}

func hNpx(cx *cmdCtx, name string, args []string) {
	i := optSpec{short: "pc", long: []string{"package", "call"}}.skip(args, 1)
	if i < len(args) && !hasOpt(args[1:i], 'p', "package") {
		// npx jest, npx tsc: a dev tool of the project (a download would
		// need the network, which the sandbox refuses)
		if tool := baseName(cmdName(args[i])); isDevTool(tool) {
			cx.j.atLeast(kDev)
			return
		}
	}
	cx.j.eff.Network = true
	cx.j.other(idNetwork, name+" may download and run a package")
}

func isDevTool(name string) bool {
	switch name {
	case "tsc", "jest", "vitest", "eslint", "prettier", "mocha", "playwright", "cypress", "webpack", "vite",
		"rollup", "esbuild", "ts-node", "tsx", "next", "nuxt", "astro", "stylelint", "biome", "turbo", "nx", "lerna",
		"svelte-check", "vue-tsc", "ng", "karma", "ava", "c8", "nyc", "depcheck", "knip", "tailwindcss", "postcss",
		"babel", "swc", "storybook", "typedoc", "api-extractor", "changeset", "husky-run", "lint-staged":
		return true
	}
	return false
}

func hCargo(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "pjZ", long: []string{"package", "jobs", "target", "manifest-path", "features", "bin", "example", "test", "bench", "color", "config", "target-dir", "profile"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch strings.TrimPrefix(ops[0], "+") {
	case "install", "uninstall":
		cx.install(args, name)
	case "publish", "login", "logout", "owner", "yank":
		cx.j.eff.Network = true
		cx.j.other(idNetCloud, name+" "+ops[0])
	case "add", "remove", "update", "fetch", "search", "generate-lockfile", "vendor":
		cx.j.eff.Network = true
		cx.j.other(idNetwork, name+" "+ops[0])
	default:
		cx.j.atLeast(kDev)
	}
}

func hGo(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "Co", long: []string{}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "get":
		cx.install(args, name)
	case "version", "env", "list", "doc", "help":
		cx.j.atLeast(kRead)
		if ops[0] == "env" && hasOpt(args[1:], 'w') {
			cx.j.other(idWriteOutside, "go env -w writes the user's go env file")
		}
	case "mod":
		if len(ops) > 1 && (ops[1] == "download" || ops[1] == "tidy") {
			cx.j.atLeast(kDev)
			return
		}
		cx.j.atLeast(kDev)
	default:
		cx.j.atLeast(kDev)
	}
}

func hPkgSystem(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "otcS", long: []string{"option", "target-release", "config-file", "root"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "list", "search", "show", "info", "policy", "depends", "rdepends", "madison", "showpkg", "stats", "dump",
		"doctor", "config", "--version", "leaves", "deps", "uses", "desc", "home", "outdated", "-Q", "-Qi", "-Ql", "-Ss", "-Si":
		cx.j.atLeast(kRead)
	default:
		cx.install(args, name)
	}
}

func hPythonLike(cx *cmdCtx, name string, args []string) {
	lang := name
	switch name {
	case "python", "pypy", "python2", "python3":
		lang = "python"
	case "nodejs":
		lang = "node"
	case "tclsh", "wish", "expect":
		lang = "tcl"
	}
	var code string
	hasCode := false
	i := 1
	if lang == "deno" && len(args) > 2 && args[1] == "eval" {
		code, hasCode, i = args[len(args)-1], true, len(args)
	}
	// languages whose code option is a word of its own: erl -eval,
	// pwsh -Command (any case), sbcl --eval, guile -c, racket -e
	if opts, ok := codeWords[lang]; ok && !hasCode {
		for k := 1; k < len(args); k++ {
			a := args[k]
			if lang == "pwsh" || lang == "powershell" {
				a = strings.ToLower(a)
				if a == "-encodedcommand" || a == "-enc" || a == "-e" || a == "-ec" {
					cx.j.other(idInlineCode, name+" runs an encoded command")
					return
				}
			}
			if slices.Contains(opts, a) && k+1 < len(args) {
				code, hasCode, i = args[k+1], true, len(args)
				break
			}
			if v, ok := strings.CutPrefix(a, "--eval="); ok && slices.Contains(opts, "--eval") {
				code, hasCode, i = v, true, len(args)
				break
			}
		}
		if !hasCode {
			cx.j.atLeast(kDev)
			return
		}
	}
	codeFlag := map[string]string{"python": "c", "node": "ep", "perl": "eE", "ruby": "e", "php": "r", "lua": "e", "deno": "", "bun": "e", "Rscript": "e", "rscript": "e", "osascript": "e", "tcl": "c", "julia": "e"}[lang]
	argFlag := map[string]string{"python": "mWXQ", "node": "r", "perl": "IMmxdDCl", "ruby": "IrCxEF", "php": "dcfzt", "lua": "l", "julia": "LJ"}[lang]
	for !hasCode && i < len(args) {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if isDynamic(a) || len(a) < 2 || a[0] != '-' {
			break
		}
		i++
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--eval", "--print", "--command":
				if i < len(args) {
					code, hasCode = args[i], true
					i++
				}
			case "--require", "--import", "--loader", "--experimental-loader":
				i++
			default:
				if strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print=") {
					_, code, _ = strings.Cut(a, "=")
					hasCode = true
				}
			}
			if hasCode {
				break
			}
			continue
		}
		stop := false
		for k := 1; k < len(a); k++ {
			c := a[k]
			if strings.IndexByte(codeFlag, c) >= 0 {
				if k < len(a)-1 && lang != "node" && lang != "deno" && lang != "bun" {
					code, hasCode = a[k+1:], true
				} else if i < len(args) {
					code, hasCode = args[i], true
					i++
				}
				stop = true
				break
			}
			if lang == "python" && c == 'm' {
				mod := ""
				if k < len(a)-1 {
					mod = a[k+1:]
				} else if i < len(args) {
					mod = args[i]
					i++
				}
				cx.pythonModule(mod, args, i)
				return
			}
			if strings.IndexByte(argFlag, c) >= 0 {
				if k == len(a)-1 {
					i++
				}
				break
			}
		}
		if stop {
			break
		}
	}
	if hasCode {
		if isDynamic(code) {
			cx.j.other(idInlineCode, "code not known before it runs")
			return
		}
		cx.inlineCode(lang, code)
		// perl -pi -e CODE FILES, ruby -i: the files are edited in place;
		// without -i, perl -pe/-ne and <> read them (and print them)
		if lang == "perl" || lang == "ruby" {
			edit := inPlace(args[1:i])
			for _, f := range args[i:] {
				switch {
				case strings.HasPrefix(f, "-"):
				case edit:
					cx.write(f, false)
				default:
					cx.read(f)
				}
			}
		} else if cx.codeReadsArgs(code) {
			// python -c "...open(sys.argv[1])..." FILE
			for _, f := range args[i:] {
				if !strings.HasPrefix(f, "-") {
					cx.read(f)
				}
			}
		}
		return
	}
	if i >= len(args) {
		// reads the program from standard input; the checker judges what feeds it
		cx.j.atLeast(kDev)
		if text, ok := cx.stdinText(); ok {
			// the runner read it (Command.Input); the checker judges it
			// as code fed to the interpreter as well
			if lang == "tcl" {
				cx.tclCode(text)
			} else {
				cx.inlineCode(lang, text)
			}
		}
		return
	}
	t := cx.pe.resolve(args[i])
	switch t.loc {
	case locProject, locTemp, locProjectRoot:
		cx.j.atLeast(kDev)
	case locUnknown:
		cx.j.other(idShellStdin, "program "+displayArg(args[i]))
	default:
		if lang == "deno" || lang == "bun" {
			cx.j.atLeast(kDev)
			return
		}
		if cx.p.Sandboxed {
			// an installed program's file (python3 /usr/lib/x/tool.py):
			// contained by the session sandbox
			cx.j.atLeast(kDev)
			cx.read(args[i])
			return
		}
		cx.j.other(idShellStdin, "program "+t.abs+" outside the project")
	}
}

// codeWords are the options that take inline code, as whole words, of
// languages whose options are not single letters.
var codeWords = map[string][]string{
	"erl": {"-eval"}, "escript": {"-eval"}, "pwsh": {"-c", "-command"}, "powershell": {"-c", "-command"},
	"sbcl": {"--eval"}, "clisp": {"-x"}, "guile": {"-c", "-e"}, "racket": {"-e", "--eval"},
	"elixir": {"-e", "--eval"}, "iex": {"-e", "--eval"}, "groovy": {"-e"}, "scala": {"-e"},
}

// inPlace reports whether perl/ruby options include -i (in-place edit).
func inPlace(opts []string) bool {
	for _, o := range opts {
		if len(o) > 1 && o[0] == '-' && o[1] != '-' {
			for k := 1; k < len(o); k++ {
				if o[k] == 'i' {
					return true
				}
				if o[k] == 'e' || o[k] == 'E' {
					break
				}
			}
		}
	}
	return false
}

func (cx *cmdCtx) pythonModule(mod string, args []string, i int) {
	switch mod {
	case "pip", "ensurepip":
		if mod == "ensurepip" {
			cx.install(args, "ensurepip")
			return
		}
		sub := append([]string{args[0]}, args[i:]...)
		ops := operands(sub[1:], optSpec{short: "rce"})
		if len(ops) > 0 && (ops[0] == "install" || ops[0] == "uninstall" || ops[0] == "download") {
			cx.install(sub, "pip")
			return
		}
		cx.j.atLeast(kRead)
	case "http.server", "SimpleHTTPServer", "smtpd", "ftplib", "webbrowser":
		cx.j.eff.Network = true
		cx.j.other(idNetwork, "python -m "+mod)
	case "venv", "virtualenv":
		ops := operands(args[i:], optSpec{short: "p", long: []string{"prompt", "python"}})
		for _, o := range ops {
			cx.write(o, false)
		}
		cx.j.atLeast(kEdit)
	case "json.tool", "tokenize", "dis", "pydoc", "site", "sysconfig", "platform", "this", "timeit", "calendar":
		cx.j.atLeast(kRead)
	default:
		cx.j.atLeast(kDev)
	}
}

func hUv(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "p", long: []string{"python", "directory", "project", "with", "index-url"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "sync", "lock", "venv", "init":
		cx.j.eff.Network = ops[0] != "venv" && ops[0] != "init"
		cx.j.atLeast(kEdit)
	case "add", "remove":
		if cx.pe.project != "" {
			cx.j.eff.Install, cx.j.eff.Network = true, true
			cx.j.atLeast(kEdit)
			return
		}
		cx.install(args, name)
	case "pip":
		if len(ops) > 1 && (ops[1] == "install" || ops[1] == "uninstall" || ops[1] == "sync") {
			if hasOpt(args[1:], 0, "system") {
				cx.install([]string{"uv"}, name)
				return
			}
			cx.j.eff.Install, cx.j.eff.Network = true, true
			cx.j.atLeast(kEdit)
			return
		}
		cx.j.atLeast(kRead)
	case "tool", "self", "publish":
		cx.install(args, name)
	case "tree", "version", "help", "python":
		cx.j.atLeast(kRead)
	default:
		cx.j.atLeast(kDev)
	}
}

func hGradle(cx *cmdCtx, name string, args []string) {
	for _, o := range operands(args[1:], optSpec{short: "DPIcpx", long: []string{"project-dir", "init-script", "settings-file", "exclude-task"}}) {
		lo := strings.ToLower(displayArg(o))
		if strings.Contains(lo, "publish") || strings.Contains(lo, "upload") || strings.Contains(lo, "deploy") || strings.Contains(lo, "release") {
			cx.j.eff.Network = true
			cx.j.other(idNetCloud, name+" "+o)
			return
		}
	}
	cx.j.atLeast(kDev)
}

func hMvn(cx *cmdCtx, name string, args []string) {
	for _, o := range operands(args[1:], optSpec{short: "DPfslbTe", long: []string{"file", "settings", "projects", "threads", "log-file", "activate-profiles"}}) {
		lo := strings.ToLower(displayArg(o))
		if lo == "deploy" || strings.Contains(lo, "release:") || strings.Contains(lo, "deploy:") {
			cx.j.eff.Network = true
			cx.j.other(idNetCloud, name+" "+o)
			return
		}
	}
	cx.j.atLeast(kDev)
}

func hTerraform(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{long: []string{"chdir"}})
	if len(ops) > 0 {
		switch ops[0] {
		case "fmt", "validate", "version", "providers", "graph", "console", "show", "output":
			cx.j.atLeast(kRead)
			return
		case "plan":
			// reads the remote state, changes nothing there
			if !hasOpt(args[1:], 0, "out") {
				cx.j.eff.Network = true
				cx.j.other(idNetwork, name+" plan reads remote state")
				return
			}
		}
	}
	hCloud(cx, name, args)
}

func hKubectl(cx *cmdCtx, name string, args []string) {
	hCloud(cx, name, args)
}

func hMake(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	if name == "make" || name == "gmake" || name == "bmake" {
		// the makefile from standard input (-f -) or --eval: its recipes
		// are command lines like any others
		f, ok := optValue(args[1:], 'f', "file")
		if !ok {
			f, ok = optValue(args[1:], 0, "makefile")
		}
		if ok && (f == "-" || f == "/dev/stdin" || f == "/dev/fd/0" || f == "/proc/self/fd/0") {
			if text, ok := cx.stdinText(); ok {
				cx.makefileText(text)
			} else {
				cx.j.other(idInlineCode, name+" -f - runs the recipes of a makefile read from standard input, not known before it runs")
			}
		}
		for k, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, "--eval="); ok {
				cx.makefileText(v)
			} else if (a == "--eval" || a == "-E") && k+2 < len(args) {
				cx.makefileText(args[k+2]) // -E is GNU make's --eval
			} else if v, ok := strings.CutPrefix(a, "-E"); ok && v != "" {
				cx.makefileText(v)
			}
		}
	}
	for _, o := range operands(args[1:], optSpec{short: "CfIjloWE", long: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "what-if", "eval"}}) {
		lo := strings.ToLower(displayArg(o))
		if lo == "install" || lo == "deploy" || lo == "publish" || lo == "release" || lo == "upload" || lo == "push" || strings.HasPrefix(lo, "deploy") || strings.HasPrefix(lo, "publish") {
			cx.j.other(idUnknown, name+" "+o+" may install or publish")
		}
	}
	if d, ok := optValue(args[1:], 'C', "directory"); ok {
		if t := cx.pe.resolve(d); !t.loc.inside() {
			cx.j.other(idWriteOutside, "make -C "+displayArg(d))
		}
	}
}

func hCommandBuiltin(cx *cmdCtx, name string, args []string) {
	// command -v / -V only look the name up; judge what follows anyway,
	// so a mistyped option cannot smuggle a command through.
	cx.j.kind = kPure
	lookup := false
	i := 1
	for ; i < len(args) && len(args[i]) > 1 && args[i][0] == '-'; i++ {
		if args[i] == "--" {
			i++
			break
		}
		if strings.Trim(args[i][1:], "pvV") != "" {
			lookup = false
			break
		}
		lookup = lookup || strings.ContainsAny(args[i], "vV")
	}
	if lookup {
		// command -v NAME...: prints how each name resolves and runs
		// nothing; what would be denied as a command still is (a
		// mistyped option must not smuggle one through)
		if i < len(args) {
			if v := cx.p.classifyArgsIn(cx.c, args[i:], cx.depth+1, cx.fromInput, cx.stdin); v.Decision == Deny {
				cx.j.addNested(v)
			}
		}
		return
	}
	if i := (optSpec{}).skip(args, 1); i < len(args) {
		cx.nest(args[i:])
	}
}

// vimShell matches an ex command line that runs a program other than
// through a leading ! (which hEditor judges as the command it runs).
var vimShell = lazyRE(`system(list)?\s*\(|(^|[|\s])(r|re|rea|read|w|wr|wri|writ|write|[0-9%,.$]*)\s*!|\bter(m|mi|min|mina|minal)?\b|(^|[|\s])(py|py3|python|python3|pyx|lua|luado|perl|perldo|rub|ruby|rubydo|mz|mzscheme|tcl|tcldo)\b|\bexe(c|cu|cut|cute)?\b|\bjob_start|\bjobstart|\blibcall`)

func hEditor(cx *cmdCtx, name string, args []string) {
	// interactive editors edit the files they are given
	cx.j.atLeast(kEdit)
	if name == "ed" || name == "ex" && hasOpt(args[1:], 's') {
		cx.edScript(name)
	}
	if name == "emacs" {
		// emacs --eval CODE, -eval, --eval=CODE: lisp that may start
		// processes or delete files
		for k, a := range args[1:] {
			code := ""
			switch {
			case (a == "--eval" || a == "-eval") && k+2 < len(args):
				code = args[k+2]
			case strings.HasPrefix(a, "--eval="):
				code = a[len("--eval="):]
			}
			if code != "" {
				if isDynamic(code) {
					cx.j.other(idInlineCode, "emacs --eval of code not known before it runs")
				} else {
					cx.inlineCode("elisp", code)
				}
			}
		}
	}
	for _, o := range operands(args[1:], optSpec{short: "cu", long: []string{"cmd"}}) {
		if !strings.HasPrefix(o, "+") {
			cx.write(o, false)
		}
	}
	// vim -c '!cmd', +'!cmd': ex commands that run shell commands
	for k, a := range args[1:] {
		cmd := ""
		switch {
		case (a == "-c" || a == "--cmd") && k+2 < len(args):
			cmd = args[k+2]
		case strings.HasPrefix(a, "+"):
			cmd = a[1:]
		}
		cmd = strings.TrimLeft(strings.TrimSpace(cmd), ":")
		if c, ok := strings.CutPrefix(cmd, "!"); ok {
			cx.j.other(idInlineCode, name+" runs a shell command: "+c)
			cx.nestScript(c)
		} else if cmd != "" && vimShell().MatchString(cmd) {
			// :call system(...), :r !cmd, :w !cmd, :%!cmd, :terminal,
			// :py/:lua/:perl/:ruby code: a command of vim's that runs
			// another program
			cx.j.other(idInlineCode, name+" -c runs another program: "+displayArg(cmd))
		}
	}
}

// optionCommands checks command lines a program runs because an option
// says so (ssh -o ProxyCommand=..., rsync -e ..., tar -I ...).
func (cx *cmdCtx) optionCommands(args []string, short byte, long ...string) {
	for k := 1; k < len(args); k++ {
		a := args[k]
		v, found := "", false
		for _, l := range long {
			if a == "--"+l && k+1 < len(args) {
				v, found = args[k+1], true
			} else if strings.HasPrefix(a, "--"+l+"=") {
				v, found = a[len(l)+3:], true
			}
		}
		if short != 0 && len(a) >= 2 && a[0] == '-' && a[1] == short {
			if len(a) > 2 {
				v, found = a[2:], true
			} else if k+1 < len(args) {
				v, found = args[k+1], true
			}
		}
		if !found || isDynamic(v) {
			continue
		}
		v = strings.TrimPrefix(v, "exec=")
		cx.nestDenyOnly(strings.TrimLeft(v, "| "))
	}
}

// sshOptionCommands checks ssh/scp -o ProxyCommand=/LocalCommand=.
func (cx *cmdCtx) sshOptionCommands(args []string) {
	for k := 1; k < len(args); k++ {
		o := ""
		switch a := args[k]; {
		case a == "-o" && k+1 < len(args):
			o = args[k+1]
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			o = a[2:]
		}
		key, val, ok := strings.Cut(o, "=")
		if !ok {
			key, val, ok = strings.Cut(o, " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
			if ok && !isDynamic(val) {
				cx.j.other(idInlineCode, "ssh option "+key+" runs a command")
				cx.nestDenyOnly(val)
			}
		}
	}
}

func hOpen(cx *cmdCtx, name string, args []string) {
	cx.j.other(idCmdOpen, name+" opens files or URLs with other programs")
}

func hGitDispatch(cx *cmdCtx, name string, args []string) { hGit(cx, args) }

// pathLike reports whether s names a path rather than a branch.
func pathLike(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, ":") || strings.ContainsAny(s, "*?") || strings.HasPrefix(s, "/")
}

func buildHandlers() {
	handlers = map[string]handler{}
	reg := func(h handler, names ...string) {
		for _, n := range names {
			handlers[n] = h
		}
	}
	for n := range readSpecs {
		handlers[n] = hRead
	}
	reg(hPure, ":", "cd", "pushd", "popd", "dirs", "set", "shift",
		"unset", "read", "return", "exit", "break", "continue", "wait", "jobs", "fg", "bg", "shopt",
		"unalias", "umask", "getopts", "let", "times", "caller", "compgen", "complete", "compopt", "ulimit",
		"disown", "logout", "mapfile", "readarray", "nohup", "time", "timeout", "nice", "setsid", "stdbuf",
		"true", "false", "test", "[", "[[", "echo", "printf", "sleep", "wait", "builtin", "exec", "alias",
		"enable", "suspend", "bind", "fc", "newgrp", "tput", "stty", "clear", "reset", "hash", "type", "help")
	reg(hCommandBuiltin, "command")
	reg(hGuardsh, "guardsh", "guardsh-agent")
	reg(hDeclare, "export", "declare", "typeset", "readonly", "local")
	reg(hTmux, "tmux", "screen")
	reg(func(cx *cmdCtx, name string, args []string) {
		cx.j.atLeast(kDev)
		for k, a := range args[1:] {
			if (a == "-ex" || a == "--ex" || a == "-eval-command" || a == "--eval-command" || name == "lldb" && (a == "-o" || a == "--one-line" || a == "-O" || a == "--one-line-before-file")) && k+2 < len(args) {
				c := strings.TrimSpace(args[k+2])
				for _, pre := range [...]string{"platform shell ", "shell "} {
					if r, ok := strings.CutPrefix(c, pre); ok {
						c = "!" + r
						break
					}
				}
				if r, ok := strings.CutPrefix(c, "script "); ok {
					cx.inlineCode("python", r) // gdb python / lldb script
				}
				if r, ok := strings.CutPrefix(c, "python "); ok {
					cx.inlineCode("python", r)
				}
				if r, ok := strings.CutPrefix(c, "!"); ok {
					cx.j.other(idInlineCode, name+" runs a shell command: "+r)
					cx.nestScript(r)
				}
			}
		}
	}, "gdb", "lldb")
	reg(hAt, "at", "batch", "atq")
	reg(func(cx *cmdCtx, name string, args []string) { cx.j.atLeast(kEdit) }, "mktemp")
	reg(hRm, "rm", "rmdir", "unlink", "srm", "trash", "trash-put", "gio-trash")
	reg(hShred, "shred", "wipe", "truncate")
	reg(hWriteAll, "touch", "mkdir", "tee", "mkfifo", "mknod", "dos2unix", "unix2dos", "fallocate")
	reg(hCopy, "cp", "mv", "ln", "install", "rename", "mmv")
	reg(hPerms, "chmod", "chown", "chgrp", "chattr", "setfacl")
	reg(hDd, "dd")
	reg(hDisk, "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk",
		"sgdisk", "blkdiscard", "hdparm", "badblocks", "mdadm", "cryptsetup", "losetup", "partprobe", "zpool", "pvcreate",
		"vgcreate", "lvcreate", "lvremove", "vgremove", "pvremove", "fsck", "e2fsck", "tune2fs", "resize2fs", "diskutil", "newfs_apfs")
	reg(hKill, "kill", "killall", "killall5", "pkill", "skill", "slay")
	reg(hShutdown, "shutdown", "reboot", "halt", "poweroff", "kexec")
	reg(hInit, "init", "telinit")
	reg(hSystemctl, "systemctl", "loginctl")
	reg(hService, "service", "launchctl", "rc-service", "sv")
	reg(hCrontab, "crontab")
	reg(hSysWrite, "mount", "umount", "swapon", "swapoff", "sysctl", "modprobe", "insmod", "rmmod", "iptables", "ip6tables",
		"nft", "ufw", "firewall-cmd", "useradd", "userdel", "usermod", "passwd", "chpasswd", "groupadd", "groupdel",
		"visudo", "setenforce", "hostnamectl", "timedatectl", "update-alternatives", "ldconfig", "depmod", "dracut",
		"update-grub", "grub-install", "efibootmgr", "chsh", "chfn", "adduser", "deluser", "defaults", "scutil",
		"csrutil", "nvram", "spctl", "pmset", "networksetup", "tccutil", "auditctl", "setcap")
	reg(hShell, "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash", "posh", "rbash")
	reg(hSource, "source", ".")
	reg(hEval, "eval")
	reg(hTrap, "trap")
	reg(hFind, "find", "gfind")
	reg(hAwk, "awk", "gawk", "mawk", "nawk")
	reg(hSed, "sed", "gsed")
	reg(hTar, "tar", "gtar", "bsdtar")
	reg(hArchive, "unzip", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "7z", "7za", "rar", "unrar", "compress", "uncompress")
	reg(hPatch, "patch")
	reg(hNet, "curl", "wget", "http", "https", "xh", "httpie", "aria2c", "axel", "fetch", "lynx", "w3m", "links",
		"nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "tftp", "ssh", "scp", "rsync", "mosh", "ping",
		"ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "nmap", "curlie", "grpcurl",
		"websocat", "wscat", "ssh-copy-id", "sshpass", "autossh", "rclone", "s3cmd", "mc", "lftp", "smbclient",
		"ngrok", "cloudflared", "tailscale", "wg", "openvpn", "yt-dlp", "youtube-dl", "git-lfs", "openssl", "nsupdate")
	reg(hCloud, "aws", "gcloud", "gsutil", "bq", "az", "azcopy", "doctl", "flyctl", "fly", "heroku", "vercel", "netlify",
		"wrangler", "firebase", "pulumi", "cdk", "sam", "serverless", "sls", "helm", "k9s", "oc", "eksctl", "minikube",
		"kind", "gh", "glab", "hub", "vault", "consul", "nomad", "op", "doppler", "stripe", "psql", "mysql", "mariadb",
		"mongo", "mongosh", "redis-cli", "sqlcmd", "clickhouse-client", "cqlsh", "influx", "pg_dump", "pg_restore",
		"mysqldump", "mongodump", "mongorestore", "dropdb", "createdb", "kafka-topics", "rabbitmqctl", "rabbitmqadmin",
		"nats", "velero", "argocd", "kubectx", "kubens", "skaffold", "tilt", "ansible", "ansible-playbook", "salt",
		"packer", "vagrant", "linode-cli", "hcloud", "scw", "oci", "ibmcloud", "aliyun", "tccli", "supabase",
		"railway", "render", "neonctl", "planetscale", "pscale", "turso", "upstash", "kafkactl", "restic", "borg",
		"gcloud-alpha", "s5cmd", "b2", "ollama", "terragrunt", "cf", "juju", "lxc", "multipass", "virsh")
	reg(hKubectl, "kubectl", "k", "kubeadm", "kustomize")
	reg(hTerraform, "terraform", "tofu")
	reg(hDocker, "docker", "podman", "nerdctl", "docker-compose", "podman-compose", "colima", "lima", "buildah", "crictl", "ctr")
	reg(hPip, "pip", "pip3", "pip2")
	reg(hNpm, "npm", "yarn", "pnpm", "bun", "corepack")
	reg(hNpx, "npx", "pnpx", "bunx", "dlx")
	reg(hCargo, "cargo")
	reg(hGo, "go")
	reg(hUv, "uv")
	reg(hPkgSystem, "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "zypper", "pacman", "apk", "brew", "port",
		"snap", "flatpak", "nix-env", "emerge", "pkg", "gem", "conda", "mamba", "micromamba", "pipx", "poetry", "pdm",
		"composer", "rye", "hatch", "pipenv", "opam", "cabal", "stack", "luarocks", "cpan", "cpanm", "nuget",
		"choco", "winget", "scoop", "mas", "asdf", "mise", "rtx", "nvm", "pyenv", "rbenv", "rustup", "sdk", "volta", "fnm",
		"gvm", "goenv", "nodenv", "bundle", "bundler", "vcpkg", "conan", "spack", "dotnet-tools", "krew", "helmfile", "rpm")
	reg(hPythonLike, "python", "python2", "python3", "pypy", "node", "nodejs", "perl", "ruby", "php", "lua", "deno", "rscript",
		"julia", "osascript", "tclsh", "wish", "expect", "pwsh", "powershell", "irb", "jshell", "ts-node", "tsx", "elixir", "iex", "erl",
		"escript", "groovy", "scala", "kotlin", "swift", "guile", "racket", "sbcl", "clisp", "ghci", "runghc", "R")
	reg(hGradle, "gradle", "gradlew")
	reg(hMvn, "mvn", "mvnw")
	reg(hMake, "make", "gmake", "bmake", "just", "task", "mage", "rake", "invoke", "nox", "tox", "ninja", "scons", "waf")
	reg(hDev, "cmake", "meson", "bazel", "bazelisk", "buck", "buck2", "pants", "sbt", "lein", "mix", "rebar3", "dotnet",
		"xcodebuild", "swiftc", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "as", "ar", "strip", "rustc", "rustfmt",
		"javac", "java", "kotlinc", "scalac", "tsc", "esbuild", "vite", "webpack", "rollup", "parcel", "turbo", "nx",
		"jest", "vitest", "mocha", "ava", "karma", "playwright", "cypress", "pytest", "py.test", "coverage", "mypy",
		"pyright", "pylint", "flake8", "ruff", "black", "isort", "yapf", "autopep8", "bandit", "eslint", "prettier",
		"stylelint", "tslint", "standard", "gofmt", "goimports", "golangci-lint", "staticcheck", "govulncheck",
		"shellcheck", "shfmt", "hadolint", "yamllint", "markdownlint", "rspec", "rails", "phpunit", "phpstan", "psalm",
		"zig", "nim", "ghc", "elm", "dune", "ocaml", "latexmk", "pdflatex", "xelatex", "lualatex", "pandoc", "hugo",
		"jekyll", "sphinx-build", "mkdocs", "doxygen", "protoc", "buf", "sqlc", "ctest", "valgrind",
		"hyperfine", "pre-commit-run", "biome", "oxlint", "dprint", "clang-format", "clang-tidy", "cppcheck",
		"cargo-clippy", "clippy-driver", "golint", "revive", "gotestsum", "ginkgo", "bats", "shunit2", "behave",
		"nosetests", "trial", "ward", "unittest", "codespell", "typos", "vale", "actionlint", "checkov", "tflint",
		"ktlint", "detekt", "swiftlint", "swiftformat", "rubocop", "standardrb", "erb", "sass", "lessc", "postcss",
		"tailwindcss", "svgo", "terser", "uglifyjs", "babel", "swc", "node-gyp", "wasm-pack", "trunk", "tauri",
		"electron", "expo", "react-native", "flutter", "dart", "ng", "vue", "nuxt", "next", "astro", "remix",
		"gatsby", "storybook", "lerna", "changeset", "semantic-release-dry", "air", "reflex", "entr", "watchexec",
		"nodemon", "cargo-watch", "diffoscope", "graphviz", "dot", "plantuml", "mermaid", "mmdc", "convert", "magick",
		"ffmpeg", "sox", "gcov", "lcov", "gcovr", "perf", "pprof", "benchstat", "stringer", "mockgen", "wire",
		"swag", "oapi-codegen", "openapi-generator", "gqlgen", "sqlboiler", "ent", "migrate", "alembic", "flask",
		"django-admin", "manage.py", "uvicorn", "gunicorn", "hypercorn", "streamlit", "jupyter", "ipython",
		"notebook", "nbconvert", "papermill", "dvc-repro", "mlflow-local", "bundle-exec", "yarnpkg", "tsc-watch",
		"pnpm-run", "vsce", "ovsx", "cue", "jsonnet", "dhall", "nickel", "kcl", "opa", "conftest", "regal", "semgrep",
		"trivy-fs", "grype-dir", "syft-dir", "license-checker", "depcheck", "madge", "knip", "ts-prune", "size-limit",
		"bundlesize", "lighthouse-local", "pa11y-local", "axe-local")
	reg(hEditor, "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "micro", "helix", "hx", "kak", "code", "subl")
	reg(hOpen, "open", "xdg-open", "start", "gio")
	reg(hGitDispatch, "git")
	// pre-commit install writes .git/hooks.
	handlers["pre-commit"] = func(cx *cmdCtx, name string, args []string) {
		ops := operands(args[1:], optSpec{short: "tc", long: []string{"hook-type", "config"}})
		if len(ops) > 0 && (ops[0] == "install" || ops[0] == "install-hooks" || ops[0] == "uninstall" || ops[0] == "autoupdate") {
			if ops[0] == "autoupdate" || ops[0] == "install-hooks" {
				cx.j.eff.Network = true
				cx.j.other(idNetwork, "pre-commit "+ops[0])
				return
			}
			cx.j.match(idWriteProtected, ".git/hooks (pre-commit "+ops[0]+")")
			return
		}
		cx.j.atLeast(kDev)
	}
}
