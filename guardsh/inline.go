package guardsh

import (
	"strings"
)

// Inline interpreter code (python -c, node -e, perl -e, ruby -e, awk
// programs, here-docs fed to interpreters) is scanned for calls that run
// shell commands, delete files or use the network. Literal arguments are
// judged like the equivalent shell command (os.system("rm -rf /") is
// rm -rf /); anything built at run time asks.

type codeMarker struct {
	text string
	what byte // 's' shell string, 'a' argv/exec, 'R' recursive delete, 'd' delete, 'n' network, 'w' write, 'x' obfuscated exec
}

var codeMarkers = []codeMarker{
	// shell commands
	{"os.system", 's'}, {"os.popen", 's'}, {"subprocess.run", 'a'}, {"subprocess.call", 'a'},
	{"subprocess.check_call", 'a'}, {"subprocess.check_output", 'a'}, {"subprocess.Popen", 'a'},
	{"subprocess.getoutput", 's'}, {"subprocess.getstatusoutput", 's'}, {"commands.getoutput", 's'},
	{"pty.spawn", 'a'}, {"os.execv", 'a'}, {"os.execl", 'a'}, {"os.spawn", 'a'}, {"os.posix_spawn", 'a'},
	{"execSync", 's'}, {"execFileSync", 'a'}, {"spawnSync", 'a'}, {"child_process", 'a'}, {".exec(", 's'},
	{"exec(", 'x'}, {"spawn(", 'a'}, {"execFile(", 'a'}, {"Deno.run", 'a'}, {"Deno.Command", 'a'}, {"Bun.spawn", 'a'}, {"Bun.$", 's'},
	{"system(", 's'}, {"system ", 's'}, {"exec ", 's'}, {"qx", 's'}, {"%x", 's'}, {"IO.popen", 's'},
	{"Open3", 's'}, {"Kernel.system", 's'}, {"Kernel.exec", 's'}, {"shell_exec", 's'}, {"passthru", 's'},
	{"popen(", 's'}, {"proc_open", 's'}, {"os.execute", 's'}, {"io.popen", 's'}, {"Runtime.getRuntime", 'a'},
	{"ProcessBuilder", 'a'}, {"do shell script", 's'}, {"Start-Process", 'a'}, {"Invoke-Expression", 'x'},
	{"eval(", 'x'}, {"__import__", 'x'}, {"importlib", 'x'}, {"compile(", 'x'},
	// deletes
	{"shutil.rmtree", 'R'}, {"Deno.removeSync", 'R'}, {"Deno.remove(", 'R'}, {"rmtree", 'R'}, {"rm_rf", 'R'}, {"rm_r", 'R'}, {"remove_dir", 'R'},
	{"remove_tree", 'R'}, {"rmSync", 'R'}, {"rmdirSync", 'R'}, {"fs.rm(", 'R'}, {"rimraf", 'R'},
	{"RemoveAll", 'R'}, {"deleteRecursively", 'R'}, {"Remove-Item", 'R'}, {"rmdir_p", 'R'},
	{"open(", 'r'}, {"readFileSync", 'r'}, {"File.read", 'r'}, {"IO.read", 'r'}, {"file_get_contents", 'r'}, {"readFile(", 'r'},
	{"os.remove", 'd'}, {"os.unlink", 'd'}, {"os.rmdir", 'd'}, {".unlink(", 'd'}, {"unlinkSync", 'd'},
	{"fs.unlink", 'd'}, {"File.delete", 'd'}, {"FileUtils.rm", 'd'}, {"unlink ", 'd'}, {"unlink(", 'd'},
	{"rmdir(", 'd'}, {".rmdir(", 'd'}, {"File.unlink", 'd'}, {"os.truncate", 'w'}, {"shutil.move", 'w'},
	{"os.rename", 'w'}, {"os.replace", 'w'}, {"os.chmod", 'w'}, {"os.chown", 'w'}, {"writeFileSync", 'w'},
	{"appendFileSync", 'w'}, {"write_text", 'w'}, {"write_bytes", 'w'}, {"File.write", 'w'}, {"file_put_contents", 'w'},
	// network
	{"urllib", 'n'}, {"requests.", 'n'}, {"http.client", 'n'}, {"httpx", 'n'}, {"aiohttp", 'n'}, {"socket", 'n'},
	{"ftplib", 'n'}, {"smtplib", 'n'}, {"paramiko", 'n'}, {"fetch(", 'n'}, {"http.get", 'n'}, {"https.get", 'n'},
	{"http.request", 'n'}, {"https.request", 'n'}, {"net.connect", 'n'}, {"XMLHttpRequest", 'n'}, {"axios", 'n'},
	{"Net::HTTP", 'n'}, {"open-uri", 'n'}, {"URI.open", 'n'}, {"LWP", 'n'}, {"HTTP::Tiny", 'n'}, {"IO::Socket", 'n'},
	{"curl_exec", 'n'}, {"fsockopen", 'n'}, {"WebSocket", 'n'}, {"Invoke-WebRequest", 'n'}, {"Invoke-RestMethod", 'n'},
	{"net/http", 'n'}, {"http://", 'n'}, {"https://", 'n'},
	// decoding code at run time
	{"b64decode", 'x'}, {"fromCharCode", 'x'}, {"base64", 'x'}, {"'base64'", 'x'}, {"pack(", 'x'}, {"decode(", 'x'},
}

