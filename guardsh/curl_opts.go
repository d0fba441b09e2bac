package guardsh

import "strings"

// curl's options that take a value, by short letter (curl --help all).
var curlShortValued = map[byte]string{
	'A': "user-agent", 'b': "cookie", 'c': "cookie-jar", 'C': "continue-at", 'd': "data", 'D': "dump-header",
	'e': "referer", 'E': "cert", 'F': "form", 'H': "header", 'K': "config", 'm': "max-time", 'o': "output",
	'P': "ftp-port", 'Q': "quote", 'r': "range", 't': "telnet-option", 'T': "upload-file", 'u': "user",
	'U': "proxy-user", 'w': "write-out", 'x': "proxy", 'X': "request", 'y': "speed-time", 'Y': "speed-limit",
	'z': "time-cond",
}

// curlLongFiles are curl's long options whose value names a file curl
// reads (r) and sends, or writes (w).
var curlLongFiles = map[string]byte{
	"data": 'r', "data-binary": 'r', "data-ascii": 'r', "data-raw": 0, "data-urlencode": 'r', "json": 'r',
	"url-query": 'r', "variable": 'r', "form": 'r', "form-string": 0, "header": 'r', "proxy-header": 'r',
	"upload-file": 'r', "config": 'r', "cookie": 'r', "netrc-file": 'r',
	"output": 'w', "dump-header": 'w', "trace": 'w', "trace-ascii": 'w', "cookie-jar": 'w', "stderr": 'w',
	"output-dir": 'w', "libcurl": 'w', "etag-save": 'w', "hsts": 'w', "alt-svc": 'w',
	"request": 0, // the method (commands_net_remote.go)
	"url":     0, // a URL given as an option (commands_net_remote.go)
}

// uniqueLong resolves a long option name as a getopt_long-style parser
// does (curl 7.88, wget): the name itself, or the one name of names it is
// a prefix of (curl --upl is --upload-file). A prefix that is unique here
// but not among all the client's options makes the client refuse the
// command line: reading it as the option here only asks more.
func uniqueLong(name string, names map[string]byte) (string, bool) {
	if _, ok := names[name]; ok {
		return name, true
	}
	if name == "" {
		return "", false
	}
	found := ""
	for n := range names {
		if strings.HasPrefix(n, name) {
			if found != "" {
				return "", false
			}
			found = n
		}
	}
	return found, found != ""
}

type curlOpt struct{ name, val string }

// curlOpts lists the options of curl's arguments that take a value, with
// their long names: every occurrence, short letters bundled (-sSd@f),
// attached (-d@f) or not, --name=value.
func curlOpts(args []string) []curlOpt {
	var out []curlOpt
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return out
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			name, ok := uniqueLong(name, curlLongFiles)
			if !ok {
				continue
			}
			if !hasVal {
				if i+1 >= len(args) {
					continue
				}
				i++
				val = args[i]
			}
			out = append(out, curlOpt{name, val})
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				name, ok := curlShortValued[a[k]]
				if !ok {
					continue
				}
				val := a[k+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				out = append(out, curlOpt{name, val})
				break
			}
		}
	}
	return out
}

// curlOpt judges one of curl's valued options: the files it reads and
// sends (@file, <file, a config or upload file) and the files it writes.
func (cx *cmdCtx) curlOpt(name, val string) {
	switch curlLongFiles[name] {
	case 'w':
		if val != "-" && val != "%" {
			cx.write(val, false)
		}
	case 'r':
		switch name {
		case "upload-file", "config", "netrc-file":
			if val != "-" && val != "." {
				cx.read(val)
			}
			return
		case "cookie":
			if !strings.Contains(val, "=") {
				cx.read(val)
			}
			return
		}
		f := ""
		if _, rest, ok := strings.Cut(val, "@"); ok {
			f = rest
		} else if name == "form" || name == "url-query" {
			if _, rest, ok := strings.Cut(val, "<"); ok {
				f = rest
			}
		}
		f, _, _ = strings.Cut(f, ";")
		if f != "" && f != "-" {
			cx.read(f)
		}
	}
}
