package guardsh

import (
	"slices"
	"strings"
)

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

// hDebugger judges the commands gdb and lldb run from their command line
// (-ex, -o): shell escapes nest, python/script code is inline code.
func hDebugger(cx *cmdCtx, name string, args []string) {
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
}