// scanString parses a string literal at s[0] (', ", `, python prefixes)
// and returns its value and length; ok is false when s does not start
// with one.
func scanString(s string) (val string, n int, ok bool) {
	i := 0
	for i < len(s) && i < 2 && strings.IndexByte("rRbBfFuU", s[i]) >= 0 {
		i++
	}
	if i >= len(s) {
		return "", 0, false
	}
	q := s[i]
	if q != '\'' && q != '"' && q != '`' {
		return "", 0, false
	}
	raw := i > 0 && (s[0] == 'r' || s[0] == 'R')
	// triple quotes
	if strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		end := strings.Index(s[i+3:], strings.Repeat(string(q), 3))
		if end < 0 {
			return s[i+3:], len(s), true
		}
		return s[i+3 : i+3+end], i + 3 + end + 3, true
	}
	var b strings.Builder
	k := i + 1
	for k < len(s) {
		c := s[k]
		if c == q {
			return b.String(), k + 1, true
		}
		if c == '\\' && !raw && k+1 < len(s) {
			k++
			switch s[k] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'x':
				if k+2 < len(s) {
					if v, ok := hexByte(s[k+1 : k+3]); ok {
						b.WriteByte(v)
						k += 3
						continue
					}
				}
				b.WriteByte('x')
			default:
				b.WriteByte(s[k])
			}
			k++
			continue
		}
		b.WriteByte(c)
		k++
	}
	return b.String(), len(s), true
}

func hexByte(s string) (byte, bool) {
	var v byte
	for i := 0; i < 2; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + c - '0'
		case c >= 'a' && c <= 'f':
			v = v*16 + c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = v*16 + c - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

// literalArgs reads the literal arguments after a marker: a string, or a
// list of strings ([...], (...)). dynamic is set when the first argument
// is not a literal.
func literalArgs(s string) (args []string, list bool, dynamic bool) {
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '(' || s[i] == '{') {
			i++
		}
	}
	skip()
	if i < len(s) && s[i] == '[' {
		list = true
		i++
	}
	for n := 0; n < 32 && i < len(s); n++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		// glob("/etc/*"), Dir.glob(...), Path("x"): the literal inside
		for _, wrap := range [...]string{"glob(", "Dir.glob(", "Path(", "pathlib.Path(", "File.expand_path("} {
			if strings.HasPrefix(s[i:], wrap) {
				i += len(wrap)
				break
			}
		}
		v, k, ok := scanString(s[i:])
		if !ok {
			switch {
			case n == 0:
				dynamic = true
			case homeExpr(s[i:]):
				args = append(args, "~")
			default:
				// a value computed at run time
				end := strings.IndexAny(s[i:], ",)]")
				if end < 0 {
					end = len(s) - i
				}
				args = append(args, dynWord(strings.TrimSpace(s[i:i+end])))
			}
			return
		}
		args = append(args, v)
		i += k
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] == ',' {
			i++
			// node: spawn('rm', ['-rf', '/'])
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] == '[' {
				list = true
				i++
			}
			if !list {
				if _, _, ok := scanString(strings.TrimLeft(s[i:], " \t")); !ok {
					return
				}
				list = true
			}
			continue
		}
		return
	}
	return
}

