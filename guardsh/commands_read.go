package guardsh

import "strings"

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
