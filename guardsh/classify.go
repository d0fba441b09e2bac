package guardsh

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// kind is what a command does when no rule objects: it decides the verdict
// per mode.
type kind uint8

const (
	kPure  kind = iota // shell builtin without effects: allowed in every mode
	kRead              // reads only
	kEdit              // writes inside the project or temp dirs, local git
	kDev               // runs project code: builds, tests, linters
	kOther             // anything else (always comes with an ask finding)
)

// finding is the strongest rule that objected to a command.
type finding struct {
	dec    Decision // Allow (none), Ask or Deny
	id     ruleID
	detail string
}

// judgement collects what the rules found about one simple command before
// the mode turns it into a verdict.
type judgement struct {
	kind kind
	f    finding
	// netf is the strongest finding of a ByDestination rule: it counts
	// (as f) only where the session has no proxy (Policy.NetProxy).
	netf finding
	// netOther: a ByDestination rule was found by other (the command is
	// more than reading). netFirst: netf would be f where it counts (it
	// came before any finding as strong, and no matchOver replaced it):
	// on a tie it wins, as the first finding does.
	netOther, netFirst bool
	eff                Effects
	// nested holds the combined verdict of commands this one runs (sh -c,
	// wrappers, find -exec, xargs); hasNested says it is set.
	nested    Verdict
	hasNested bool
	// allowID names the rule of an allow verdict (default: by kind).
	allowID ruleID
	// priv is set for privilege wrappers (sudo ...): a denied inner command
	// is reported as privilege escalation.
	priv string
}

// match records that rule id objects to the command, with the catalogue's
// decision for it (ask or deny). The strongest finding stays: a deny is not
// replaced by an ask, nor by a later deny.
func (j *judgement) match(id ruleID, detail string) {
	d := id.rule().Decision
	if d == Allow {
		panic("guardsh: match of allow rule " + id.String())
	}
	if id.rule().ByDestination {
		if j.netf.dec < d {
			j.netf = finding{d, id, detail}
			j.netFirst = j.f.dec < d
		}
		return
	}
	if j.f.dec < d {
		j.f = finding{d, id, detail}
	}
	if d == Deny && j.kind < kOther {
		j.kind = kOther
	}
}

// matchOver is match that also replaces an earlier finding of the same
// decision: id says more precisely what the command does.
func (j *judgement) matchOver(id ruleID, detail string) {
	if d := id.rule().Decision; j.f.dec == d || j.netf.dec == d && j.netFirst {
		j.f = finding{}
		j.netFirst = false
	}
	j.match(id, detail)
}

// unsure asks, naming deny rule id, when guardsh cannot tell before the
// command runs whether id applies (its target is only known at run time):
// the one finding whose decision is not its rule's.
func (j *judgement) unsure(id ruleID, detail string) {
	if id.rule().Decision != Deny {
		panic("guardsh: unsure of non-deny rule " + id.String())
	}
	j.kind = kOther
	if j.f.dec < Ask {
		j.f = finding{Ask, id, detail}
	}
}

// judged is a judgement of kind k that rule id objects to.
func judged(k kind, id ruleID, detail string) *judgement {
	j := &judgement{kind: k}
	j.match(id, detail)
	return j
}

// other marks the command as not reading-only and records that rule id
// objects to it.
func (j *judgement) other(id ruleID, detail string) {
	if id.rule().ByDestination {
		// a network command: it runs like a build or a test where the
		// proxy decides its connections (settleIn)
		j.atLeast(kDev)
		j.netOther = true
		j.match(id, detail)
		return
	}
	j.kind = kOther
	j.match(id, detail)
}

func (j *judgement) atLeast(k kind) {
	if j.kind < k {
		j.kind = k
	}
}

func (j *judgement) addNested(v Verdict) {
	if !j.hasNested {
		j.nested, j.hasNested = v, true
		return
	}
	j.nested = combine(j.nested, v)
}