// inlineCode judges interpreter code given on the command line.
func (cx *cmdCtx) inlineCode(lang, code string) {
	j := cx.j
	if lang == "awk" {
		j.atLeast(kRead)
		cx.awkCode(code)
		return
	}
	j.atLeast(kDev)
	// Code that is really a shell command line (python -c "rm -rf /")
	// fails in the interpreter, but ask rather than guess.
	if v := cx.p.scriptVerdict(code, cx.c, cx.depth+1); v.Decision == Deny && looksLikeShell(code) {
		j.other(idInlineCode, lang+" code reads like a denied shell command ["+v.Rule+"]")
	}
	if f := destructiveCall(code); f != "" {
		j.other(idInlineCode, lang+" code calls "+f)
	}
	if strings.Count(code, "fork") >= 1 && (strings.Contains(code, "while") || strings.Contains(code, "loop") || strings.Contains(code, "for(;;)") || strings.Contains(code, "for (;;)")) &&
		(strings.Count(code, "fork") >= 2 || strings.Contains(code, "os.fork()") || strings.Contains(code, "Process.fork")) {
		j.match(idForkBomb, lang+" code forks in a loop")
	}
	if strings.Contains(code, "socket") && (strings.Contains(code, "dup2") || strings.Contains(code, "pty.spawn") || strings.Contains(code, "fileno")) &&
		(strings.Contains(code, "/bin/sh") || strings.Contains(code, "/bin/bash") || strings.Contains(code, "sh -i") || strings.Contains(code, "\"sh\"") || strings.Contains(code, "'sh'")) {
		j.match(idNetReverseShell, lang+" code connects a shell to a socket")
	}
	// Backticks run shell commands in perl, ruby and php.
	if lang == "perl" || lang == "ruby" || lang == "php" {
		for rest := code; ; {
			i := strings.IndexByte(rest, '`')
			if i < 0 {
				break
			}
			end := strings.IndexByte(rest[i+1:], '`')
			if end < 0 {
				break
			}
			cx.nestScript(rest[i+1 : i+1+end])
			rest = rest[i+1+end+1:]
		}
		// qx{...}, %x(...)
		for _, pre := range [...]string{"qx", "%x"} {
			for rest := code; ; {
				i := strings.Index(rest, pre)
				if i < 0 || i+2 >= len(rest) {
					break
				}
				open := rest[i+2]
				closer := map[byte]byte{'{': '}', '(': ')', '[': ']', '/': '/', '|': '|', '!': '!', '<': '>'}[open]
				if closer == 0 {
					rest = rest[i+2:]
					continue
				}
				end := strings.IndexByte(rest[i+3:], closer)
				if end < 0 {
					break
				}
				cx.nestScript(rest[i+3 : i+3+end])
				rest = rest[i+3+end:]
			}
		}
	}
	for _, m := range codeMarkers {
		for off, n := 0, 0; off < len(code) && n < 64; n++ {
			i := strings.Index(code[off:], m.text)
			if i < 0 {
				break
			}
			at := off + i + len(m.text)
			off = at
			if m.text == "qx" || m.text == "%x" {
				continue // handled above
			}
			if m.text == "exec " && lang == "python" {
				continue
			}
			if m.text == "exec(" && (lang == "node" || lang == "deno" || lang == "bun") && off-len(m.text)-1 >= 0 && code[off-len(m.text)-1] == '.' {
				continue // .exec( handled as shell
			}
			cx.codeCall(lang, m, code[at:])
		}
	}
}

