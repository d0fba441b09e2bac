package guardsh

import "strings"

// Remote reads of cloud and cluster CLIs.
//
// A cloud CLI acting on remote resources asks (net.cloud): a human approves
// changes to remote infrastructure. Its reads (list, describe, get) change
// nothing remote; where the session's proxy decides connections by
// destination they run like any other network command (net.command, a
// ByDestination rule), and without the proxy they ask as network commands.
// Reads that print secrets (secret values, keys, tokens, passwords) are not
// reads here: they stay net.cloud.

// cloudSecretSubstrings and cloudSecretWords mark an operation, resource
// or option that prints or uses secrets: anywhere in a word, or as a whole
// word.
var (
	cloudSecretSubstrings = []string{"secret", "password", "passwd", "token", "credential", "decrypt", "private", "connection-string", "keys", "apikey", "api-key", "access-key", "kms", "cert", "vault",
		"login", "access-details", "appsettings", "app-settings", "flags-file", "log-http", "impersonate"}
	cloudSecretWords = []string{"key", "login", "auth", "sas", "env"}
)

// cloudWriteWords mark an operation that changes something (gcloud and az
// put the verb among other words).
var cloudWriteWords = []string{"delete", "create", "update", "set", "add", "remove", "deploy", "ssh", "scp", "reset",
	"stop", "start", "restart", "resize", "import", "export", "rm", "cp", "mv", "sync", "patch", "apply", "run", "execute",
	"submit", "cancel", "enable", "disable", "rollback", "promote", "attach", "detach", "move", "rename", "upload",
	"download", "invoke", "purge", "send", "publish", "receive", "put", "tag", "untag", "replace", "restore", "scale",
	"exec", "cordon", "drain", "taint", "label", "annotate", "edit", "expose", "autoscale", "port-forward", "proxy", "cp"}

func hasCloudWord(ops []string, words []string) bool {
	for _, o := range ops {
		lo := strings.ToLower(o)
		for _, w := range words {
			if lo == w {
				return true
			}
		}
	}
	return false
}

// mentionsSecret: some word of args (options included) names secrets.
func mentionsSecret(args []string) bool {
	for _, a := range args {
		lo := strings.ToLower(a)
		for _, w := range cloudSecretSubstrings {
			if strings.Contains(lo, w) {
				return true
			}
		}
		if hasCloudWord([]string{strings.TrimLeft(lo, "-")}, cloudSecretWords) {
			return true
		}
	}
	return false
}