// combine keeps the stricter verdict (the first on a tie) and merges effects.
func combine(a, b Verdict) Verdict {
	out := a
	if b.Decision > a.Decision || b.Decision == a.Decision && a.Rule == idModePlan.String() && b.Rule != idModePlan.String() ||
		b.Decision == Allow && a.Decision == Allow && allowRank(b.Rule) > allowRank(a.Rule) {
		out = b
	}
	out.Effects = mergeEffects(a.Effects, b.Effects)
	return out
}

// allowRank orders allow verdicts of a chain by how much they say: the
// chain "ls && make" is allowed as dev routine.
func allowRank(rule string) int {
	switch rule {
	case idShellBuiltin.String():
		return 0
	case idReadOnly.String():
		return 1
	case idEditProject.String():
		return 2
	case idDevRoutine.String():
		return 3
	}
	return 4
}

func mergeEffects(a, b Effects) Effects {
	if len(b.Reads) == 0 && len(b.Writes) == 0 && !b.Network && !b.Install {
		return a
	}
	if len(a.Reads) == 0 && len(a.Writes) == 0 && !a.Network && !a.Install {
		return b
	}
	out := Effects{Network: a.Network || b.Network, Install: a.Install || b.Install}
	out.Reads = appendUnique(append([]string(nil), a.Reads...), b.Reads...)
	out.Writes = appendUnique(append([]string(nil), a.Writes...), b.Writes...)
	return out
}

func appendUnique(dst []string, src ...string) []string {
outer:
	for _, s := range src {
		for _, d := range dst {
			if d == s {
				continue outer
			}
		}
		dst = append(dst, s)
	}
	return dst
}

// reasonOf is rule id's reason with detail, and its hint.
func reasonOf(id ruleID, detail string) (reason, hint string) {
	r := id.rule()
	reason = r.Reason
	if detail != "" {
		reason += ": " + detail
	}
	return reason, r.Hint
}

// verdictOf is the verdict of rule id, with the catalogue's decision.
func verdictOf(id ruleID, detail string, eff Effects) Verdict {
	return findingVerdict(finding{id.rule().Decision, id, detail}, eff)
}

// findingVerdict is the verdict of finding f.
func findingVerdict(f finding, eff Effects) Verdict {
	reason, hint := reasonOf(f.id, f.detail)
	return Verdict{Decision: f.dec, Rule: f.id.String(), Reason: reason, Hint: hint, Effects: eff}
}

// settle turns a judgement into a verdict for the policy's mode (without
// nested commands and configured rules). Strict mode settles as auto mode
// and refuses what would be asked.
func (p *Policy) settle(j *judgement) Verdict {
	if p.Mode == ModeStrict {
		return strictAsk(p.settleIn(j, ModeAuto))
	}
	return p.settleIn(j, p.Mode)
}

