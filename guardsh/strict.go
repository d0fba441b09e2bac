package guardsh

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The strict profile (--mode strict): for unattended runs on untrusted
// tasks. The built-in rules apply as in auto mode, every ask becomes a
// deny (nobody is there to approve), and on top nothing runs unless it is
// listed: a command that is not a harmless shell builtin must match an
// allowlist entry (StrictEntry) with every flag, every flag value and
// every path argument accounted for.
//
// Unlike the rest of this package, the strict checks look at the file
// system: a path argument is resolved through its symlinks (Lstat and
// Readlink, nothing is opened) so that a link in the project that points
// out of it is seen as what it is.

// strictAskNote ends the reason of an ask that strict mode turned into a
// deny.
const strictAskNote = " (strict mode refuses what would need approval: nobody is there to approve it)"

// StrictEntry is one allowlist entry of the strict profile: a command with
// the flags it may be given.
type StrictEntry struct {
	// Words are the command name and its subcommand words, e.g. ["git",
	// "status"]: the command's argv must start with them, in this order.
	Words []string `json:"words"`
	// Flags take no value ("-n", "--count"). A short flag may be bundled
	// with other listed short flags (-ni).
	Flags []string `json:"flags,omitempty"`
	// The pseudo-flag "-#" allows a number as a flag (head -20).
	// ValueFlags take a value, as the next word or joined ("-e X", "-eX",
	// "--max-count=5", "-count=1"). Any flag not listed is refused.
	ValueFlags []string `json:"value_flags,omitempty"`
	// PathFlags take a value that names a file or directory (go test
	// -coverprofile, sort -o): the value, in every form ("-o F", "-oF",
	// "--output=F", "-coverprofile=F"), must resolve inside the project
	// as a path argument does. They need not be listed in ValueFlags.
	PathFlags []string `json:"path_flags,omitempty"`
	// JoinedFlags take a value only joined to them ("-U5",
	// "--unified=5"): the program's value is optional, so it reads "-U
	// NEXT" as -U without a value and NEXT as an argument (git diff -U
	// --output=FILE). Built-in profile only.
	JoinedFlags []string `json:"joined_flags,omitempty"`
	// Paths says that every positional argument is a path that must
	// resolve inside the project. Without it only positional arguments
	// that look like paths (absolute, ~, ./, ../ or with a .. component)
	// or name an existing file or symlink are checked.
	Paths bool `json:"paths"`
	// MaxArgs is the most positional arguments allowed; -1 means any.
	MaxArgs int `json:"max_args"`
	// Source says where the entry comes from: "built-in" or file:line.
	Source string `json:"source"`
}

// DefaultProgramDirs are the only directories strict mode runs programs
// from (plus [strict] program_dirs of the user's configuration).
var DefaultProgramDirs = []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin"}

// strictEnvNames are the variables a script may set for the programs it
// runs in strict mode (besides [strict] env): none of them makes a program
// run other code. (Not LANGUAGE: gettext takes it as a path below
// /usr/share/locale, so LANGUAGE=../../../PROJECT/x makes every listed
// program load message catalogs, printf formats, the script wrote. glibc
// refuses such LANG and LC_* values.) (PATH is not one: the runner gives every program the
// program directories as PATH, and env PATH=./bin CMD is refused.)
var strictEnvNames = []string{
	"LANG", "LC_*", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
	"CLICOLOR_FORCE", "CI", "PWD", "OLDPWD", "SHLVL", "_",
	"GOOS", "GOARCH", "GOMAXPROCS", "GOTRACEBACK", "CGO_ENABLED",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
}

// strictBuiltins are the shell builtins strict mode allows without an
// entry. Some get extra checks in strictBuiltin (cd, export, set, source).
var strictBuiltins = map[string]bool{
	":": true, "true": true, "false": true, "echo": true, "printf": true, "test": true, "[": true, "[[": true,
	"cd": true, "pushd": true, "popd": true, "dirs": true, "pwd": true,
	"export": true, "declare": true, "typeset": true, "local": true, "readonly": true, "unset": true,
	"read": true, "mapfile": true, "readarray": true, "shift": true, "set": true, "shopt": true,
	"return": true, "exit": true, "break": true, "continue": true, "wait": true, "jobs": true,
	"getopts": true, "let": true, "type": true, "hash": true, "times": true, "caller": true, "umask": true,
	// their content is decided command by command when it runs
	"eval": true, "source": true, ".": true, "trap": true,
}

// strictWrappers run the command that follows them; they are allowed when
// that command passes strict mode on its own (Classify judges it).
var strictWrappers = map[string]bool{
	"command": true, "builtin": true, "exec": true, "time": true, "nice": true, "timeout": true, "nohup": true, "env": true,
}

// strictShells run their commands in guardsh's own interpreter, where each
// command is decided as it runs.
var strictShells = map[string]bool{"sh": true, "bash": true, "dash": true}

// strictProfile returns the entries for command name: the configured ones,
// then the built-in profile unless the configuration turned it off.
func (p *Policy) strictProfile(name string) []StrictEntry {
	var out []StrictEntry
	sc := p.Strict
	if sc != nil {
		for _, e := range sc.Commands {
			if e.Words[0] == name {
				out = append(out, e)
			}
		}
	}
	if sc == nil || !sc.NoDefaults {
		out = append(out, defaultProfile()[name]...)
	}
	return out
}

