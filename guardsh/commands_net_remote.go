package guardsh

import (
	"net/url"
	"strings"
)

// Destructive remote operations. Under the session's proxy a network
// command no longer asks for using the network (net.command is a
// ByDestination rule): the proxy decides each connection by its host,
// and sees nothing of what goes over it (TLS is not intercepted). What
// deletes or overwrites remote state therefore asks as a command
// (net.remote-destructive), whatever the destination: an HTTP DELETE,
// PUT or PATCH, a POST to an endpoint that names a destructive action,
// and the sync, move and delete operations of the remote-store clients.

// readMethods are HTTP methods that change nothing.
var readMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "TRACE": false}

// destructiveEndpoint reports whether a URL's path names a destructive
// action (Elasticsearch's _delete_by_query and _close, Jenkins'
// doDelete, Meilisearch's delete-batch, APIs' /purge, /destroy ...): a
// POST there removes remote state.
func destructiveEndpoint(u string) bool {
	l := strings.ToLower(u)
	if d, err := url.PathUnescape(l); err == nil { // /v1/%64elete is /v1/delete to the server
		l = strings.ToLower(d)
	}
	if i := strings.Index(l, "://"); i >= 0 {
		l = l[i+3:]
	}
	if i := strings.IndexByte(l, '/'); i >= 0 {
		l = l[i:]
	} else {
		return false
	}
	for _, w := range []string{"delete", "destroy", "drop", "purge", "remove", "truncate", "wipe", "_close", "_flush", "reset", "revoke", "terminate"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// urlArgs are the words of args that look like URLs or host paths
// (http://..., https://..., :9200/x, localhost:8001/x, host/x).
func urlArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if isDynamic(a) || strings.HasPrefix(a, "-") {
			continue
		}
		if strings.Contains(a, "://") || strings.HasPrefix(a, ":") || strings.Contains(a, "/") {
			out = append(out, a)
		}
	}
	return out
}

// remoteDestructive judges the network clients whose operation may delete
// or overwrite remote state (called by hNet).
func (cx *cmdCtx) remoteDestructive(name string, args []string) {
	what := ""
	switch name {
	case "curl":
		what = curlDestructive(args)
		if what == "" {
			what = cx.curlConfigFile(args)
		}
	case "wget":
		args = append(args[:1:1], wgetLongNames(args[1:])...)
		what = cx.wgetStartup(args)
		m, _ := optValue(args[1:], 0, "method")
		if isDynamic(m) || m != "" && !readMethods[strings.ToUpper(m)] {
			what = "wget --method=" + displayArg(m)
		} else if hasOpt(args[1:], 0, "post-data", "post-file", "body-data", "body-file") {
			for _, u := range urlArgs(args[1:]) {
				if destructiveEndpoint(u) {
					what = "wget POST to " + displayArg(u)
				}
			}
		}
	case "http", "https", "xh", "xhs", "httpie":
		what = httpieDestructive(name, args)
		cx.httpieReads(args)
	case "curlie": // httpie's syntax with curl's options
		what = curlDestructive(args)
		if what == "" {
			what = httpieDestructive(name, args)
		}
		cx.httpieReads(args)
	case "grpcurl":
		what = grpcDestructive(args)
	case "lftp":
		what = "lftp (runs the commands given or read: put, rm, mirror -R, !shell)"
	case "rclone":
		what = rcloneDestructive(args)
	case "s3cmd":
		what = s3cmdDestructive(args)
	case "mc":
		what = mcDestructive(args)
	}
	cx.storeLocalReads(name, args)
	if what != "" {
		cx.j.other(idNetRemoteDestructive, what)
	}
}

// curlConfigFile: curl reading its options from a file the rules do not
// read (-K FILE; .curlrc in $CURL_HOME, $XDG_CONFIG_HOME or $HOME when
// those name a place the session can write): the file may say
// request = DELETE, upload-file = ..., url = ...
func (cx *cmdCtx) curlConfigFile(args []string) string {
	for _, o := range curlOpts(args[1:]) {
		if o.name == "config" {
			return "curl -K " + displayArg(o.val) + " (the request is in a file)"
		}
	}
	if len(args) > 1 && (args[1] == "-q" || args[1] == "--disable") {
		return "" // no .curlrc
	}
	if cx.c.Env == nil {
		return ""
	}
	for _, k := range []string{"CURL_HOME", "XDG_CONFIG_HOME", "HOME"} {
		v := cx.c.Env(k)
		if v == "" {
			continue
		}
		if k == "HOME" && cleanAbs(v) == cx.pe.home {
			continue
		}
		if l := cx.pe.resolve(v).loc; isDynamic(v) || l != locHome && l != locHomeSub && l != locSystem {
			return "curl reading " + k + "=" + displayArg(v) + "/.curlrc (a config file the session can write)"
		}
	}
	return ""
}