// codeCall judges one marker occurrence; rest is the code after it.
func (cx *cmdCtx) codeCall(lang string, m codeMarker, rest string) {
	j := cx.j
	if len(rest) > 400 {
		rest = rest[:400]
	}
	switch m.what {
	case 'n':
		j.eff.Network = true
		j.other(idNetwork, lang+" code uses the network ("+strings.TrimSuffix(m.text, "(")+")")
	case 'x':
		args, _, dyn := literalArgs(rest)
		if m.text == "exec(" && !dyn && len(args) > 0 && (lang == "ruby" || lang == "perl" || lang == "php") {
			cx.nestScript(args[0])
			return
		}
		if m.text == "exec(" || m.text == "eval(" || m.text == "Invoke-Expression" || m.text == "compile(" {
			if dyn {
				j.other(idInlineCode, lang+" code runs code built at run time ("+strings.TrimSuffix(m.text, "(")+")")
			}
			return
		}
		if m.text == "__import__" || m.text == "importlib" {
			j.other(idInlineCode, lang+" code imports modules dynamically")
			return
		}
		// decoders alone are fine; together with exec/eval/system they are
		// caught above.
	case 's', 'a':
		args, list, dyn := literalArgs(rest)
		if m.text == "system " || m.text == "exec " {
			if lang != "perl" && lang != "ruby" {
				return
			}
		}
		if m.text == "child_process" || m.text == "Open3" || m.text == "Runtime.getRuntime" || m.text == "ProcessBuilder" {
			j.other(idInlineCode, lang+" code starts processes ("+m.text+")")
			return
		}
		if dyn || len(args) == 0 {
			j.other(idInlineCode, lang+" code starts a process with a command built at run time ("+strings.TrimRight(m.text, "( ")+")")
			return
		}
		if list || m.what == 'a' && len(args) > 1 {
			cx.nest(args)
			return
		}
		if m.what == 'a' && !strings.ContainsAny(args[0], " ;|&") {
			cx.nest(args)
			return
		}
		cx.nestScript(args[0])
	case 'R', 'd':
		args, _, dyn := literalArgs(rest)
		if dyn && homeExpr(rest) {
			args, dyn = []string{"~"}, false
		}
		if dyn || len(args) == 0 {
			j.other(idInlineCode, lang+" code deletes files chosen at run time ("+strings.TrimRight(m.text, "( ")+")")
			return
		}
		cx.remove(args[0], m.what == 'R')
	case 'w':
		args, _, dyn := literalArgs(rest)
		if dyn || len(args) == 0 {
			j.atLeast(kDev)
			return
		}
		cx.write(args[0], false)
	case 'r':
		args, _, dyn := literalArgs(rest)
		if dyn || len(args) == 0 {
			return
		}
		mode := ""
		if len(args) > 1 {
			mode = args[1]
		} else if i := strings.Index(rest, ","); i >= 0 && i < 200 {
			if v, _, ok := scanString(strings.TrimLeft(rest[i+1:], " ")); ok {
				mode = v
			}
		}
		if strings.ContainsAny(mode, "wax+") {
			cx.write(args[0], false)
		} else {
			cx.read(args[0])
		}
	}
}