// StrictProgramDirs returns the directories programs may be run from in
// strict mode, nil in any other mode: a runner then looks programs up only
// there, ignoring $PATH, and runs a program named with a slash only if it
// lies in one of them.
func (p *Policy) StrictProgramDirs() []string {
	if p == nil || p.Mode != ModeStrict {
		return nil
	}
	dirs := slices.Clone(DefaultProgramDirs)
	if p.Strict != nil {
		dirs = append(dirs, p.Strict.ProgramDirs...)
	}
	return dirs
}

// StrictEnvAllowed reports whether a script may hand variable name to the
// programs it runs in strict mode with a value of its own choosing. The
// runner resets any other variable a program would receive to its value
// when the session started.
func (p *Policy) StrictEnvAllowed(name string) bool {
	if strings.HasPrefix(name, "GUARDSH_") {
		return true // judged by guardsh.self and pinned by the runner
	}
	for _, pat := range strictEnvNames {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	if p != nil && p.Strict != nil {
		for _, pat := range p.Strict.Env {
			if ok, _ := path.Match(pat, name); ok {
				return true
			}
		}
	}
	return false
}

// strictRefusal is a strict-mode deny.
func strictRefusal(id ruleID, reason, hint string) Verdict {
	return Verdict{Decision: id.rule().Decision, Rule: id.String(), Reason: reason, Hint: hint}
}

// strictAsk turns an ask into a deny in strict mode.
func strictAsk(v Verdict) Verdict {
	if v.Decision == Ask {
		v.Decision = Deny
		v.Reason = strings.TrimRight(v.Reason, ".") + strictAskNote
	}
	return v
}

// strictApply puts the strict allowlist on top of verdict v of argv args
// (one level of classifyArgsIn). A built-in deny stands; a refusal of the
// allowlist beats an ask that strict mode turned into a deny, whose rule
// says less.
func (p *Policy) strictApply(c *Command, args []string, fromInput bool, v Verdict) Verdict {
	if strictLookup(args) && (strings.HasPrefix(v.Rule, "strict.") || strings.HasSuffix(v.Reason, strictAskNote)) {
		// command -v NAME only looks the name up: what NAME would do
		// in strict mode does not matter
		lv := verdictOf(idShellBuiltin, "", Effects{})
		lv.Reason = "command -v only looks a command up"
		return lv
	}
	if v.Decision == Deny && !strings.HasSuffix(v.Reason, strictAskNote) {
		return v
	}
	if sv, bad := p.strictCheck(c, args, fromInput); bad {
		sv.Effects = v.Effects
		return sv
	}
	for _, w := range v.Effects.Writes {
		if inGitDir(resolveUnder(c, w)) {
			pv := verdictOf(idWriteProtected, "", v.Effects)
			pv.Reason = strings.Join(displayArgs(args, 4), " ") + " writes " + w + strictGitWriteNote
			pv.Hint = "write elsewhere in the project"
			return pv
		}
	}
	return strictAsk(v)
}

// strictLookup reports whether argv is command -v/-V NAME...: a lookup.
func strictLookup(args []string) bool {
	if len(args) < 3 || args[0] != "command" || args[1] != "-v" && args[1] != "-V" {
		return false
	}
	for _, a := range args[2:] {
		if isDynamic(a) || strings.HasPrefix(a, "-") || strings.Contains(a, "/") {
			return false
		}
	}
	return true
}

// strictCheck judges argv against the allowlist; bad reports a refusal.
func (p *Policy) strictCheck(c *Command, args []string, fromInput bool) (Verdict, bool) {
	i := 0
	for i < len(args) && isAssignWord(args[i]) {
		name, _, _ := strings.Cut(args[i], "=")
		if v, bad := p.strictEnvName(name, args[i]); bad {
			return v, true
		}
		i++
	}
	args = args[i:]
	if len(args) == 0 {
		return Verdict{}, false
	}
	if fromInput {
		return strictRefusal(idStrictInput, "arguments read from standard input at run time (xargs, parallel) cannot be checked against the allowlist",
			"pass the arguments literally, e.g. grep -n PATTERN a.go b.go"), true
	}
	for _, a := range args {
		if isDynamic(a) {
			return strictRefusal(idStrictDynamic, "the word "+displayArg(a)+" is only known at run time, and strict mode decides only what it can see",
				"write the value literally; at run time guardsh decides the expanded command again"), true
		}
	}
	name := args[0]
	if strings.ContainsAny(name, " \t\n") {
		return strictRefusal(idStrictWord, fmt.Sprintf("the command name %q contains whitespace", name),
			"pass arguments as separate words: "+separateWords(args, 0)), true
	}
	if strings.Contains(name, "/") {
		if v, bad := p.strictProgram(c, name); bad {
			return v, true
		}
		name = path.Base(name)
		// the checks below know the program by its name (unwrap sees
		// env in /usr/bin/env sh x.sh)
		args = append([]string{name}, args[1:]...)
	}
	if strictBuiltins[name] {
		return p.strictBuiltin(c, name, args)
	}
	if v, bad := strictCwd(c); bad {
		return v, true
	}
	if strictWrappers[name] {
		return p.strictWrapper(name, args)
	}
	if strictShells[name] {
		return strictShell(c, name, args)
	}
	if name == "git" {
		// git's harmless global options; -C DIR must lie in the project
		// and the paths that follow are relative to it
		k := 1
	globals:
		for k < len(args) {
			switch a := args[k]; a {
			case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects":
				k++
			case "-C":
				if k+1 >= len(args) {
					break globals
				}
				if v, bad := strictPathArg(c, args[k+1]); bad {
					return v, true
				}
				c2 := *c
				c2.Dir = strictJoin(c, args[k+1])
				c = &c2
				k += 2
			default:
				break globals
			}
		}
		args = append([]string{args[0]}, args[k:]...)
		if v, bad := strictGitDir(c); bad {
			return v, true
		}
	}
	entries := p.strictProfile(name)
	if len(entries) == 0 {
		return strictRefusal(idStrictUnlisted, fmt.Sprintf("%s is not on the strict allowlist: in strict mode nothing runs unless it is listed", name),
			"use a listed command instead, or ask the human to add an entry to the user config: "+entrySnippet([]string{name}, "", false)), true
	}
	// The entries with the most matching words; configured ones replace
	// built-in ones for the same words. Any of them may accept argv.
	var cands []*StrictEntry
	for k := range entries {
		e := &entries[k]
		if len(args) < len(e.Words) || !slices.Equal(args[1:len(e.Words)], e.Words[1:]) {
			continue
		}
		switch {
		case len(cands) == 0 || len(e.Words) > len(cands[0].Words):
			cands = []*StrictEntry{e}
		case len(e.Words) == len(cands[0].Words) && (e.Source != "built-in" || cands[0].Source == "built-in"):
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		words := name
		if len(args) > 1 {
			words += " " + args[1]
		}
		return strictRefusal(idStrictUnlisted, fmt.Sprintf("%s is not on the strict allowlist (%s)", words, allowedForms(entries)),
			"use one of the allowed forms, or ask the human to add an entry to the user config: "+entrySnippet(strings.Fields(words), "", false)), true
	}
	var first Verdict
	for k, e := range cands {
		v, bad := strictEntryCheck(c, e, args)
		if !bad {
			return Verdict{}, false
		}
		if k == 0 {
			first = v
		}
	}
	return first, true
}

// strictEntryCheck checks the flags and arguments after e's words.
func strictEntryCheck(c *Command, e *StrictEntry, args []string) (Verdict, bool) {
	rest := args[len(e.Words):]
	// form is the allowed form for a refusal's hint: built only when
	// refusing (this runs for every command in strict mode)
	form := func() string { return "allowed: " + e.form() }
	nPos := 0
	endOpts := false
	refuse := func(id ruleID, reason, flag string, value bool) (Verdict, bool) {
		hint := form()
		if flag != "" {
			hint += "; to allow " + flag + ", a human adds to the user config: " + entrySnippet(e.Words, flag, value)
		}
		return strictRefusal(id, reason, hint), true
	}
	// what the entry's command-specific checks look at (strictArgs)
	var used, pos []string
	// value checks the value v of flag f: a path flag's must lie inside
	// the project
	value := func(f, v string) (Verdict, bool) {
		used = append(used, f)
		if !e.isPathFlag(f) {
			return Verdict{}, false
		}
		if vv, bad := strictPathArg(c, v); bad {
			vv.Reason = strings.Join(e.Words, " ") + " " + f + ": " + vv.Reason
			vv.Hint = form() + "; " + vv.Hint
			return vv, true
		}
		// a path flag may name a file the command writes (-coverprofile,
		// -o): never one of the protected files
		if r := resolveUnder(c, strictJoin(c, v)); strictPathEnv(c).protectedWrite(r) || inGitDir(r) {
			return strictRefusal(idWriteProtected, fmt.Sprintf("%s %s %s: .git/config, .git/hooks and guardsh's own files are changed by the human only", strings.Join(e.Words, " "), f, v),
				"name a file elsewhere in the project"), true
		}
		return Verdict{}, false
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if endOpts || a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			nPos++
			if e.MaxArgs >= 0 && nPos > e.MaxArgs {
				return refuse(idStrictFlag, fmt.Sprintf("%s takes at most %d arguments", strings.Join(e.Words, " "), e.MaxArgs), "", false)
			}
			if e.Paths || looksLikePath(a) || existsAt(c, a) {
				if v, bad := strictPathArg(c, a); bad {
					v.Hint = form() + "; " + v.Hint
					return v, true
				}
			}
			continue
		}
		if a == "--" {
			endOpts = true
			continue
		}
		if strings.ContainsAny(a, " \t\n") {
			return strictRefusal(idStrictWord, fmt.Sprintf("the flag word %q contains whitespace: %s would see one argument, not several", a, e.Words[0]),
				"pass arguments as separate words: "+separateWords(args, len(e.Words)+i)), true
		}
		cmd := strings.Join(e.Words, " ")
		if strings.HasPrefix(a, "--") {
			name, _, hasVal := strings.Cut(a, "=")
			switch {
			case e.hasFlag(name):
				if hasVal {
					return refuse(idStrictValue, fmt.Sprintf("%s %s is listed without a value but was given one (%s)", cmd, name, a), name, true)
				}
				used = append(used, name)
			case e.hasValueFlag(name):
				_, v, _ := strings.Cut(a, "=")
				if !hasVal && e.isJoinedFlag(name) {
					return e.joinedRefusal(name, name+"=")
				}
				if !hasVal {
					if i+1 >= len(rest) {
						return refuse(idStrictValue, fmt.Sprintf("%s %s needs a value", cmd, name), "", false)
					}
					i++
					v = rest[i]
				}
				if vv, bad := value(name, v); bad {
					return vv, true
				}
			case hasVal:
				return refuse(idStrictValue, fmt.Sprintf("%s: the flag %s takes a value (%s) and is not listed: a value flag changes what its argument means", cmd, name, a), name, true)
			default:
				return refuse(idStrictFlag, fmt.Sprintf("%s: the flag %s is not listed", cmd, name), name, false)
			}
			continue
		}
		// A single dash: a listed word as a whole (-name, -count=1), else
		// bundled short flags letter by letter.
		if e.hasFlag(a) || e.hasFlag("-#") && allDigits(a[1:]) {
			used = append(used, a)
			continue
		}
		if e.hasValueFlag(a) {
			if e.isJoinedFlag(a) {
				return e.joinedRefusal(a, a)
			}
			if i+1 >= len(rest) {
				return refuse(idStrictValue, fmt.Sprintf("%s %s needs a value", cmd, a), "", false)
			}
			i++
			if vv, bad := value(a, rest[i]); bad {
				return vv, true
			}
			continue
		}
		if k := strings.IndexByte(a, '='); k > 1 && e.hasValueFlag(a[:k]) {
			if vv, bad := value(a[:k], a[k+1:]); bad {
				return vv, true
			}
			continue
		}
		if e.singleDashWords() {
			// find -exec, go test -toolexec: the word is one flag
			name, _, hasVal := strings.Cut(a, "=")
			if hasVal {
				return refuse(idStrictValue, fmt.Sprintf("%s: the flag %s takes a value (%s) and is not listed", cmd, name, a), name, true)
			}
			return refuse(idStrictFlag, fmt.Sprintf("%s: the flag %s is not listed (a flag that is not listed may take a value or run something)", cmd, a), a, false)
		}
		for k := 1; k < len(a); k++ {
			f := "-" + a[k:k+1]
			if e.hasFlag(f) {
				used = append(used, f)
				continue
			}
			if e.hasValueFlag(f) {
				v := a[k+1:]
				if k+1 == len(a) {
					if e.isJoinedFlag(f) {
						return e.joinedRefusal(f, f)
					}
					if i+1 >= len(rest) {
						return refuse(idStrictValue, fmt.Sprintf("%s %s needs a value", cmd, f), "", false)
					}
					i++
					v = rest[i]
				}
				if vv, bad := value(f, v); bad {
					return vv, true
				}
				break
			}
			in := ""
			if len(a) > 2 {
				in = " (in " + a + ")"
			}
			if k+1 < len(a) && !e.hasFlag("-"+a[k+1:k+2]) && !e.hasValueFlag("-"+a[k+1:k+2]) {
				return refuse(idStrictValue, fmt.Sprintf("%s: the flag %s%s is not listed; what follows it may be its value, which changes what the argument means", cmd, f, in), f, true)
			}
			return refuse(idStrictFlag, fmt.Sprintf("%s: the flag %s%s is not listed (a flag that is not listed may take a value and change what the next argument means)", cmd, f, in), f, false)
		}
	}
	if check := strictArgChecks[e.Words[0]]; check != nil {
		if v, bad := check(c, e, used, pos); bad {
			v.Hint = form() + "; " + v.Hint
			return v, true
		}
	}
	return Verdict{}, false
}

// strictBuiltin checks the builtins strict mode allows.
func (p *Policy) strictBuiltin(c *Command, name string, args []string) (Verdict, bool) {
	switch name {
	case "cd", "pushd":
		named := false
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") && name == "pushd" {
				continue // -, --, -P, -L; pushd -n, +N (a directory already on the stack)
			}
			named = true
			if v, bad := strictPathArg(c, a); bad {
				return v, true
			}
		}
		if name == "cd" && !named && !slices.Contains(args[1:], "-") {
			return strictRefusal(idStrictPath, "cd without an argument changes to the home directory, outside the project", "cd to a directory inside the project"), true
		}
	case "source", ".":
		k := 1
		if len(args) > 2 && args[1] == "--" {
			k = 2 // bash's source -- FILE
		}
		if len(args) > k {
			return strictPathArg(c, args[k])
		}
	case "export", "declare", "typeset", "local", "readonly":
		exported := name == "export"
		var names []string
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") && len(a) > 1 {
				if strings.HasPrefix(a, "-") && strings.Contains(a, "x") {
					exported = true
				}
				if strings.HasPrefix(a, "-") && strings.Contains(a, "f") && (exported || name == "export") {
					return strictRefusal(idStrictEnv, name+" "+a+" exports shell functions, which the shells that programs start would run",
						"call the function in this shell instead of exporting it"), true
				}
				continue
			}
			n, _, _ := strings.Cut(a, "=")
			names = append(names, n)
		}
		if exported {
			for _, n := range names {
				if v, bad := p.strictEnvName(n, name+" "+n); bad {
					return v, true
				}
			}
		}
	case "set":
		for _, a := range args[1:] {
			if a == "--" {
				break
			}
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "a") || a == "allexport" {
				return strictRefusal(idStrictEnv, "set -a (allexport) would hand every variable the script sets to the programs it runs",
					"export only the variables a program needs, e.g. export LANG=C"), true
			}
		}
	}
	return Verdict{}, false
}