// wget's long options the rules read, for getopt_long's prefixes.
var wgetLong = map[string]byte{
	"method": 0, "post-data": 0, "post-file": 0, "body-data": 0, "body-file": 0, "output-document": 0,
	"directory-prefix": 0, "output-file": 0, "append-output": 0, "save-cookies": 0, "warc-file": 0,
	"load-cookies": 0, "input-file": 0, "execute": 0, "config": 0,
}

// wgetLongNames writes wget's abbreviated long options in full
// (--meth=DELETE is --method=DELETE to getopt_long).
func wgetLongNames(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if !strings.HasPrefix(a, "--") || isDynamic(a) {
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		if full, ok := uniqueLong(name, wgetLong); ok && full != name {
			out[i] = "--" + full
			if hasVal {
				out[i] += "=" + val
			}
		}
	}
	return out
}

// wgetSafeStartup are the wgetrc commands (-e) that change no request's
// method, body, files or target.
var wgetSafeStartup = map[string]bool{
	"robots": true, "tries": true, "timeout": true, "wait": true, "waitretry": true, "limitrate": true,
	"quiet": true, "verbose": true, "checkcertificate": true, "maxredirect": true, "recursive": true,
	"noparent": true, "timestamping": true, "convertlinks": true, "continue": true, "inet4only": true, "inet6only": true,
}

// wgetStartup: wget reading commands the rules do not judge: -e
// method=DELETE (a wgetrc command), --config FILE, $WGETRC.
func (cx *cmdCtx) wgetStartup(args []string) string {
	for _, e := range optValues(args[1:], 'e', "execute") {
		k, _, _ := strings.Cut(e, "=")
		k = strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(k)))
		if isDynamic(e) || !wgetSafeStartup[k] {
			return "wget -e " + displayArg(e) + " (a startup command)"
		}
	}
	if v, ok := optValue(args[1:], 0, "config"); ok {
		return "wget --config=" + displayArg(v) + " (the request is in a file)"
	}
	if cx.c.Env != nil {
		if v := cx.c.Env("WGETRC"); v != "" {
			return "wget reading WGETRC=" + displayArg(v)
		}
	}
	return ""
}

// curlDestructive: curl -X DELETE/PUT/PATCH (or a method not known
// statically), an upload (-T: PUT), or a POST (-X POST, data without -G)
// to a destructive endpoint.
func curlDestructive(args []string) string {
	method, data, body, override := "", false, "", ""
	var urls []string
	for _, o := range curlOpts(args[1:]) {
		switch o.name {
		case "request":
			method = o.val
		case "url":
			urls = append(urls, o.val)
		case "header":
			// X-HTTP-Method-Override: DELETE turns a POST into a DELETE
			// on the servers that honour it
			k, v, _ := strings.Cut(o.val, ":")
			if k = strings.ToLower(strings.TrimSpace(k)); k == "x-http-method-override" || k == "x-http-method" || k == "x-method-override" {
				if ov := strings.ToUpper(strings.TrimSpace(v)); ov != "" && !readMethods[ov] && ov != "POST" {
					override = ov
				}
			}
		case "upload-file":
			if method == "" {
				method = "PUT"
			}
		case "data", "data-binary", "data-ascii", "data-raw", "data-urlencode", "json", "form", "form-string":
			data = true
			body += " " + o.val
		}
	}
	if isDynamic(method) {
		return "curl -X " + displayArg(method) + " (a method known only when it runs)"
	}
	if override != "" {
		return "curl with X-HTTP-Method-Override: " + displayArg(override)
	}
	m := strings.ToUpper(method)
	if m == "" && data && !hasOpt(args[1:], 'G', "get") {
		m = "POST"
	}
	switch {
	case m == "" || readMethods[m]:
		return ""
	case m == "POST":
		for _, u := range append(urlArgs(args[1:]), urls...) {
			if destructiveEndpoint(u) {
				return "curl POST to " + displayArg(u)
			}
		}
		if destructiveEndpoint("/" + body) { // a GraphQL mutation deleteEntity ...
			return "curl POST of a request that names a destructive action"
		}
		return ""
	}
	return "curl " + m + " " + strings.Join(displayArgs(urlArgs(args[1:]), 2), " ")
}