// cloudRead reports whether name with operands ops (options removed) only
// reads remote state and prints no secret. opts are the option words, any
// of which it does not know makes it false.
func cloudRead(name string, args []string) bool {
	known := map[string]bool{}
	var ops []string
	switch name {
	case "aws":
		for _, k := range []string{"region", "profile", "output", "query", "endpoint-url", "color", "cli-read-timeout", "cli-connect-timeout", "max-items", "page-size", "starting-token", "no-paginate", "no-cli-pager", "debug", "no-sign-request"} {
			known[k] = true
		}
	case "gcloud", "az":
		for _, k := range []string{"project", "format", "filter", "limit", "sort-by", "region", "zone", "location", "subscription", "resource-group", "g", "output", "o", "query", "verbosity", "quiet", "q", "page-size", "n", "name"} {
			known[k] = true
		}
	case "kubectl", "k", "oc":
		for _, k := range []string{"n", "namespace", "context", "cluster", "o", "output", "l", "selector", "field-selector", "sort-by", "A", "all-namespaces", "w", "watch", "c", "container", "since", "tail", "f", "follow", "wide", "show-labels", "L", "label-columns", "request-timeout", "v", "previous", "p", "timestamps", "limit-bytes", "all-containers", "raw"} {
			known[k] = true
		}
	case "helm":
		for _, k := range []string{"n", "namespace", "kube-context", "o", "output", "a", "all", "all-namespaces", "A", "filter", "max", "revision", "version", "values", "f"} {
			known[k] = true
		}
	default:
		return moreCloudRead(name, args)
	}
	valued := map[string]bool{"region": true, "profile": true, "output": true, "query": true, "endpoint-url": true, "color": true,
		"cli-read-timeout": true, "cli-connect-timeout": true, "max-items": true, "page-size": true, "starting-token": true,
		"project": true, "format": true, "filter": true, "limit": true, "sort-by": true, "zone": true, "location": true,
		"subscription": true, "resource-group": true, "g": true, "name": true, "o": true, "verbosity": true, "n": true, "namespace": true,
		"context": true, "cluster": true, "l": true, "selector": true, "field-selector": true, "c": true, "container": true,
		"since": true, "tail": true, "L": true, "label-columns": true, "request-timeout": true, "v": true, "limit-bytes": true,
		"raw": true, "kube-context": true, "max": true, "revision": true, "version": true, "values": true, "f": name == "helm"}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if isDynamic(a) {
			return false
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			ops = append(ops, a)
			continue
		}
		k, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !known[k] {
			// an option it does not know may take the next word: not a
			// read it can tell, unless it is an --option=value of the
			// operation itself (aws describe-* --instance-ids=...)
			if name == "aws" && len(ops) >= 2 && strings.HasPrefix(a, "--") {
				if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
				}
				continue
			}
			// gcloud and az: an option of the operation; not helm, whose
			// template/show/lint options write files (--output-dir) or run
			// programs (--post-renderer)
			if len(ops) >= 2 && (name == "gcloud" || name == "az") {
				if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
				}
				continue
			}
			return false
		}
		if valued[k] && !hasVal {
			i++
		}
	}
	secretArgs := args[1:]
	if name == "aws" && len(ops) > 0 && ops[0] == "s3api" {
		// --key is an object's name there, not a secret
		secretArgs = nil
		for k := 1; k < len(args); k++ {
			if args[k] == "--key" {
				k++
				continue
			}
			if !strings.HasPrefix(args[k], "--key=") {
				secretArgs = append(secretArgs, args[k])
			}
		}
	}
	if len(ops) == 0 || mentionsSecret(secretArgs) {
		return false
	}
	switch name {
	case "aws":
		if len(ops) < 2 {
			return false
		}
		svc, op := ops[0], ops[1]
		switch {
		case svc == "s3" && op == "ls":
			return true
		case svc == "sts" && op == "get-caller-identity":
			return true
		case svc == "s3" && op == "presign": // signs a URL locally
			return true
		case op == "help" && len(ops) == 2: // the service's documentation
			return true
		case svc == "s3" && (op == "sync" || op == "cp" || op == "mv" || op == "rm") && hasOpt(args[1:], 0, "dryrun"):
			return true
		case svc == "s3api" && (op == "get-object" || op == "get-object-torrent"), svc == "glacier" && op == "get-job-output",
			svc == "mediastore-data" && op == "get-object", strings.HasPrefix(svc, "kinesis-video") && strings.HasPrefix(op, "get-"):
			return false // write a local file (outfile)
		case strings.HasPrefix(op, "describe-") || strings.HasPrefix(op, "list-") || strings.HasPrefix(op, "get-") || op == "head-object" || op == "head-bucket":
			return true
		}
		return false
	case "gcloud", "az":
		read := false
		for _, o := range ops {
			if o == "list" || o == "describe" || o == "show" || o == "info" || o == "version" || o == "exists" || o == "help" ||
				name == "gcloud" && len(ops) > 1 && ops[0] == "storage" && (o == "ls" || o == "cat") {
				read = true
			}
		}
		return read && !hasCloudWord(ops, cloudWriteWords)
	case "kubectl", "k", "oc":
		switch ops[0] {
		case "get", "describe", "logs", "top", "version", "api-resources", "api-versions", "explain", "cluster-info", "events":
			return true // secrets: mentionsSecret above
		case "config":
			return len(ops) > 1 && (ops[1] == "get-contexts" || ops[1] == "current-context" || ops[1] == "get-clusters")
		case "auth":
			return len(ops) > 1 && ops[1] == "can-i"
		}
		return false
	case "helm":
		switch ops[0] {
		case "list", "ls", "status", "history", "search", "show", "template", "version", "lint", "env":
			return true
		}
	}
	return false
}

