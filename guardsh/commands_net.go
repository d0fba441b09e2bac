package guardsh

import (
	"net/url"
	"strings"
)

// opensslLocal are openssl subcommands that use no network (s_client,
// s_server, ocsp and the like do).
var opensslLocal = map[string]bool{
	"version": true, "help": true, "dgst": true, "x509": true, "req": true, "rand": true, "genrsa": true,
	"genpkey": true, "rsa": true, "pkey": true, "ec": true, "ecparam": true, "enc": true, "base64": true,
	"verify": true, "crl": true, "pkcs12": true, "pkcs7": true, "asn1parse": true, "list": true,
	"sha256": true, "sha1": true, "md5": true, "speed": true, "errstr": true, "passwd": true, "prime": true,
}

// unproxiedClients are the network clients of hNet that do not use an
// HTTP proxy from the environment: under the session's proxy their
// connections reach nothing, so they still ask (net.unproxied) rather than
// pass as commands whose connections the proxy decides.
var unproxiedClients = map[string]bool{
	"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true, "ftp": true, "tftp": true,
	"ping": true, "ping6": true, "traceroute": true, "tracepath": true, "mtr": true, "dig": true, "nslookup": true,
	"host": true, "whois": true, "nmap": true, "smbclient": true, "nsupdate": true, "openssl": true, "wscat": true,
	"ngrok": true, "cloudflared": true, "tailscale": true, "wg": true, "openvpn": true,
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
	cx.remoteDestructive(name, args) // commands_net_remote.go
	if unproxiedClients[name] {
		cx.j.other(idNetUnproxied, name)
	}
	if name != "curl" {
		for _, a := range args[1:] {
			if p, ok := fileURLPath(a); ok { // aria2c, lynx, curlie file:///p
				cx.read(p)
			} else if (name == "lynx" || name == "w3m" || name == "links") && !strings.HasPrefix(a, "-") && !strings.Contains(a, "://") && strings.Contains(a, "/") {
				cx.read(a) // a text browser opens a local file
			}
		}
	}
	switch name {
	case "curl":
		urls := urlArgs(args[1:])
		for _, o := range curlOpts(args[1:]) {
			cx.curlOpt(o.name, o.val)
			if o.name == "url" {
				urls = append(urls, o.val)
			}
		}
		for _, u := range urls { // file:///home/u/.ssh/id_rsa: a local read
			if p, ok := fileURLPath(u); ok {
				for _, f := range curlBraces(p) {
					cx.read(f)
				}
			}
		}
		if hasOpt(args[1:], 'O', "remote-name", "remote-name-all") {
			if d, ok := optValue(args[1:], 0, "output-dir"); ok {
				cx.write(d, false)
			} else {
				cx.write(".", false)
			}
		}
	case "wget":
		args = append(args[:1:1], wgetLongNames(args[1:])...) // --post-f is --post-file
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
	case "git-lfs":
		if ops := operands(args[1:], optSpec{}); len(ops) > 0 && ops[0] == "push" {
			cx.j.other(idGitPush, "git-lfs push (uploads objects to the remote)")
		}
	case "yt-dlp", "youtube-dl":
		// commands it runs through a shell after a download
		cx.optionCommands(args, 0, "exec", "exec-before-download", "netrc-cmd")
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

// fileURLPath is the local path a file: URL names (file:///p,
// file://localhost/p, any case, percent-decoded, without query or
// fragment).
func fileURLPath(u string) (string, bool) {
	if len(u) < 7 || !strings.EqualFold(u[:7], "file://") || isDynamic(u) {
		return "", false
	}
	rest := u[7:]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	if h := rest[:i]; h != "" && !strings.EqualFold(h, "localhost") && h != "127.0.0.1" {
		return "", false // curl refuses another host's file
	}
	p, _, _ := strings.Cut(rest[i:], "?")
	p, _, _ = strings.Cut(p, "#")
	if d, err := url.PathUnescape(p); err == nil {
		p = d
	}
	return p, true
}

// curlBraces expands curl's URL globbing sets ({a,b}), at most 64 paths.
func curlBraces(p string) []string {
	i := strings.IndexByte(p, '{')
	if i < 0 {
		return []string{p}
	}
	j := strings.IndexByte(p[i+1:], '}')
	if j < 0 {
		return []string{p}
	}
	j += i + 1
	var out []string
	for _, alt := range strings.Split(p[i+1:j], ",") {
		for _, rest := range curlBraces(p[j+1:]) {
			if len(out) < 64 {
				out = append(out, p[:i]+alt+rest)
			}
		}
	}
	return out
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
