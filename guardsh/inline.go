package guardsh

import (
	"path/filepath"
	"regexp"
	"slices"
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
	{"eval(", 'x'}, {"__import__", 'x'}, {"importlib", 'x'}, {"compile(", 'x'}, {"getattr(", 'x'},
	{"__dict__", 'x'}, {"eval ", 'x'}, {".send(", 'x'}, {"__send__", 'x'}, {"public_send", 'x'}, {"method(:", 'x'},
	{"readpipe", 's'}, {"create_subprocess_shell", 's'}, {"create_subprocess_exec", 'a'},
	// lisps (scheme (system "..."), sbcl run-program), erlang/elixir
	{"(system ", 's'}, {"run-program", 'a'}, {"System.cmd", 'a'}, {"os:cmd", 's'}, {":os.cmd", 's'}, {"open_port", 'a'},
	{"Port.open", 'a'}, {"System.shell", 's'}, {"Runtime.exec", 'a'}, {".execute()", 'a'},
	// emacs lisp (emacs --eval)
	{"shell-command", 's'}, {"async-shell-command", 's'}, {"call-process", 'a'}, {"start-process", 'a'}, {"make-process", 'a'},
	{"process-file", 'a'}, {"delete-directory", 'R'}, {"delete-file", 'd'}, {"url-retrieve", 'n'},
	// deletes
	{"shutil.rmtree", 'R'}, {"Deno.removeSync", 'R'}, {"Deno.remove(", 'R'}, {"rmtree", 'R'}, {"rm_rf", 'R'}, {"rm_r", 'R'}, {"remove_dir", 'R'},
	{"remove_tree", 'R'}, {"rmSync", 'R'}, {"rmdirSync", 'R'}, {"fs.rm(", 'R'}, {"rimraf", 'R'},
	{"RemoveAll", 'R'}, {"deleteRecursively", 'R'}, {"Remove-Item", 'R'}, {"rmdir_p", 'R'},
	{"open(", 'r'}, {"read_text(", 'r'}, {"read_bytes(", 'r'}, {"readFileSync", 'r'}, {"File.read", 'r'}, {"IO.read", 'r'}, {"file_get_contents", 'r'}, {"readFile(", 'r'},
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

// lookupByName are ways to reach a function, a program or native code by a
// name or value the scanner cannot follow; each asks (code.inline).
var lookupByName = []struct {
	lang, what string
	re         func() *regexp.Regexp
}{
	{"python", "looks up a function by name (vars(), __getattribute__)", lazyRE(`\bvars\s*\(|__getattribute__|\bglobals\s*\(\s*\)\s*\[|\blocals\s*\(\s*\)\s*\[`)},
	{"node", "builds code at run time (Function)", lazyRE(`\bFunction\s*\(`)},
	{"perl", "runs a program through system/exec { PROGRAM } LIST", lazyRE(`\b(system|exec)\s*\{`)},
	{"perl", "makes a system call (syscall)", lazyRE(`\bsyscall\b`)},
	{"ruby", "makes a system call (syscall)", lazyRE(`\bsyscall\b`)},
	{"php", "calls a function whose name is a variable", lazyRE(`\$[A-Za-z_][A-Za-z0-9_]*\s*\(`)},
	{"php", "replaces the process with a program (pcntl_exec)", lazyRE(`\bpcntl_exec\b`)},
	{"lua", "looks up a library function by a computed name", lazyRE(`\b(os|io|package|debug)\s*\[`)},
	{"awk", "loads a native extension (@load)", lazyRE(`@load\b`)},
}

// inputInterpreters are interpreters that run the program they read on
// standard input when given none.
var inputInterpreters = map[string]bool{"python": true, "python3": true, "python2": true, "perl": true, "ruby": true,
	"node": true, "php": true, "lua": true, "tclsh": true, "sqlite3": true, "awk": true, "gawk": true}

// stringLiterals returns the values of the string literals in code (the
// first 64), as scanString reads them.
func stringLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 64; {
		switch code[i] {
		case '\'', '"', '`':
			if v, n, ok := scanString(code[i:]); ok && n > 0 {
				out = append(out, v)
				i += n
				continue
			}
		}
		i++
	}
	return out
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
		if n == 0 && computedString(s[i:], k) {
			// 'rm -rf ' + home, f"rm {x}", `rm ${x}`, "a" % b, "a".format(b):
			// built at run time
			dynamic = true
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

// computedString reports whether the string literal of length n at the
// start of s is only part of a value computed at run time: an f-string or
// template with a substitution, or followed by concatenation (+, ., ..),
// formatting (%, .format, .replace, .join) or indexing.
func computedString(s string, n int) bool {
	lit := s[:n]
	if p := strings.IndexAny(lit, "'\"`"); p > 0 && strings.ContainsAny(lit[:p], "fF") && strings.Contains(lit, "{") {
		return true
	}
	if strings.HasPrefix(lit, "`") && strings.Contains(lit, "${") || strings.HasPrefix(lit, "\"") && strings.Contains(lit, "#{") {
		return true
	}
	after := strings.TrimLeft(s[n:], " \t")
	for _, op := range [...]string{"+", "..", "%", ".format", ".replace", ".join", "[", "*"} {
		if strings.HasPrefix(after, op) {
			return true
		}
	}
	// perl/php concatenation ("a" . $b, "a".getenv()), or a method that
	// changes the literal ("a".upper())
	if strings.HasPrefix(after, ".") {
		return true
	}
	// adjacent literals with a value between them are caught by the
	// callers; two literals side by side ("a" "b") are one string
	return false
}

// pythonAliases rewrites Python imports that hide a call's module
// (import subprocess as sp; from subprocess import run; from os import
// system as s) so the markers see subprocess.run, os.system.
func pythonAliases(code string) string {
	mods := [...]string{"subprocess", "os", "shutil", "pty", "pathlib", "socket", "urllib.request"}
	var pairs []string
	for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' }) {
		f := strings.Fields(strings.ReplaceAll(stmt, ",", " , "))
		if len(f) >= 4 && f[0] == "import" {
			for k := 1; k+2 < len(f); k++ {
				if f[k+1] == "as" && slices.Contains(mods[:], f[k]) {
					pairs = append(pairs, f[k+2]+".", f[k]+".")
				}
			}
		}
		if len(f) >= 4 && f[0] == "from" && f[2] == "import" && slices.Contains(mods[:], f[1]) {
			for k := 3; k < len(f); k++ {
				name := strings.Trim(f[k], "()")
				if name == "," || name == "" || name == "as" {
					continue
				}
				alias := name
				if k+2 < len(f) && f[k+1] == "as" {
					alias = strings.Trim(f[k+2], "()")
					k += 2
				}
				if name == "*" {
					for _, fn := range [...]string{"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput", "system", "popen", "rmtree", "remove", "unlink", "spawn"} {
						pairs = append(pairs, fn+"(", f[1]+"."+fn+"(")
					}
					continue
				}
				pairs = append(pairs, alias+"(", f[1]+"."+name+"(")
			}
		}
	}
	if len(pairs) == 0 {
		return code
	}
	// replace whole words only: a name preceded by a letter, digit, _ or
	// . is another name
	out := code
	for p := 0; p+1 < len(pairs); p += 2 {
		from, to := pairs[p], pairs[p+1]
		var b strings.Builder
		for rest := out; ; {
			i := strings.Index(rest, from)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			if i > 0 && (isWordByte(rest[i-1]) || rest[i-1] == '.') {
				b.WriteString(rest[:i+len(from)])
			} else {
				b.WriteString(rest[:i] + to)
			}
			rest = rest[i+len(from):]
		}
		out = b.String()
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// credentialFragments are names of credential files and directories; code
// that names one and reads a path it computes asks like reading it.
var credentialFragments = [...]string{".ssh", ".aws", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".netrc", ".git-credentials",
	".gnupg", ".kube", ".docker/config", ".pgpass", "credentials", ".npmrc", ".pypirc", "gcloud", ".password-store", "keyring"}

// homeRef reports whether code refers to the home directory anywhere.
func homeRef(code string) bool {
	for _, h := range [...]string{"HOME", "expanduser", "homedir", "Path.home", "Dir.home", "~/", "'~'", "\"~\"", "getpwuid", "USERPROFILE"} {
		if strings.Contains(code, h) {
			return true
		}
	}
	return false
}

// inlineCode judges interpreter code given on the command line.
func (cx *cmdCtx) inlineCode(lang, code string) {
	j := cx.j
	if lang == "python" {
		code = pythonAliases(code)
	}
	defer func(prev string) { cx.code = prev }(cx.code)
	cx.code = code
	lits := stringLiterals(code)
	for _, v := range lits {
		// a literal path to a credential, whatever function it is given
		// to (shutil.copy, perl's open F, "<", PATH, awk's getline < PATH)
		if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") {
			if t := cx.pe.resolve(v); t.abs != "" && cx.pe.credential(t.abs) {
				cx.read(v)
			}
		}
	}
	for _, e := range lookupByName {
		if e.lang == lang && e.re().MatchString(code) {
			j.other(idInlineCode, lang+" code "+e.what)
		}
	}
	if lang == "perl" {
		// open(F, "|-", CMD), open(F, "-|", CMD), open(F, "CMD |"),
		// open(F, "| CMD"): a pipe to or from a shell command
		for k, v := range lits {
			t := strings.TrimSpace(v)
			switch {
			case t == "|-" || t == "-|":
				if k+1 < len(lits) {
					cx.nestScript(lits[k+1])
				} else {
					j.other(idInlineCode, "perl code opens a pipe to a command built at run time")
				}
			case len(t) > 1 && (strings.HasSuffix(t, "|") || strings.HasPrefix(t, "|")):
				cx.nestScript(strings.Trim(t, "| "))
			}
		}
	}
	if lang == "awk" {
		j.atLeast(kRead)
		cx.awkCode(code)
		return
	}
	if lang == "tcl" {
		cx.tclCode(code)
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
	if lang == "perl" || lang == "ruby" || lang == "php" || lang == "julia" {
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
	if strings.HasPrefix(m.text, "os.exec") || strings.HasPrefix(m.text, "os.spawn") {
		// os.execv + p(, os.spawnl + p(: the rest of the name
		rest = strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyz")
	}
	if m.text == "call-process" || m.text == "start-process" || m.text == "make-process" || m.text == "process-file" ||
		m.text == "run-program" || m.text == "open_port" || m.text == "Port.open" || m.text == ".execute()" || m.text == "Runtime.exec" {
		cx.j.other(idInlineCode, lang+" code starts processes ("+m.text+")")
		return
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
			} else if len(args) > 0 && cx.depth < maxDepth {
				// the code it runs is code of the same language
				sub := &cmdCtx{p: cx.p, c: cx.c, pe: cx.pe, depth: cx.depth + 1, j: j, fromInput: cx.fromInput, stdin: cx.stdin, code: cx.code}
				sub.inlineCode(lang, args[0])
			}
			return
		}
		if m.text == "getattr(" {
			// getattr(os, 'system'), getattr(m, name): a function looked
			// up by name is the call it names, or unknown
			attr := ""
			if c := strings.IndexByte(rest, ','); c >= 0 && c < 200 {
				arg := strings.TrimLeft(rest[c+1:], " \t")
				if v, k, ok := scanString(arg); ok && !computedString(arg, k) {
					attr = v
				} else {
					j.other(idInlineCode, lang+" code looks up a function by a name computed at run time (getattr)")
					return
				}
			}
			switch attr {
			case "system", "popen", "run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput",
				"execv", "execve", "execvp", "execvpe", "execl", "execlp", "spawnv", "spawnl", "posix_spawn", "remove", "unlink",
				"rmtree", "rmdir", "removedirs", "kill", "fork", "eval", "exec", "__import__":
				j.other(idInlineCode, lang+" code calls "+attr+" through getattr")
			}
			return
		}
		if m.text == "__dict__" && lang == "python" {
			j.other(idInlineCode, lang+" code looks up a function by name (__dict__)")
			return
		}
		if (m.text == ".send(" || m.text == "__send__" || m.text == "public_send" || m.text == "method(:") && lang == "ruby" {
			j.other(idInlineCode, lang+" code calls a method by name ("+strings.TrimRight(m.text, "(:")+")")
			return
		}
		if m.text == "eval " && (lang == "perl" || lang == "ruby" || lang == "php") {
			// eval STRING runs code of the same language
			if strings.HasPrefix(strings.TrimLeft(rest, " \t"), "{") {
				return // perl's eval BLOCK
			}
			if dyn || len(args) == 0 {
				j.other(idInlineCode, lang+" code runs code built at run time (eval)")
			} else if cx.depth < maxDepth {
				sub := &cmdCtx{p: cx.p, c: cx.c, pe: cx.pe, depth: cx.depth + 1, j: j, fromInput: cx.fromInput, stdin: cx.stdin, code: cx.code}
				sub.inlineCode(lang, args[0])
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
		if m.text == "Deno.Command" && !list && len(args) == 1 {
			// new Deno.Command(program, {args: [...]})
			if i := strings.Index(rest, "args"); i >= 0 {
				more, mlist, mdyn := literalArgs(strings.TrimLeft(rest[i+len("args"):], " :\t"))
				if mdyn || !mlist {
					j.other(idInlineCode, lang+" code starts a process with arguments built at run time (Deno.Command)")
					return
				}
				args = append(args, more...)
			}
			cx.nest(args)
			return
		}
		if (strings.HasPrefix(m.text, "os.exec") || m.text == "os.posix_spawn" || m.text == "os.spawn") && list && len(args) > 1 {
			// os.execvp(path, [argv0, ...]): the program is path, its
			// arguments follow argv0
			cx.nest(append([]string{args[0]}, args[2:]...))
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
			// a path computed at run time: under the home directory, or
			// with a credential file's name in the code, it may be one
			if homeExpr(rest) || homeRef(cx.code) || cx.namesCredential(cx.code) {
				j.matchOver(idReadCredentials, lang+" code reads a file whose path it computes ("+strings.TrimRight(m.text, "( ")+"), and it names the home directory or a credential file")
			}
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

// namesCredential reports whether code names a credential file or
// directory (credentialFragments) or holds a literal path the policy
// treats as one.
func (cx *cmdCtx) namesCredential(code string) bool {
	for _, f := range credentialFragments {
		if strings.Contains(code, f) {
			return true
		}
	}
	return false
}

// stdinText is what the checker knows standard input holds; ok is false
// when it is not known (another command's output, a file, the runner).
func (cx *cmdCtx) stdinText() (string, bool) {
	if cx.stdin != nil && cx.stdin.kind == srcStatic {
		return cx.stdin.text, true
	}
	return "", false
}

// sqliteText judges sqlite3 input (SQL arguments, -cmd values, standard
// input): the shell's dot-commands run programs (.shell, .system, a
// "|cmd" target of .once/.output/.read/.import), load native code (.load),
// read files (.read, .import, readfile()) and write them (.output, .once,
// .backup, .save, writefile()).
func (cx *cmdCtx) sqliteText(text string) {
	j := cx.j
	if isDynamic(text) {
		if strings.Contains(text, ".") {
			j.other(idInlineCode, "sqlite3 input built at run time may hold dot-commands")
		}
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, ".") {
			cx.sqliteSQL(line)
			continue
		}
		f := strings.Fields(line)
		cmd, rest := strings.ToLower(f[0]), strings.TrimSpace(line[len(f[0]):])
		arg := ""
		for _, w := range f[1:] {
			if !strings.HasPrefix(w, "-") {
				arg = strings.Trim(w, `"'`)
				break
			}
		}
		if p, ok := strings.CutPrefix(strings.Trim(rest, `"'`), "|"); ok && cmd != ".shell" && cmd != ".system" {
			// the query output goes to (or the input comes from) a command
			p = strings.TrimSpace(p)
			f := NormalizeArgv(strings.Fields(p))
			if cmd != ".read" && cmd != ".import" && len(f) > 0 && codeRunners[baseName(cmdName(f[0]))] && readsStdin(baseName(cmdName(f[0])), f) {
				j.other(idShellStdin, "sqlite3 "+cmd+" pipes query output into "+p)
			} else if cmd == ".read" && len(f) > 0 {
				// .read |cmd runs cmd and reads its output as SQL and dot-commands
				j.other(idInlineCode, "sqlite3 .read runs "+p+" and runs its output as sqlite3 input")
			}
			cx.nestScript(p)
			continue
		}
		switch {
		case cmd == ".shell" || cmd == ".system" || cmd == ".sh":
			cx.nestScript(rest) // judged like the command it runs
		case cmd == ".load":
			j.other(idInlineCode, "sqlite3 .load loads native code: "+displayArg(rest))
		case (cmd == ".read" || cmd == ".import" || cmd == ".restore") && arg != "":
			if cmd == ".restore" && len(f) > 2 {
				arg = strings.Trim(f[len(f)-1], `"'`)
			}
			cx.read(arg)
		case (cmd == ".output" || cmd == ".once" || cmd == ".log" || cmd == ".backup" || cmd == ".save" || cmd == ".clone" || cmd == ".open") && arg != "":
			if (cmd == ".backup" || cmd == ".save") && len(f) > 2 {
				arg = strings.Trim(f[len(f)-1], `"'`)
			}
			if arg != "stdout" && arg != "stderr" && arg != "off" && arg != ":memory:" {
				cx.write(arg, false)
			}
		case cmd == ".excel" || cmd == ".www" || cmd == ".edit" || cmd == ".eqp" && strings.Contains(rest, "trace"):
			j.other(idInlineCode, "sqlite3 "+cmd+" starts a program")
		}
	}
}

// sqliteSQL judges the file functions of the sqlite3 shell in SQL:
// readfile('path'), writefile('path', ...), edit() (starts an editor).
func (cx *cmdCtx) sqliteSQL(sql string) {
	l := strings.ToLower(sql)
	for _, fn := range [...]string{"readfile(", "writefile(", "edit("} {
		for off := 0; off < len(l); {
			i := strings.Index(l[off:], fn)
			if i < 0 {
				break
			}
			at := off + i + len(fn)
			off = at
			if fn == "edit(" {
				cx.j.other(idInlineCode, "sqlite3 edit() starts an editor")
				continue
			}
			args, _, dyn := literalArgs(sql[at:])
			switch {
			case dyn || len(args) == 0:
				cx.j.other(idInlineCode, "sqlite3 "+strings.TrimSuffix(fn, "(")+"() of a path chosen at run time")
			case fn == "readfile(":
				cx.read(args[0])
			default:
				cx.write(args[0], false)
			}
		}
	}
}

// edScript judges the commands ed/ex read from standard input: !cmd and
// w/r/e !cmd run shell commands. Input not known before it runs asks.
func (cx *cmdCtx) edScript(name string) {
	text, ok := cx.stdinText()
	if !ok {
		cx.j.other(idInlineCode, name+" runs the commands it reads on standard input (! runs shell commands), and they are not known before it runs")
		return
	}
	// the text typed into the buffer (a, i, c up to a line "."), which
	// w !CMD hands to CMD on its standard input
	var typed []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if in {
			if l == "." {
				in = false
			} else {
				typed = append(typed, line)
			}
			continue
		}
		if c := strings.TrimLeft(l, "0123456789,.$;+- "); c == "a" || c == "i" || c == "c" {
			in = true
			continue
		}
		if k := strings.IndexByte(l, '!'); k >= 0 {
			pre := strings.TrimRight(strings.TrimSpace(l[:k]), "0123456789,.$;+- ")
			pre = strings.TrimLeft(pre, "0123456789,.$;+- ")
			if f := strings.Fields(l[k+1:]); (pre == "w" || pre == "W") && len(f) > 0 && (shellNames[filepath.Base(f[0])] || inputInterpreters[filepath.Base(f[0])]) {
				// the buffer is the program of the shell or interpreter
				if len(typed) > 0 && shellNames[filepath.Base(f[0])] {
					cx.nestScript(strings.Join(typed, "\n"))
				} else {
					cx.j.other(idInlineCode, name+" hands its buffer to "+f[0]+" as a program")
				}
			}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		// an address or a w/r/e/W command may come before the !
		k := strings.IndexByte(l, '!')
		if k < 0 {
			continue
		}
		pre := strings.TrimSpace(l[:k])
		pre = strings.TrimRight(pre, "0123456789,.$;+- ")
		if pre == "" || pre == "w" || pre == "r" || pre == "e" || pre == "W" || pre == "E" || pre == "W " {
			cx.nestScript(l[k+1:]) // judged like the command it runs
		}
	}
}

// makefileText judges makefile text make reads from standard input
// (-f -) or --eval: its recipes are shell commands.
func (cx *cmdCtx) makefileText(text string) {
	for _, line := range strings.Split(text, "\n") {
		var recipe string
		switch {
		case strings.HasPrefix(line, "\t"):
			recipe = line[1:]
		case strings.Contains(line, ":") && strings.Contains(line, ";"):
			// target: prerequisites; recipe
			recipe = line[strings.IndexByte(line, ';')+1:]
		default:
			if strings.Contains(line, "$(shell") {
				cx.j.other(idInlineCode, "make $(shell ...) in makefile text")
			}
			continue
		}
		recipe = strings.TrimLeft(strings.TrimSpace(recipe), "@-+")
		if recipe == "" {
			continue
		}
		if strings.Contains(recipe, "$(") || strings.Contains(recipe, "${") {
			cx.j.other(idInlineCode, "make recipe built from variables: "+displayArg(recipe))
		}
		cx.nestScript(recipe)
	}
}

// tclCode judges Tcl code (tclsh, wish, expect -c): exec and open "|cmd"
// run programs, file delete removes files.
func (cx *cmdCtx) tclCode(code string) {
	j := cx.j
	j.atLeast(kDev)
	for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' || r == '[' || r == ']' || r == '{' || r == '}' }) {
		f := strings.Fields(stmt)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "exec" || f[0] == "spawn" || f[0] == "system":
			words := f[1:]
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
			cmd := strings.Join(words, " ")
			if strings.ContainsAny(cmd, "$[") {
				j.other(idInlineCode, "tcl "+f[0]+" of a command built at run time")
				continue
			}
			cx.nestScript(strings.Trim(cmd, `"`))
		case f[0] == "open" && len(f) > 1 && strings.HasPrefix(strings.Trim(f[1], `"{`), "|"):
			cx.nestScript(strings.TrimPrefix(strings.Trim(strings.Join(f[1:], " "), `"{}`), "|"))
		case f[0] == "file" && len(f) > 2 && f[1] == "delete":
			for _, p := range f[2:] {
				if p != "-force" && p != "--" {
					cx.remove(p, true)
				}
			}
		case f[0] == "socket" || f[0] == "http::geturl":
			j.eff.Network = true
			j.other(idNetwork, "tcl code uses the network ("+f[0]+")")
		case f[0] == "eval" || f[0] == "uplevel" || f[0] == "subst":
			if strings.ContainsAny(stmt, "$[") {
				j.other(idInlineCode, "tcl "+f[0]+" of code built at run time")
			}
		}
	}
}

// codeReadsArgs reports whether inline code reads files named by its
// command-line arguments (sys.argv, process.argv, fileinput, ARGF).
func (cx *cmdCtx) codeReadsArgs(code string) bool {
	for _, r := range [...]string{"argv", "fileinput", "ARGF", "ARGV", "readFileSync", "open(", "read_text", "readFile"} {
		if strings.Contains(code, r) {
			return true
		}
	}
	return false
}