var specHttpie = optSpec{short: "aAopv", long: []string{"auth", "auth-type", "output", "print", "session", "session-read-only", "verify", "cert", "cert-key", "timeout", "proxy", "max-redirects", "pretty", "style", "format-options", "boundary", "ssl", "ciphers", "default-scheme", "max-headers", "response-charset", "response-mime"}}

// httpieReads: httpie's request items that read a file and send it
// (field@file a form upload, field=@file and field:=@file a value from a
// file, @file a body): each such file is read.
func (cx *cmdCtx) httpieReads(args []string) {
	for _, item := range operands(args[1:], specHttpie) {
		if isDynamic(item) {
			continue
		}
		if _, f, ok := strings.Cut(item, "@"); ok && f != "" && !strings.Contains(item, "://") {
			f, _, _ = strings.Cut(f, ";") // f@file;type=image/png
			cx.read(f)
		}
	}
}

// grpcDestructive: grpcurl calling a method whose name says it deletes
// (svc.Store/DeleteAll): the last operand is the method.
func grpcDestructive(args []string) string {
	ops := operands(args[1:], optSpec{short: "dH", long: []string{"d", "H", "rpc-header", "reflect-header", "import-path", "proto", "protoset", "cacert", "cert", "key", "authority", "servername", "connect-timeout", "max-time", "format", "user-agent", "max-msg-sz"}})
	if len(ops) < 2 {
		return ""
	}
	m := ops[len(ops)-1]
	if isDynamic(m) || destructiveEndpoint("grpc://h/"+m) {
		return "grpcurl " + displayArg(m)
	}
	return ""
}

// httpie's request methods (its first operand when it is one).
var httpieMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// alphabetic: httpie takes a first operand of letters alone as the
// method, whatever it is (http PURGE url sends PURGE).
func alphabetic(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// httpieItem: a request item (a=b, a:=1, f@file) rather than a URL; httpie
// then reads its first operand as the URL.
func httpieItem(s string) bool {
	return strings.ContainsAny(s, "=@") && !strings.Contains(s, "/")
}

// httpieDestructive: http DELETE/PUT/PATCH URL, or a POST (explicit, or
// implied by data items) to a destructive endpoint.
func httpieDestructive(name string, args []string) string {
	ops := operands(args[1:], specHttpie)
	if len(ops) == 0 {
		return ""
	}
	method := ""
	if up := strings.ToUpper(ops[0]); len(ops) > 1 && (httpieMethods[up] || alphabetic(up) && !httpieItem(ops[1])) {
		method, ops = up, ops[1:]
	} else if isDynamic(ops[0]) && len(ops) > 1 {
		return name + " " + displayArg(ops[0]) + " (a method known only when it runs)"
	}
	url := ops[0]
	if method == "" {
		for _, item := range ops[1:] {
			i := strings.IndexAny(item, ":=@")
			if i < 0 {
				continue
			}
			rest := item[i:]
			if strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") || rest[0] == '@' {
				method = "POST" // a data field or a file: httpie POSTs
			}
		}
	}
	switch {
	case method == "" || readMethods[method]:
		return ""
	case method == "POST":
		if destructiveEndpoint(url) {
			return name + " POST " + displayArg(url)
		}
		return ""
	}
	return name + " " + method + " " + displayArg(url)
}

var (
	specRclone = optSpec{long: []string{"config", "filter", "include", "exclude", "filter-from", "include-from", "exclude-from", "files-from", "transfers", "checkers", "bwlimit", "log-file", "log-level", "backup-dir", "suffix", "min-age", "max-age", "min-size", "max-size", "max-depth", "order-by", "retries", "timeout", "contimeout", "user-agent", "compare-dest", "copy-dest"}}
	specS3cmd  = optSpec{short: "c", long: []string{"config", "access_key", "secret_key", "exclude", "include", "exclude-from", "rexclude", "region", "bucket-location", "storage-class", "mime-type", "add-header", "encoding"}}
	specMc     = optSpec{short: "C", long: []string{"config-dir", "encrypt-key", "encrypt", "older-than", "newer-than", "name", "storage-class", "attr", "tags"}}
)