func (p *Policy) settleIn(j *judgement, mode Mode) Verdict {
	switch mode {
	case ModeDefault, ModePlan, ModeAuto, ModeBypass:
	case ModeEdits:
		// Commands ask as in default mode; the agent's file tools are
		// settled in ClassifyAccess.
		mode = ModeDefault
	default:
		mode = ModeDefault // unknown modes are the strict default
	}
	if j.netf.dec != Allow && !p.NetProxy {
		// no proxy: the network finding counts like any other
		if j.f.dec < j.netf.dec || j.f.dec == j.netf.dec && j.netFirst {
			j.f = j.netf
		}
		if j.netOther {
			j.kind = kOther
		}
	}
	if v, ok := p.adminLift(j, mode); ok {
		return v
	}
	switch {
	case j.f.dec == Deny:
		if mode == ModeBypass && !j.f.id.rule().Catastrophic {
			reason, _ := reasonOf(j.f.id, j.f.detail)
			return Verdict{Decision: idModeBypass.rule().Decision, Rule: idModeBypass.String(), Reason: "bypass mode allows what " + j.f.id.String() + " denies elsewhere (" + reason + ")", Effects: j.eff}
		}
		return findingVerdict(j.f, j.eff)
	case mode == ModePlan && j.kind > kRead:
		detail := ""
		if j.f.dec == Ask {
			detail, _ = reasonOf(j.f.id, j.f.detail)
		}
		return verdictOf(idModePlan, detail, j.eff)
	case j.f.dec == Ask && mode == ModeAuto && p.Sandboxed && sandboxContains(j.f.id):
		return verdictOf(idSandboxContained, j.f.detail, j.eff)
	case j.f.dec == Ask:
		if mode == ModeBypass {
			reason, _ := reasonOf(j.f.id, j.f.detail)
			return Verdict{Decision: idModeBypass.rule().Decision, Rule: idModeBypass.String(), Reason: "bypass mode allows it (" + reason + ")", Effects: j.eff}
		}
		return findingVerdict(j.f, j.eff)
	}
	var id ruleID
	switch j.kind {
	case kPure:
		if j.allowID != idNone {
			return verdictOf(j.allowID, "", j.eff)
		}
		return verdictOf(idShellBuiltin, "", j.eff)
	case kRead:
		id = idReadOnly
	case kEdit:
		id = idEditProject
	case kDev:
		id = idDevRoutine
	default:
		if mode == ModeBypass {
			return verdictOf(idModeBypass, "", j.eff)
		}
		if mode == ModeAuto && p.Sandboxed {
			return verdictOf(idSandboxContained, "", j.eff)
		}
		return verdictOf(idUnknown, "", j.eff)
	}
	if j.allowID != idNone {
		id = j.allowID
	}
	if mode == ModeDefault {
		reason, _ := reasonOf(id, "")
		return verdictOf(idModeDefault, reason, j.eff)
	}
	return verdictOf(id, "", j.eff)
}

// sandboxContains reports whether an ask with rule id is only about what
// a verified session sandbox already contains: a program guardsh does not
// know runs there without network and writes only in the project and temp
// dirs. Asks for what the sandbox cannot contain stay: escalations
// (network, writes outside), irreversible loss of project data, credential
// reads, agent configuration, privileges.
func sandboxContains(id ruleID) bool {
	// Reading outside the project is what any program in the sandbox may
	// do (credentials have a rule of their own, which stays).
	return id == idUnknown || id == idReadOutside
}

// sandboxContainsArgs reports whether an unknown program's argv looks
// like work the sandbox contains. It does not when the argv names
// something remote (a URL, host:port, user@host, a server or token
// option): the sandbox has no network today, but what a destination is
// stays for a rule or a human to judge; nor when a word says the
// program destroys something (delete, drop, purge, ...), which may be
// project data the sandbox lets it write; nor for names that are not a
// program's usual spelling (an option, upper case: SQL typed as a
// command, GIT on a case-insensitive file system).
func sandboxContainsArgs(args []string) bool {
	if len(args) == 0 {
		return true
	}
	name := baseName(args[0])
	if !programName(name) || notContained[name] {
		return false
	}
	for _, a := range args {
		if isDynamic(a) {
			return false // known only at run time, when the runner judges it
		}
		if strings.ContainsAny(a, "\\\n\t") {
			return false // escapes or line breaks in a word: not what it looks like
		}
		if remoteArg(a) {
			return false
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(a), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if destroyWords[w] || remoteWords[w] && strings.HasPrefix(a, "-") {
				return false
			}
		}
	}
	return true
}

// helpOnly reports whether argv only asks a program for its help or
// version: NAME --help|--version|-version|--usage, or NAME -V alone, after
// plain subcommand words (git push --help, kubectl get --help). Asks only
// (a denied argv stays denied); the program is one the agent named.
func helpOnly(args []string) bool {
	if len(args) < 2 || !programName(baseName(args[0])) {
		return false
	}
	last := args[len(args)-1]
	switch last {
	case "--help", "--version", "-version", "--usage":
	case "-V":
		if len(args) != 2 {
			return false
		}
	default:
		return false
	}
	for _, w := range args[1 : len(args)-1] {
		if !programName(w) {
			return false
		}
	}
	return true
}