// strictEnvName refuses handing variable name to programs unless allowed.
func (p *Policy) strictEnvName(name, what string) (Verdict, bool) {
	if p.StrictEnvAllowed(name) {
		return Verdict{}, false
	}
	return strictRefusal(idStrictEnv, fmt.Sprintf("%s: strict mode does not let a script set %s for the programs it runs (variables like LD_PRELOAD, GIT_*, PAGER, HOME or GOFLAGS make programs run other code)", what, name),
		fmt.Sprintf("run the command without it; if the programs need it, a human adds it to the user config: [strict] env = [%q]", name)), true
}

// strictWrapper checks a wrapper of strictWrappers: its options must be
// harmless and it must name a command (judged on its own by Classify).
func (p *Policy) strictWrapper(name string, args []string) (Verdict, bool) {
	switch name {
	case "command", "builtin", "exec":
		if name == "command" && (hasOpt(args[1:], 'v') || hasOpt(args[1:], 'V')) {
			return Verdict{}, false
		}
		if _, _, ok := unwrap(args); !ok && (len(args) == 1 || name != "exec") {
			return Verdict{}, false
		}
	case "env":
		for i := 1; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-i" || a == "-" || a == "--ignore-environment":
			case a == "-u" || a == "--unset":
				i++
			case a == "--":
			case strings.HasPrefix(a, "-"):
				return strictRefusal(idStrictFlag, "env "+a+" is not allowed in strict mode (it changes how or where the command runs)",
					"run the command directly, with VAR=value in front if it needs a variable"), true
			case isAssignWord(a):
				n, _, _ := strings.Cut(a, "=")
				if v, bad := p.strictEnvName(n, "env "+a); bad {
					return v, true
				}
			default:
				i = len(args)
			}
		}
		if _, _, ok := unwrap(args); !ok {
			return strictRefusal(idStrictUnlisted, "env without a command prints the whole environment, secrets included",
				"print the variables you need, e.g. echo \"$GOPATH\""), true
		}
	}
	inner, _, ok := unwrap(args)
	if !ok {
		return strictRefusal(idStrictFlag, fmt.Sprintf("%s: options guardsh does not understand, so the command it runs is unknown", strings.Join(displayArgs(args, 4), " ")),
			"run the command directly"), true
	}
	// nice, timeout, nohup and env are programs: what they start runs
	// outside guardsh's interpreter, so it must not be a shell (whose
	// commands would go unchecked) or another wrapper. (env NAME=VALUE
	// bash runs in the interpreter, as bash itself.)
	if external := name == "nice" || name == "timeout" || name == "nohup" || name == "env"; external && len(inner) > 0 {
		i := 0
		for i < len(inner) && isAssignWord(inner[i]) {
			i++
		}
		if i < len(inner) {
			in := path.Base(inner[i])
			if strictWrappers[in] || strictShells[in] && name != "env" {
				return strictRefusal(idStrictUnlisted, fmt.Sprintf("%s would start %s outside guardsh's interpreter, where its commands are not checked", name, in),
					"run "+in+" directly (a shell's commands are then decided one by one)"), true
			}
		}
	}
	return Verdict{}, false
}