// storeLocalReads: the remote-store clients read the local paths among
// their operands and send them (rclone copy ~/.ssh remote:b, s3cmd put,
// mc cp): each local operand is read, so that a credential's upload asks
// as its read does with curl -T.
func (cx *cmdCtx) storeLocalReads(name string, args []string) {
	var ops []string
	remote := func(string) bool { return false }
	switch name {
	case "rclone":
		ops, remote = operands(args[1:], specRclone), rcloneRemote
	case "s3cmd":
		ops = operands(args[1:], specS3cmd)
		remote = func(s string) bool { return strings.Contains(s, "://") }
	case "mc":
		ops = operands(args[1:], specMc) // an alias/bucket path reads as a project path here
	default:
		return
	}
	if len(ops) < 2 {
		return
	}
	for _, o := range ops[1:] {
		if !isDynamic(o) && !remote(o) {
			cx.read(o)
		}
	}
}

// rcloneRemote: an rclone path on a remote (NAME:path, :backend:path).
func rcloneRemote(s string) bool {
	if isDynamic(s) {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i >= 0 && !strings.Contains(s[:i], "/")
}

// rcloneDestructive: the rclone operations that delete or move remote
// files (sync deletes what the source lacks), not --dry-run ones.
func rcloneDestructive(args []string) string {
	ops := operands(args[1:], specRclone)
	if len(ops) == 0 || hasOpt(args[1:], 'n', "dry-run") {
		return ""
	}
	sub, rest := ops[0], ops[1:]
	anyRemote := false
	for _, o := range rest {
		anyRemote = anyRemote || rcloneRemote(o)
	}
	switch sub {
	case "delete", "deletefile", "purge", "rmdir", "rmdirs", "cleanup", "dedupe", "settier":
		return "rclone " + sub + " " + strings.Join(displayArgs(rest, 2), " ")
	case "sync", "bisync", "move", "moveto":
		if anyRemote {
			return "rclone " + sub + " " + strings.Join(displayArgs(rest, 2), " ")
		}
	case "copy", "copyto":
		if hasOpt(args[1:], 0, "delete-before", "delete-during", "delete-after", "delete-excluded") && anyRemote {
			return "rclone " + sub + " with deletes"
		}
	}
	if isDynamic(sub) {
		return "rclone " + displayArg(sub)
	}
	return ""
}

// s3cmdDestructive: s3cmd's removing, moving and policy-changing
// operations, and sync with --delete-removed.
func s3cmdDestructive(args []string) string {
	ops := operands(args[1:], specS3cmd)
	if len(ops) == 0 || hasOpt(args[1:], 'n', "dry-run") {
		return ""
	}
	switch ops[0] {
	case "del", "rm", "rb", "mv", "delpolicy", "dellifecycle", "delcors", "expire", "setacl", "setpolicy":
		return "s3cmd " + strings.Join(displayArgs(ops, 3), " ")
	case "sync":
		if hasOpt(args[1:], 0, "delete-removed", "delete-after") {
			return "s3cmd sync --delete-removed"
		}
	}
	return ""
}

// mcDestructive: MinIO's client removing buckets and objects, mirroring
// with --remove, moving, and admin operations that remove or disable.
func mcDestructive(args []string) string {
	ops := operands(args[1:], specMc)
	if len(ops) == 0 {
		return ""
	}
	switch ops[0] {
	case "rm", "rb", "mv", "undo", "retention":
		return "mc " + strings.Join(displayArgs(ops, 3), " ")
	case "mirror":
		if hasOpt(args[1:], 0, "remove", "overwrite") {
			return "mc mirror --remove"
		}
	case "admin", "ilm", "event", "replicate", "anonymous", "tag", "version", "encrypt", "quota", "legalhold":
		for _, o := range ops[1:] {
			switch o {
			case "remove", "rm", "delete", "disable", "unset", "reset", "clear", "suspend", "decommission":
				return "mc " + strings.Join(displayArgs(ops, 4), " ")
			}
		}
	}
	return ""
}

// javaRemoteCLI: a Java program given a server URL (jenkins-cli.jar -s
// URL COMMAND) whose command deletes, disables or shuts down something
// there.
func javaRemoteCLI(args []string) string {
	for _, a := range args[1:] {
		for _, p := range []string{"delete-", "remove-", "disable-", "uninstall-", "clear-", "wipe-"} {
			if strings.HasPrefix(a, p) {
				return "java " + displayArg(a) + " on a remote server"
			}
		}
		switch a {
		case "shutdown", "safe-shutdown", "restart", "safe-restart", "disconnect-node", "offline-node":
			return "java " + a + " on a remote server"
		}
	}
	return ""
}