// programName reports whether name is spelled like an installed program:
// lower-case letters, digits and ._+- , starting with a letter or digit,
// at least two characters.
func programName(name string) bool {
	if len(name) < 2 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '+' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// notContained are programs guardsh does not judge whose work the session
// sandbox does not contain: they act on credentials held by an agent
// process or on services running outside it.
var notContained = map[string]bool{
	"ssh-add": true, "ssh-keygen": true, "ssh-agent": true, "gpg": true, "gpg2": true, "gpg-agent": true,
	"pass": true, "secret-tool": true, "keyctl": true, "security": true,
	"cmd": true, "cmd.exe": true, "powershell.exe": true,
	// an unknown git subcommand may be an alias or a git-* program
	// that git's own rules cannot see
	"git": true,
}

// destroyWords are words of an argv that say it destroys something.
var destroyWords = map[string]bool{
	"delete": true, "del": true, "remove": true, "rm": true, "destroy": true, "drop": true, "purge": true,
	"truncate": true, "unregister": true, "uninstall": true, "wipe": true, "erase": true, "prune": true,
	"revoke": true, "archive": true, "restore": true, "terminate": true, "flush": true, "overwrite": true,
	"reset": true, "kill": true, "shred": true, "format": true, "rollback": true, "deregister": true,
	"rd": true, "clear": true, "destroyall": true, "clean": true, "sync": true, "activate": true, "deploy": true,
	"publish": true, "release": true, "push": true, "upload": true, "apply": true, "dangerous": true, "stop": true, "quit": true,
}

// remoteWords are words of options that name a remote end
// (--url=..., --bootstrap-server HOST, --token).
var remoteWords = map[string]bool{
	"url": true, "host": true, "endpoint": true, "token": true, "remote": true,
}

// remoteArg reports whether a word names something on another machine: a
// URL, HOST:PORT or user@host whose host is not the loopback (which,
// inside the sandbox, is the sandbox's own).
func remoteArg(a string) bool {
	if _, rest, ok := strings.Cut(a, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		return !loopbackHost(host)
	}
	if h, ok := argHostPort(a); ok {
		return !loopbackHost(h)
	}
	return strings.Contains(a, "@") && !strings.HasPrefix(a, "@")
}

// loopbackHost reports whether host[:port] is the loopback.
func loopbackHost(host string) bool {
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	switch host {
	case "localhost", "127.0.0.1", "[::1]", "::1":
		return true
	}
	return false
}

// argHostPort reports whether s looks like HOST:PORT, and the host.
func argHostPort(s string) (string, bool) {
	h, port, ok := strings.Cut(s, ":")
	if !ok || h == "" || port == "" || len(port) > 5 || strings.ContainsAny(h, "/= ") {
		return "", false
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	return h, true
}

// maxDepth bounds nesting (sh -c inside sudo inside xargs ...).
const maxDepth = 12

// Classify decides one simple command (argv after expansion). Deny beats
// ask beats allow; configured rules and session approvals apply on top but
// never unlock a built-in deny.
func (p *Policy) Classify(c Command) Verdict {
	if c.Function {
		return verdictOf(idShellBuiltin, "call of a shell function; its commands are judged as they run", Effects{})
	}
	if len(c.Args) > 0 {
		if v, ok := p.PureVerdict(c.Args[0]); ok {
			return v
		}
	}
	var in *source
	if c.Input != nil {
		in = &source{kind: srcStatic, text: *c.Input}
	}
	v := p.classifyArgsIn(&c, c.Args, 0, false, in)
	if c.Source != "" && v.Decision != Deny && hasGlob(c.Source) {
		if w := p.scriptVerdict(c.Source, &c, 1); w.Decision == Deny {
			w.Reason = "as written (" + c.Source + "): " + w.Reason
			v = combine(v, w)
		}
	}
	return v
}

// InputMatters reports whether the verdict on args depends on what the
// command reads on standard input: xargs and parallel make it arguments,
// sqlite3 and ed run it as commands. A runner that can read the input
// before the command starts passes it as Command.Input.
func InputMatters(args []string) bool {
	norm := basicArgv(args)
	for range 4 {
		if len(norm) == 0 {
			return false
		}
		switch norm[0] {
		case "xargs":
			for _, a := range norm[1:] {
				if a == "-a" || strings.HasPrefix(a, "--arg-file") || strings.HasPrefix(a, "-a") && len(a) > 2 {
					return false // reads a file, not stdin
				}
			}
			return true
		case "parallel", "ed", "sqlite3":
			return true
		case "python", "python2", "python3", "pypy", "node", "nodejs", "perl", "ruby", "php", "lua", "tclsh", "wish":
			// the program itself on standard input (python3 <<< CODE)
			return readsStdin(norm[0], norm)
		}
		// timeout 5 xargs ..., env X=y sqlite3 ...
		inner, _, ok := unwrap(norm)
		if !ok || len(inner) == 0 || len(inner) >= len(norm) {
			return false
		}
		norm = basicArgv(inner)
	}
	return false
}

var pureVerdict = verdictOf(idShellBuiltin, "", Effects{})

// PureVerdict returns the verdict Classify gives every command whose argv[0]
// is name, whatever its arguments, directory, environment and source: ok
// is true for a pure builtin (PureBuiltin) that no configured rule and no
// session approval can match. The verdict then depends only on name and on
// p's Mode, Rules and Session, so a runner may cache it per name until one
// of those changes (interp does, keyed on them) and skip Classify for such
// commands: a mode or setting that judges a builtin by its arguments must
// answer ok == false here, not only in Classify.
func (p *Policy) PureVerdict(name string) (v Verdict, ok bool) {
	switch p.Mode {
	case ModeDefault, ModePlan, ModeEdits, ModeAuto, ModeBypass:
	default:
		return Verdict{}, false // other modes (strict) may look at the arguments
	}
	if !PureBuiltin(name) {
		return Verdict{}, false
	}
	for _, rules := range [2][]Rule{p.Rules, p.Session} {
		for i := range rules {
			if rules[i].mayMatchName(name) {
				return Verdict{}, false
			}
		}
	}
	return pureVerdict, true
}

// mayMatchName reports whether r can match some argv whose first word is
// name (a pure builtin's name: rule matching sees it unchanged, normalised
// or not). Conservative: a dynamic or malformed first pattern may match.
func (r *Rule) mayMatchName(name string) bool {
	if len(r.Prefix) == 0 {
		return false // matches nothing (matchArgs)
	}
	pat := r.Prefix[0]
	if pat == name || pat == "*" || pat == "$" || isDynamic(pat) {
		return true
	}
	ok, err := path.Match(pat, name)
	return ok || err != nil
}

// PureBuiltin reports whether a command named name is allowed in every mode
// whatever its arguments: shell builtins without effects ([, test, echo,
// cd, export ...; their redirections are judged as file accesses). A runner
// may skip the policy for them when no configured rule names them.
func PureBuiltin(name string) bool {
	switch name {
	case "[", "test", "true", "false", ":", "echo", "printf", "cd", "pwd",
		"unset", "set", "shift", "return", "break", "continue", "read", "wait",
		"getopts", "let", "shopt", "umask", "jobs", "hash", "type", "times", "caller", "mapfile", "readarray":
		return true
	}
	return false
}

// classifyArgs decides argv in the context of c. fromInput says argv is
// completed from standard input at run time (xargs).
func (p *Policy) classifyArgs(c *Command, args []string, depth int, fromInput bool) Verdict {
	return p.classifyArgsIn(c, args, depth, fromInput, nil)
}

// classifyArgsIn is classifyArgs knowing what the checker found on
// standard input (for xargs and parallel).
func (p *Policy) classifyArgsIn(c *Command, args []string, depth int, fromInput bool, stdin *source) Verdict {
	if len(args) == 0 {
		return verdictOf(idShellBuiltin, "", Effects{})
	}
	if depth > maxDepth {
		return p.settle(judged(kOther, idNesting, ""))
	}
	j := &judgement{}
	cx := &cmdCtx{p: p, c: c, pe: newPathEnv(c), depth: depth, j: j, fromInput: fromInput, stdin: stdin}
	cx.run(args)
	v := p.classified(cx, c, args, depth, fromInput)
	if cx.pe.differs && !c.resolved {
		// A path (or the working directory) resolves to something other
		// than it is spelled: judge the command as the kernel will see it
		// too; the more dangerous reading wins.
		rc := *c
		rc.resolved = true
		if w := p.classifyArgsIn(&rc, args, depth, fromInput, stdin); w.Decision > v.Decision {
			w.Reason = "resolved (symlinks and .. followed as the kernel does): " + w.Reason
			w.Effects = mergeEffects(v.Effects, w.Effects)
			v = w
		} else {
			v.Effects = mergeEffects(v.Effects, w.Effects)
		}
	}
	return v
}

// classified turns what cx found about args into a verdict: the mode, the
// configured rules and the nested commands' verdicts.
func (p *Policy) classified(cx *cmdCtx, c *Command, args []string, depth int, fromInput bool) Verdict {
	j := cx.j
	v := p.settle(j)
	if v.Decision == Ask && helpOnly(args) {
		// NAME [SUBCOMMAND...] --help / --version: prints and exits
		v = verdictOf(idReadOnly, "prints its help or version", j.eff)
	}
	if v.Rule == idSandboxContained.String() && (fromInput || c.nameEscaped(args) || !sandboxContainsArgs(args)) {
		// what the program acts on is not known to stay in the sandbox
		v = verdictOf(idUnknown, j.f.detail, j.eff)
	}
	v = p.applyRules(v, c, args, j.f.id.String(), fromInput, depth)
	if j.hasNested {
		n := j.nested
		if j.priv != "" && n.Decision == Deny && (v.Decision != Deny || v.Rule == idModePlan.String()) {
			reason, hint := reasonOf(idPrivSudo, j.priv+" runs a command that is itself denied ["+n.Rule+"]: "+n.Reason)
			if n.Hint != "" {
				hint = n.Hint
			}
			// the decision is the inner command's (its rule's row), the
			// rule the wrapper's: the model is told it asked for root
			v = Verdict{Decision: n.Decision, Rule: idPrivSudo.String(), Reason: reason, Hint: hint, Effects: mergeEffects(v.Effects, n.Effects)}
		} else if v.Rule == idShellBuiltin.String() && n.Decision >= v.Decision {
			// a transparent wrapper (xargs, timeout, env): the wrapped
			// command's verdict names the rule
			n.Effects = mergeEffects(v.Effects, n.Effects)
			v = n
		} else {
			v = combine(v, n)
		}
	}
	if p.Mode == ModeStrict {
		v = p.strictApply(c, args, fromInput, v)
	}
	return v
}

// applyRules lets configured rules and session approvals change a verdict:
// a deny rule denies, an ask rule asks, an allow rule (or a session
// approval) allows what would be asked. A built-in deny stays.
//
// finding is the built-in rule that asked at this level ("" none): a
// session approval covers only the finding it was given for, and no option
// word the human did not see (Rule.Unlocks, Rule.Options); fromInput: args
// are completed at run time (xargs), with words nobody saw, which no
// session approval covers; depth > 0: args run under another program
// (timeout, sh -c), which is what would be escalated, and an approval of
// git (escalated as a hardened git) does not cover it.
func (p *Policy) applyRules(v Verdict, c *Command, args []string, finding string, fromInput bool, depth int) Verdict {
	if len(p.Rules) == 0 && len(p.Session) == 0 {
		return v
	}
	norm := NormalizeArgv(args)
	basic := basicArgv(args)
	var best *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matchArgs(norm) || r.matchArgs(basic) || r.matchArgs(args) {
			if best == nil || r.Decision > best.Decision || r.Decision == best.Decision && namesOption(r.Prefix) && !namesOption(best.Prefix) {
				best = r // the stricter, or the one that names options
			}
		}
	}
	if best == nil || best.Decision == Allow {
		for i := range p.Session {
			r := &p.Session[i]
			if (r.matchArgs(norm) || r.matchArgs(basic) || r.matchArgs(args)) && !fromInput && (depth == 0 || r.Dir == "") && r.approves(c, args, finding) {
				best = r
				break
			}
		}
	}
	if best == nil || v.Decision == Deny {
		return v
	}
	if best.Decision == Allow && finding == "git.config-exec" && !namesOption(best.Prefix) {
		// a rule for git push origin * was not written for the program
		// --receive-pack=CMD or -c core.sshCommand=CMD runs: only a rule
		// that names such an option allows it
		return v
	}
	out := func(d Decision) Verdict {
		reason := best.Reason
		if reason == "" {
			reason = "configured rule " + best.ID
			if best.Source != "" {
				reason += " (" + best.Source + ")"
			}
		}
		eff := v.Effects
		if d == Allow && best.Network {
			eff.Network = true
		}
		return Verdict{Decision: d, Rule: best.ID, Reason: reason, Hint: best.Hint, Effects: eff}
	}
	switch best.Decision {
	case Deny:
		return out(Deny)
	case Ask:
		if v.Decision == Allow {
			return out(Ask)
		}
		return v
	default:
		if v.Decision == Ask {
			return out(Allow)
		}
		return v
	}
}

// Matches reports whether argv (normalised with NormalizeArgv, or as given)
// starts with r.Prefix, each word a glob in path.Match syntax. A last
// prefix word "$" requires argv to end there; a last "*" matches any rest,
// nothing included. "*" also matches a word that is only known at run time.
func (r Rule) Matches(args []string) bool {
	return r.matchArgs(args) || r.matchArgs(NormalizeArgv(args)) || r.matchArgs(basicArgv(args))
}

func (r *Rule) matchArgs(args []string) bool {
	pre := r.Prefix
	exact := false
	if n := len(pre); n > 0 && pre[n-1] == "$" {
		pre, exact = pre[:n-1], true
	} else if n > 1 && pre[n-1] == "*" {
		// a last "*" stands for whatever follows, nothing included
		pre = pre[:n-1]
	}
	if len(pre) == 0 || len(args) < len(pre) || (exact && len(args) != len(pre)) {
		return false
	}
	for i, pat := range pre {
		a := args[i]
		if pat == "*" {
			continue
		}
		if isDynamic(a) {
			return false
		}
		if pat == a {
			continue
		}
		if ok, err := path.Match(pat, a); !ok || err != nil {
			return false
		}
	}
	return true
}

// namesOption reports whether a rule prefix has an option or NAME=value
// word.
func namesOption(prefix []string) bool {
	for _, w := range prefix {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
			return true
		}
	}
	return false
}