// strictShell checks sh/bash/dash: their commands run in guardsh's own
// interpreter and are decided one by one (a -c string is also checked
// now); the shell's own options must be harmless and a script file must
// lie inside the project.
func strictShell(c *Command, name string, args []string) (Verdict, bool) {
	cmd := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			if !cmd && i+1 < len(args) {
				return strictPathArg(c, args[i+1])
			}
			return Verdict{}, false
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			if cmd {
				return Verdict{}, false // the -c string, then $0 and parameters
			}
			return strictPathArg(c, a)
		}
		switch a {
		case "--norc", "--noprofile", "--posix":
			continue
		}
		if strings.HasPrefix(a, "--") {
			return strictRefusal(idStrictFlag, name+" "+a+" is not allowed in strict mode", "allowed: "+name+" [-e -u -x -v -n -c] [-o OPTION] [SCRIPT|-c COMMANDS]"), true
		}
		for k := 1; k < len(a); k++ {
			switch a[k] {
			case 'e', 'u', 'x', 'v', 'n', 'f':
			case 'c':
				cmd = true
			case 'o':
				i++
			default:
				return strictRefusal(idStrictFlag, fmt.Sprintf("%s -%c is not allowed in strict mode", name, a[k]), "allowed: "+name+" [-e -u -x -v -n -c] [-o OPTION] [SCRIPT|-c COMMANDS]"), true
			}
		}
	}
	return Verdict{}, false
}

