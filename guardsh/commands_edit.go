package guardsh

import "strings"

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