// approves reports whether approval r covers args, whose own finding (the
// built-in rule that asked) is finding: the same finding as the approved
// command's, and every option or NAME=value word of args one the approved
// command had. Rules that are not approvals (no Options) cover by prefix.
func (r *Rule) approves(c *Command, args []string, finding string) bool {
	if r.Options == nil {
		return true
	}
	if r.Dir != "" && (c == nil || filepath.Clean(c.Dir) != r.Dir) {
		// git in another directory is another repository, with a config
		// (remotes, URLs) the human did not see
		return false
	}
	if r.Dir != "" && (len(args) == 0 || filepath.Base(args[0]) != "git") {
		// an approved git is escalated as git, hardened (gitsafe); under
		// a wrapper (timeout, env, nice) the escalated program is the
		// wrapper, and git would run with the repository's hooks
		return false
	}
	for a, n := args, 0; len(a) > 0 && n < 4; n++ {
		// xargs and parallel add words the human never saw
		if b := basicArgv(a); len(b) > 0 && (b[0] == "xargs" || b[0] == "parallel") {
			return false
		}
		inner, _, ok := unwrap(basicArgv(a))
		if !ok || len(inner) >= len(a) {
			break
		}
		a = inner
	}
	if finding != "" && finding != r.Unlocks {
		// asked for another reason than the one approved ("" nothing
		// objects: the mode alone asks, or the proxy decides the network)
		return false
	}
	for _, w := range optionWords(args) {
		if !slices.Contains(r.Options, w) {
			return false
		}
	}
	return true
}