// strictProgram checks a program named with a slash: it must lie in one of
// the program directories, never in the project.
func (p *Policy) strictProgram(c *Command, prog string) (Verdict, bool) {
	dirs := p.StrictProgramDirs()
	if dirs == nil {
		dirs = DefaultProgramDirs
	}
	if StrictProgramAllowed(dirs, c.Dir, prog) {
		return Verdict{}, false
	}
	return strictRefusal(idStrictProgram, fmt.Sprintf("%s is not in a system program directory: strict mode runs programs only from %s, never a file from the project or one written during the session", prog, strings.Join(dirs, " ")),
		"call the program by its name (grep, not ./grep); scripts in the project run through a shell, e.g. bash ./scripts/test.sh"), true
}

// StrictProgramAllowed reports whether prog, a program named with a slash
// (relative to dir), lies directly in one of dirs, symlinked directories
// resolved.
func StrictProgramAllowed(dirs []string, dir, prog string) bool {
	abs := prog
	if !path.IsAbs(abs) {
		abs = dir + "/" + prog
	}
	abs = path.Clean(abs)
	d := ResolveLinks(path.Dir(abs))
	for _, sd := range dirs {
		if d == ResolveLinks(sd) {
			return true
		}
	}
	return false
}

// strictGitDir refuses a git command that would use a repository inside
// the project other than the project's own .git: git looks for a git
// directory from its working directory up, and a directory of the project
// holding HEAD (an embedded bare repository, shipped by the repository, or
// .git/modules/NAME) or a .git of its own is one. Its config and
// info/attributes, which the script can write, name programs that git
// runs outside guardsh's interpreter (diff textconv, core.fsmonitor,
// core.pager ...).
func strictGitDir(c *Command) (Verdict, bool) {
	proj := strictProject(c)
	dir := c.Dir
	if dir == "" {
		dir = c.Project
	}
	if proj == "" {
		return Verdict{}, false
	}
	d := resolveUnder(c, dir)
	if !within(d, proj) {
		return Verdict{}, false // strictCwd refuses it
	}
	for {
		var found string
		if _, err := os.Lstat(d + "/.git"); err == nil {
			found = d + "/.git"
		} else if _, err := os.Lstat(d + "/HEAD"); err == nil {
			found = d
		}
		if found != "" {
			if found == proj+"/.git" {
				return Verdict{}, false
			}
			return strictRefusal(idStrictArg, fmt.Sprintf("git run in %s would use the repository %s, not the project's .git: its config and attributes (which a script can write) make git run programs (diff textconv, core.fsmonitor)", dir, found),
				"run git from the project directory or a directory of the project's own work tree"), true
		}
		if d == proj || !within(d, proj) {
			return Verdict{}, false
		}
		d = path.Dir(d)
	}
}

