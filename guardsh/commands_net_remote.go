package guardsh

import "strings"

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
	case "wget":
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
	case "rclone":
		what = rcloneDestructive(args)
	case "s3cmd":
		what = s3cmdDestructive(args)
	case "mc":
		what = mcDestructive(args)
	}
	if what != "" {
		cx.j.other(idNetRemoteDestructive, what)
	}
}

// curlDestructive: curl -X DELETE/PUT/PATCH (or a method not known
// statically), an upload (-T: PUT), or a POST (-X POST, data without -G)
// to a destructive endpoint.
func curlDestructive(args []string) string {
	method, data, body := "", false, ""
	for _, o := range curlOpts(args[1:]) {
		switch o.name {
		case "request":
			method = o.val
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
	m := strings.ToUpper(method)
	if m == "" && data && !hasOpt(args[1:], 'G', "get") {
		m = "POST"
	}
	switch {
	case m == "" || readMethods[m]:
		return ""
	case m == "POST":
		for _, u := range urlArgs(args[1:]) {
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

// httpie's request methods (its first operand when it is one).
var httpieMethods = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// httpieDestructive: http DELETE/PUT/PATCH URL, or a POST (explicit, or
// implied by data items) to a destructive endpoint.
func httpieDestructive(name string, args []string) string {
	ops := operands(args[1:], optSpec{short: "aAopv", long: []string{"auth", "auth-type", "output", "print", "session", "session-read-only", "verify", "cert", "cert-key", "timeout", "proxy", "max-redirects", "pretty", "style", "format-options", "boundary", "ssl", "ciphers", "default-scheme", "max-headers", "response-charset", "response-mime"}})
	if len(ops) == 0 {
		return ""
	}
	method := ""
	if up := strings.ToUpper(ops[0]); httpieMethods[up] && len(ops) > 1 {
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
	ops := operands(args[1:], optSpec{long: []string{"config", "filter", "include", "exclude", "filter-from", "include-from", "exclude-from", "files-from", "transfers", "checkers", "bwlimit", "log-file", "log-level", "backup-dir", "suffix", "min-age", "max-age", "min-size", "max-size", "max-depth", "order-by", "retries", "timeout", "contimeout", "user-agent", "compare-dest", "copy-dest"}})
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
	ops := operands(args[1:], optSpec{short: "c", long: []string{"config", "access_key", "secret_key", "exclude", "include", "exclude-from", "rexclude", "region", "bucket-location", "storage-class", "mime-type", "add-header", "encoding"}})
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
	ops := operands(args[1:], optSpec{short: "C", long: []string{"config-dir", "encrypt-key", "encrypt", "older-than", "newer-than", "name", "storage-class", "attr", "tags"}})
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