// moreCloudReads are the read operations of other remote CLIs (hCloud's):
// the operand words they start with, after the options of
// moreCloudValued (which take a value).
var moreCloudReads = map[string][]string{
	"stripe":   {"customers list", "products list", "prices list", "payments list", "charges list", "invoices list", "subscriptions list", "events list", "logs tail", "version"},
	"velero":   {"get", "version", "snapshot get", "backup get", "backup describe", "backup logs", "restore get", "restore describe", "restore logs", "schedule get", "schedule describe", "plugin get", "snapshot-location get", "backup-location get"},
	"glab":     {"repo list", "repo view", "mr list", "mr view", "mr diff", "issue list", "issue view", "release list", "release view", "ci list", "ci view", "ci status", "label list", "version"},
	"wrangler": {"whoami", "help", "tail", "kv:namespace list", "kv:key list", "r2 bucket list", "d1 list", "d1 info", "dns-records list", "deployments list", "versions list"},
	"gsutil":   {"ls", "stat", "du", "hash", "version", "help", "cat"},
	"azcopy":   {"list", "jobs list", "jobs show"},
	"argocd":   {"app get", "app list", "app history", "app diff", "proj list", "cluster list", "repo list", "version"},
	"restic":   {"snapshots", "check", "stats", "ls", "find", "diff", "version"}, // not cat, dump: a backed-up ~/.ssh
	"borg":     {"list", "info", "diff", "check", "version"},
}

// moreCloudFlags are the options without a value those CLIs' reads may
// have; any option neither here nor in moreCloudValued makes a command
// not a read guardsh can tell (restic --password-command, borg --rsh and
// the like run programs).
var moreCloudFlags = map[string][]string{
	"stripe":   {"live"},
	"velero":   {"details", "all-namespaces", "A", "insecure-skip-tls-verify"},
	"glab":     {"web", "w", "comments", "c", "all", "A", "mine", "closed", "merged", "opened", "draft", "json"},
	"wrangler": {"json", "preview", "remote", "local"},
	"gsutil":   {"m", "l", "L", "r", "R", "a", "e", "s", "c", "h"},
	"azcopy":   {"machine-readable", "running-tally", "mega-units"},
	"argocd":   {"grpc-web", "plaintext", "insecure", "refresh", "hard-refresh"},
	"restic":   {"no-lock", "json", "q", "quiet", "compact", "l", "long", "read-data", "human-readable", "H", "v", "verbose", "no-cache"},
	"borg":     {"json", "short", "last", "first", "consider-checkpoints", "verify-data", "repository-only", "archives-only", "v", "verbose", "info", "numeric-ids", "progress", "p"},
}

// moreCloudValued are those CLIs' options that take a value.
var moreCloudValued = map[string][]string{
	"stripe":   {"limit", "project-name", "p", "api-version"},
	"velero":   {"n", "namespace", "o", "output", "kubecontext", "selector", "l"},
	"glab":     {"R", "repo", "F", "output", "P", "per-page", "p", "page", "s", "state"},
	"gsutil":   {"o", "h", "u"},
	"argocd":   {"server", "o", "output", "grpc-web-root-path", "core", "project", "p"},
	"restic":   {"r", "repo", "password-file", "cache-dir", "host", "tag", "path", "mode", "target", "name"},
	"wrangler": {"namespace-id", "binding", "env", "zone-id", "c", "config"},
}

// moreCloudRead is cloudRead for the CLIs of moreCloudReads: the operation
// is one of its reads and nothing names a secret.
func moreCloudRead(name string, args []string) bool {
	reads, ok := moreCloudReads[name]
	if !ok || mentionsSecret(args[1:]) {
		return false
	}
	valued, flag := map[string]bool{}, map[string]bool{"help": true, "h": name != "gsutil"}
	for _, k := range moreCloudValued[name] {
		valued[k] = true
	}
	for _, k := range moreCloudFlags[name] {
		flag[k] = true
	}
	var ops []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if isDynamic(a) {
			return false
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			ops = append(ops, a)
			continue
		}
		k, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case valued[k] && !hasVal:
			i++
		case valued[k], flag[k] && !hasVal:
		default:
			return false
		}
	}
	if name == "glab" && len(ops) > 0 && ops[0] == "variable" {
		return false // CI variables: secrets
	}
	for _, r := range reads {
		w := strings.Fields(r)
		if len(ops) >= len(w) && strings.Join(ops[:len(w)], " ") == r {
			return true
		}
	}
	return false
}