// strictAccess refuses, in strict mode, a redirection (or source) that
// reads or writes a file in the shared temp dirs (/tmp, /var/tmp,
// /dev/shm): outside the project, like cat /tmp/x. Named pipes (process
// substitution's < <(cmd)) carry a process's output, not a stored file.
func (p *Policy) strictAccess(j *judgement, l loc, a Access, abs, what string) {
	if p.Mode == ModeStrict && a.Write && inGitDir(abs) {
		j.match(idWriteProtected, what+strictGitWriteNote)
		return
	}
	if p.Mode != ModeStrict || j.f.dec != Allow || l != locSharedTmp && l != locTempRoot ||
		a.Via == "glob" || a.Via == "cd" || a.Via == "stat" {
		return
	}
	if fi, err := os.Stat(abs); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		return
	}
	if a.Write {
		j.kind = kOther
		j.match(idWriteOutside, what+" (a shared temp dir: strict mode writes only inside the project)")
		return
	}
	j.kind = kRead
	j.match(idReadOutside, what+" (a shared temp dir: strict mode reads only inside the project)")
}

// inGitDir reports whether abs lies in a .git directory (or is one).
// Strict mode writes nothing there: .git/commondir or
// objects/info/alternates would send git to another repository (another
// project's history, or a config the script wrote), refs and packed-refs
// to objects of its choosing.
func inGitDir(abs string) bool {
	return strings.Contains(abs+"/", "/.git/")
}

const strictGitWriteNote = " (strict mode writes nothing inside .git: git writes there itself, and a file such as .git/commondir or objects/info/alternates would send git to another repository)"

// strictCwd refuses a command that would run with its working directory
// outside the project (it would read there without naming a path).
func strictCwd(c *Command) (Verdict, bool) {
	if c.Dir == "" {
		return Verdict{}, false
	}
	proj := strictProject(c)
	if proj != "" && within(resolveUnder(c, c.Dir), proj) {
		return Verdict{}, false
	}
	return strictRefusal(idStrictPath, fmt.Sprintf("the working directory %s is outside the project %s", c.Dir, c.Project),
		"cd back into the project first"), true
}

// strictPathEnv is the pathEnv of c, for the protected-file checks.
func strictPathEnv(c *Command) *pathEnv {
	return &pathEnv{dir: c.Dir, project: strictProject(c), home: cleanAbs(c.Home)}
}

// strictProject is the project root with its symlinks resolved, cached:
// the root and its ancestors lie outside what a session may change.
func strictProject(c *Command) string {
	if c.Project == "" || !path.IsAbs(c.Project) {
		return ""
	}
	if r, ok := strictRoots.Load(c.Project); ok {
		return r.(string)
	}
	r := ResolveLinks(path.Clean(c.Project))
	strictRoots.Store(c.Project, r)
	return r
}