// optionWords are the words of args after the first that are options
// (-x, --long, --long=value) or NAME=value assignments (env X=y, git -c
// k=v's value), as written.
func optionWords(args []string) []string {
	var out []string
	for k, a := range args {
		if k == 0 {
			continue
		}
		if len(a) > 1 && a[0] == '-' || isAssignWord(a) || k > 0 && args[k-1] == "-c" {
			out = append(out, a)
		}
	}
	return out
}

// ApprovalRule is the rule stored when a human allows c for the session:
// its normalised argv as a prefix, with a wildcard where the words that
// follow are the command's object (the branch of git push, ...), and an
// exact match otherwise. Never the literal command line. It covers only
// commands asked for the same reason with no option the human did not see
// (Rule.Unlocks, Rule.Options).
func ApprovalRule(c Command) Rule {
	args := NormalizeArgv(c.Args)
	r := Rule{ID: "session.approval", Decision: Allow, Source: "session", Options: optionWords(c.Args)}
	if r.Options == nil {
		r.Options = []string{}
	}
	r.Unlocks = approvalFinding(c, args)
	if len(args) == 0 {
		return r
	}
	name := args[0]
	if name == "git" && c.Dir != "" {
		r.Dir = filepath.Clean(c.Dir)
	}
	prefix := make([]string, 0, len(args)+1)
	switch {
	case name == "git" && len(args) >= 2:
		sub := args[1]
		prefix = append(prefix, "git", sub)
		switch sub {
		case "push", "pull", "fetch":
			if len(args) >= 3 && !strings.HasPrefix(args[2], "-") {
				prefix = append(prefix, args[2])
			}
		}
		prefix = append(prefix, "*")
	case subcommandCLI[name] && len(args) >= 2 && readVerb(args[1]):
		prefix = append(prefix, name, args[1], "*")
	default:
		for _, a := range args {
			if isDynamic(a) {
				prefix = append(prefix, "*")
				continue
			}
			prefix = append(prefix, escapeGlob(a))
		}
		prefix = append(prefix, "$")
	}
	r.Prefix = prefix
	r.Reason = "approved for this session: " + strings.Join(prefix, " ")
	if v := NewPolicy(ModeAuto).Classify(c); v.Effects.Network {
		r.Network = true
	}
	return r
}

