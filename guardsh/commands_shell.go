package guardsh

import (
	"strconv"
	"strings"
)

// hDeclare: export/declare/readonly ... may set GUARDSH_* variables.
func hDeclare(cx *cmdCtx, name string, args []string) {
	cx.j.kind = kPure
	for _, a := range args[1:] {
		cx.guardshEnv(a)
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