var strictRoots sync.Map

// strictJoin is the absolute path a names for c (relative to its
// directory, ~ expanded), not resolved.
func strictJoin(c *Command, a string) string {
	switch {
	case a == "~" || strings.HasPrefix(a, "~/"):
		return c.Home + a[1:]
	case path.IsAbs(a):
		return a
	}
	dir := c.Dir
	if dir == "" {
		dir = c.Project
	}
	return dir + "/" + a
}

// strictPathArg checks that a path argument resolves inside the project,
// symlinks and .. followed.
func strictPathArg(c *Command, a string) (Verdict, bool) {
	if a == "-" || devSafe[a] {
		return Verdict{}, false
	}
	p := strictJoin(c, a)
	proj := strictProject(c)
	if proj == "" {
		return strictRefusal(idStrictPath, "no project root is known, so the path "+a+" cannot be checked", "start guardsh inside the project (or set GUARDSH_PROJECT)"), true
	}
	r := resolveUnder(c, p)
	if r != "" && within(r, proj) {
		return Verdict{}, false
	}
	how := ""
	if r == "" {
		how = " (too many symlinks)"
	} else if lex := path.Clean(p); lex != r {
		how = " (it resolves to " + r + ")"
	}
	return strictRefusal(idStrictPath, fmt.Sprintf("the path %s lies outside the project %s%s", a, c.Project, how),
		"strict mode reads and writes only inside the project; copy what you need into it, or ask the human"), true
}

// existsAt reports whether a names an existing file or symlink, relative
// to the command's directory: then it is a path whatever the entry says
// (jq . link-to-etc-passwd).
func existsAt(c *Command, a string) bool {
	if a == "" || path.IsAbs(a) {
		return false
	}
	dir := c.Dir
	if dir == "" {
		dir = c.Project
	}
	if dir == "" {
		return false
	}
	_, err := os.Lstat(dir + "/" + a)
	return err == nil
}

// looksLikePath reports whether a positional argument plainly names a path.
func looksLikePath(a string) bool {
	return strings.HasPrefix(a, "/") || a == "~" || strings.HasPrefix(a, "~/") || a == ".." ||
		strings.HasPrefix(a, "../") || strings.Contains(a, "/../") || strings.HasSuffix(a, "/..")
}

// ResolveLinks returns absolute path p with every symlink resolved and
// every . and .. applied in the order the kernel would (a link first, then
// the .. after it). Components that do not exist are taken as written.
// It returns "" after 40 links (a loop).
func ResolveLinks(p string) string {
	return resolveFrom("/", p)
}

// resolveUnder is ResolveLinks for a path of c, starting below the
// (cached, canonical) project root when p lies there as written: the root
// and its ancestors need no Lstat each time.
func resolveUnder(c *Command, p string) string {
	if c.Project != "" {
		if p == c.Project {
			if proj := strictProject(c); proj != "" {
				return proj
			}
		}
		if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(c.Project, "/")+"/"); ok {
			if proj := strictProject(c); proj != "" {
				return resolveFrom(proj, rest)
			}
		}
	}
	return ResolveLinks(p)
}

// resolveFrom resolves path p relative to cur, an absolute path without
// symlinks.
func resolveFrom(cur, p string) string {
	r, _ := walkLinks(cur, p, diskLink) // "" when it loops
	return r
}

// diskLink reads a link on the disk: a name that is not a link, or whose
// link cannot be read, is followed as it is.
func diskLink(p string) (string, bool) {
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	t, err := os.Readlink(p)
	return t, err == nil
}

// separateWords shows argv with word k split at its whitespace, each word
// quoted for the shell.
func separateWords(args []string, k int) string {
	var out []string
	for i, a := range args {
		if i == k {
			for _, f := range strings.Fields(a) {
				out = append(out, shQuote(f))
			}
			continue
		}
		out = append(out, shQuote(a))
	}
	return strings.Join(out, " ")
}

// shQuote quotes a word for the shell when it needs it.
func shQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// singleDashWords reports whether the entry names flags like -name or
// -run: its single-dash words are whole flags, not bundled letters.
func (e *StrictEntry) singleDashWords() bool {
	for _, l := range [3][]string{e.Flags, e.ValueFlags, e.PathFlags} {
		for _, f := range l {
			if len(f) > 2 && f[0] == '-' && f[1] != '-' {
				return true
			}
		}
	}
	return false
}

func (e *StrictEntry) hasFlag(f string) bool { return slices.Contains(e.Flags, f) }
func (e *StrictEntry) hasValueFlag(f string) bool {
	return slices.Contains(e.ValueFlags, f) || slices.Contains(e.PathFlags, f) || slices.Contains(e.JoinedFlags, f)
}
func (e *StrictEntry) isJoinedFlag(f string) bool { return slices.Contains(e.JoinedFlags, f) }

// joinedRefusal refuses joined flag f given with its value as the next
// word; join is how to write it with the value ("-U", "--unified=").
func (e *StrictEntry) joinedRefusal(f, join string) (Verdict, bool) {
	cmd := strings.Join(e.Words, " ")
	return strictRefusal(idStrictValue, fmt.Sprintf("%s takes the value of %s only joined to it: %s reads %s NEXT as %s without a value and NEXT as a separate argument (a path or another flag), which strict mode would not have checked", cmd, f, e.Words[0], f, f),
		"join the value: "+cmd+" "+join+joinedExample(f)+" (allowed: "+e.form()+")"), true
}