// approvalFinding is the built-in finding of args (c's command, wrappers
// stripped) at its own level, as applyRules sees it there.
func approvalFinding(c Command, args []string) string {
	if len(args) == 0 {
		return ""
	}
	p := NewPolicy(ModeAuto)
	j := &judgement{}
	cx := &cmdCtx{p: p, c: &c, pe: newPathEnv(&c), j: j}
	cx.run(args)
	p.settle(j) // as classifyArgsIn: the network finding counts too
	return j.f.id.String()
}

var subcommandCLI = map[string]bool{
	"kubectl": true, "gh": true, "glab": true, "docker": true, "podman": true, "helm": true, "npm": true,
	"yarn": true, "pnpm": true, "cargo": true, "terraform": true, "aws": true, "gcloud": true, "az": true,
}

// readVerb reports whether a subcommand of a cloud or tool CLI only
// looks (kubectl get, gh pr view): approving one approves its siblings.
// Anything else is approved exactly.
func readVerb(s string) bool {
	switch s {
	case "get", "describe", "logs", "view", "list", "ls", "status", "show", "top", "version", "inspect", "ps",
		"images", "search", "info", "explain", "api-resources", "outdated", "why", "tree":
		return true
	}
	return false
}

func escapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nameEscaped reports whether the program args runs (c's own, or the one a
// wrapper of c's command line runs) was written with a backslash in its
// name (Command.NameEscaped, Command.EscapedWords).
func (c *Command) nameEscaped(args []string) bool {
	if c.NameEscaped {
		return true
	}
	if len(args) == 0 {
		return false
	}
	for _, w := range c.EscapedWords {
		if w == "" || w == args[0] || w == baseName(args[0]) || baseName(w) == baseName(args[0]) {
			return true
		}
	}
	return false
}