// awkCode judges an awk program: system(), pipes to and from commands,
// output redirection to files.
func (cx *cmdCtx) awkCode(code string) {
	j := cx.j
	for off := 0; off < len(code); {
		i := strings.Index(code[off:], "system")
		if i < 0 {
			break
		}
		at := off + i + len("system")
		off = at
		rest := strings.TrimLeft(code[at:], " \t")
		if !strings.HasPrefix(rest, "(") {
			continue
		}
		args, _, dyn := literalArgs(rest)
		if dyn || len(args) == 0 {
			j.other(idInlineCode, "awk system() with a command built at run time")
			continue
		}
		// system("a" "b") concatenation: only the first literal is known
		if after := strings.TrimLeft(rest[1:], " \t"); len(after) > 0 {
			_, n, _ := scanString(after)
			if tail := strings.TrimLeft(after[n:], " \t"); !strings.HasPrefix(tail, ")") {
				j.other(idInlineCode, "awk system() with a command built at run time")
			}
		}
		cx.nestScript(args[0])
	}
	// print | "cmd", "cmd" | getline
	for off := 0; off < len(code); {
		i := strings.IndexByte(code[off:], '|')
		if i < 0 {
			break
		}
		at := off + i
		off = at + 1
		if at+1 < len(code) && code[at+1] == '|' {
			off++
			continue
		}
		if at > 0 && code[at-1] == '|' {
			continue
		}
		after := strings.TrimLeft(code[at+1:], " \t&")
		if strings.HasPrefix(after, "getline") {
			// the command is the string before |
			before := strings.TrimRight(code[:at], " \t")
			if strings.HasSuffix(before, `"`) {
				k := strings.LastIndexByte(before[:len(before)-1], '"')
				if k >= 0 {
					cx.nestScript(before[k+1 : len(before)-1])
					continue
				}
			}
			j.other(idInlineCode, "awk reads from a command built at run time")
			continue
		}
		if v, _, ok := scanString(after); ok {
			if f := NormalizeArgv(strings.Fields(v)); len(f) > 0 && codeRunners[baseName(cmdName(f[0]))] && readsStdin(baseName(cmdName(f[0])), f) {
				j.other(idShellStdin, "awk prints into "+v)
				continue
			}
			cx.nestScript(v)
			continue
		}
		j.other(idInlineCode, "awk pipes into a command built at run time")
	}
	// print > "file"
	for off := 0; off < len(code); {
		i := strings.IndexByte(code[off:], '>')
		if i < 0 {
			break
		}
		at := off + i
		off = at + 1
		after := strings.TrimLeft(strings.TrimPrefix(code[at+1:], ">"), " \t")
		if v, _, ok := scanString(after); ok && v != "" && strings.Contains(code[:at], "print") {
			cx.write(v, false)
		}
	}
}

// looksLikeShell reports whether code starts like a shell command.
func looksLikeShell(code string) bool {
	f := strings.Fields(code)
	if len(f) < 2 {
		return false
	}
	_, known := handlerTable()[baseName(cmdName(f[0]))]
	return known && !strings.ContainsAny(f[0], "(.=")
}

// destructiveCall finds calls like deleteIndex(, dropDatabase(,
// clearObjects(, destroy( in code: remote APIs that delete data.
func destructiveCall(code string) string {
	lc := strings.ToLower(code)
	for _, verb := range [...]string{"delete", "destroy", "drop", "purge", "truncate", "clearobjects", "wipe", "erase"} {
		for off := 0; off < len(lc); {
			i := strings.Index(lc[off:], verb)
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(verb)
			// preceded by . or start of an identifier
			if at > 0 && lc[at-1] != '.' && lc[at-1] != ' ' && lc[at-1] != '(' && lc[at-1] != ';' {
				continue
			}
			k := off
			for k < len(lc) && (lc[k] >= 'a' && lc[k] <= 'z' || lc[k] >= '0' && lc[k] <= '9' || lc[k] == '_') {
				k++
			}
			if k < len(lc) && lc[k] == '(' {
				return code[at:k] + "()"
			}
		}
	}
	return ""
}

// homeExpr reports whether code (after a call's name) starts with an
// expression for the home directory: process.env.HOME, os.homedir(),
// os.environ["HOME"], os.path.expanduser("~"), Path.home(), ENV["HOME"],
// Dir.home, $ENV{HOME}.
func homeExpr(rest string) bool {
	r := strings.TrimLeft(rest, " \t(")
	r = strings.NewReplacer(`"`, "'", " ", "").Replace(r)
	for _, pre := range [...]string{"process.env.HOME", "process.env['HOME']", "os.homedir()", "require('os').homedir()",
		"os.environ['HOME']", "os.getenv('HOME')", "os.path.expanduser('~')", "Path.home()", "pathlib.Path.home()",
		"ENV['HOME']", "Dir.home", "$ENV{HOME}", "$ENV{'HOME'}", "getenv('HOME')", "os.environ.get('HOME')"} {
		if strings.HasPrefix(r, pre) {
			return true
		}
	}
	return false
}