// joinedExample is an example value for joined flag f.
func joinedExample(f string) string {
	switch f {
	case "--format", "--pretty":
		return "%h"
	}
	return "5"
}
func (e *StrictEntry) isPathFlag(f string) bool { return slices.Contains(e.PathFlags, f) }

// form shows the entry's allowed form: "grep [-n -i] [-e VALUE] PATHS...".
func (e *StrictEntry) form() string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Words, " "))
	switch {
	case len(e.Flags) > 6:
		// long lists: the single letters bundled, then the rest
		var letters strings.Builder
		var words []string
		for _, f := range e.Flags {
			if len(f) == 2 && f[0] == '-' && f != "-#" && !e.singleDashWords() {
				letters.WriteByte(f[1])
				continue
			}
			words = append(words, f)
		}
		if letters.Len() > 0 {
			words = append([]string{"-" + letters.String()}, words...)
		}
		b.WriteString(" [" + strings.Join(words, " ") + "]")
	case len(e.Flags) > 0:
		b.WriteString(" [" + strings.Join(e.Flags, " ") + "]")
	}
	var vals []string
	for _, f := range e.ValueFlags {
		if !e.isPathFlag(f) {
			vals = append(vals, f)
		}
	}
	if len(vals) > 3 {
		b.WriteString(" [" + strings.Join(vals, "|") + " VALUE]")
	} else {
		for _, f := range vals {
			b.WriteString(" [" + f + " VALUE]")
		}
	}
	for _, f := range e.PathFlags {
		b.WriteString(" [" + f + " PATH]")
	}
	for _, f := range e.JoinedFlags {
		if strings.HasPrefix(f, "--") {
			b.WriteString(" [" + f + "=VALUE]")
		} else {
			b.WriteString(" [" + f + "VALUE]")
		}
	}
	arg := "ARGS"
	if e.Paths {
		arg = "PATHS"
	}
	switch e.MaxArgs {
	case 0:
	case 1:
		b.WriteString(" [" + arg[:len(arg)-1] + "]")
	default:
		b.WriteString(" " + arg + "...")
	}
	return b.String()
}

func allowedForms(es []StrictEntry) string {
	var forms []string
	for i := range es {
		if len(es) > 3 {
			forms = append(forms, strings.Join(es[i].Words, " "))
			continue
		}
		forms = append(forms, es[i].form())
	}
	return "allowed: " + strings.Join(forms, " | ")
}

// entrySnippet is the configuration a human adds to allow words with
// flag (a value flag if value).
func entrySnippet(words []string, flag string, value bool) string {
	s := fmt.Sprintf("[[strict.command]] name = %q", strings.Join(words, " "))
	switch {
	case flag == "":
	case value:
		s += fmt.Sprintf(", value_flags = [%q]", flag)
	default:
		s += fmt.Sprintf(", flags = [%q] (value_flags if it takes a value)", flag)
	}
	return s + " (one key per line)"
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// strictExports notes, in the checker, what the runner does with export
// and declare -x of a variable strict mode does not let scripts set: the
// script may set it, but the programs it runs get the variable's value
// from the session start (or none). The verdict stays allow, as at run
// time; the note (rule strict.env) says so before the script runs.
func (ck *checker) strictExports(s *syntax.Stmt, x *syntax.DeclClause) {
	if ck.p.Mode != ModeStrict {
		return
	}
	exported := x.Variant != nil && x.Variant.Value == "export"
	var names []string
	for _, a := range x.Args {
		if a.Name == nil {
			if a.Value == nil {
				continue
			}
			w := a.Value.Lit()
			switch {
			case strings.HasPrefix(w, "-") && strings.Contains(w, "x"):
				exported = true
			case strings.HasPrefix(w, "-") && strings.Contains(w, "n") || strings.HasPrefix(w, "+") && strings.Contains(w, "x"):
				return // export -n, declare +x: no longer exported
			}
			continue
		}
		// a variable the script did not set (export HOME) keeps its
		// value from the session start: nothing changes for programs
		n := a.Name.Value
		if _, set := ck.vars[n]; set && !ck.p.StrictEnvAllowed(n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if !exported || len(names) == 0 {
		return
	}
	pos := s.Pos()
	list := strings.Join(names, ", ")
	ck.record(CommandVerdict{Source: ck.text(x), Args: append([]string{x.Variant.Value}, names...), Line: pos.Line(), Col: pos.Col(), Verdict: Verdict{
		// a note, not a refusal: the assignment runs, the variable is
		// not passed on (the runner pins it)
		Decision: Allow, Rule: idStrictEnv.String(),
		Reason: fmt.Sprintf("strict mode: %s is not passed to the programs this script runs, which get its value from the session start (or none): variables like LD_PRELOAD, GIT_*, PAGER, HOME or GOFLAGS make programs run other code", list),
		Hint:   fmt.Sprintf("the shell itself sees the value; if programs need it, a human adds it to the user config: [strict] env = [%q]", names[0]),
	}})
}
