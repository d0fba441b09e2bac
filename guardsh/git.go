package guardsh

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/gitsafe"
)

// gitExecKey reports whether setting git config key k (lower case) to v
// makes git run a program.
func gitExecKey(k, v string) bool {
	switch k {
	case "core.pager", "core.editor", "sequence.editor", "pager.log", "pager.diff", "pager.show", "pager.status", "pager.branch":
		switch strings.TrimSpace(v) {
		case "", "cat", "less", "more", "true", ":", "less -r", "less -R", "less -FRX":
			return false
		}
		return true
	case "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.askpass", "core.gitproxy", "diff.external",
		"credential.helper", "gpg.program", "uploadpack.packobjectshook", "include.path", "init.templatedir",
		"interactive.difffilter", "web.browser", "core.worktree", "safe.directory", "core.attributesfile",
		"sendemail.smtpserver", "ssh.variant", "http.proxy", "core.sshCommand":
		return true
	}
	for _, pre := range [...]string{"alias.", "filter.", "pager.", "includeif.", "protocol.", "remote.", "url."} {
		if strings.HasPrefix(k, pre) {
			return pre != "url." || strings.Contains(v, "ext::")
		}
	}
	for _, suf := range [...]string{".textconv", ".command", ".driver", ".cmd", ".program", ".helper", ".receivepack", ".uploadpack", ".proxy"} {
		if strings.HasSuffix(k, suf) {
			return true
		}
	}
	// and whatever git that guardsh runs outside the sandbox refuses
	return gitsafe.RunsProgram(k, v)
}

// hGit judges git: global options, then the subcommand.
// gitUnproxiedURL reports whether a git remote URL goes over ssh
// (ssh://, scp-like [user@]host:path) or git://: neither uses the session's
// HTTP proxy.
func gitUnproxiedURL(u string) bool {
	if isDynamic(u) {
		return false
	}
	l := strings.ToLower(u)
	for _, p := range []string{"ssh://", "git+ssh://", "ssh+git://", "git://"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	if strings.Contains(u, "://") {
		return false
	}
	i := strings.IndexByte(u, ':')
	return i > 1 && !strings.Contains(u[:i], "/") // host:path; c:/x and ./a:b are paths
}

func hGit(cx *cmdCtx, args []string) {
	j := cx.j
	cfg := gitEnvConfig(cx)
	aliases := map[string]string{}
	for k, v := range cfg {
		if a, ok := strings.CutPrefix(k, "alias."); ok && !strings.HasPrefix(v, "!") {
			aliases[a] = v
		}
	}
	i := 1
	for i < len(args) {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || isDynamic(a) {
			break
		}
		i++
		switch {
		case a == "-c" || (strings.HasPrefix(a, "-c") && len(a) > 2):
			kv := a[2:]
			if a == "-c" {
				if i >= len(args) {
					break
				}
				kv = args[i]
				i++
			}
			k, v, _ := strings.Cut(kv, "=")
			lk := strings.ToLower(k)
			if cfg == nil {
				cfg = map[string]string{}
			}
			cfg[lk] = v
			if strings.HasPrefix(lk, "alias.") && !strings.HasPrefix(v, "!") {
				aliases[lk[len("alias."):]] = v
			}
			if isDynamic(kv) || gitExecKey(strings.ToLower(k), v) {
				j.other(idGitConfigExec, "-c "+displayArg(kv))
				cx.gitConfigValue(v)
			}
		case a == "-C":
			i++
		case strings.HasPrefix(a, "--config-env"):
			j.other(idGitConfigExec, a)
			if !strings.Contains(a, "=") {
				i++
			}
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && specGitTop.longTakes(a[2:]):
			i++
		case a == "--help" || a == "--version" || a == "-h":
			j.atLeast(kRead)
			return
		}
	}
	gitConfigEffects(j, cfg)
	if i >= len(args) {
		j.atLeast(kRead)
		return
	}
	if isDynamic(args[i]) {
		j.other(idDynamicCommand, "git "+displayArg(args[i]))
		return
	}
	sub := strings.ToLower(args[i])
	rest := args[i+1:]
	// git -c alias.nuke=reset nuke --hard is git reset --hard
	if v, ok := aliases[sub]; ok && cx.depth < maxDepth {
		if f := strings.Fields(v); len(f) > 0 {
			sub = strings.ToLower(f[0])
			rest = append(append([]string(nil), f[1:]...), rest...)
		}
	}
	lrest := make([]string, len(rest))
	for k, a := range rest {
		if strings.HasPrefix(a, "--") {
			lrest[k] = strings.ToLower(a)
		} else {
			lrest[k] = a
		}
	}
	gitSub(cx, sub, rest, lrest, cfg)
}

// gitConfigEffects judges config a git command line or environment sets
// for this one command by what it makes git do: expiring reflogs or
// pruning at once (any command may start an automatic gc) is what
// git reflog expire and git gc --prune=now are.
func gitConfigEffects(j *judgement, cfg map[string]string) {
	for k, v := range cfg {
		if !strings.HasPrefix(k, "gc.") || !gitExpiresNow(v) {
			continue
		}
		switch {
		case k == "gc.pruneexpire" || k == "gc.worktreepruneexpire":
			j.match(idGitGcPrune, "-c "+k+"="+v+" (what git gc --prune=now does)")
		case strings.HasSuffix(k, ".reflogexpire") || strings.HasSuffix(k, ".reflogexpireunreachable"):
			// gc.reflogExpire and gc.<pattern>.reflogExpire
			j.match(idGitReflogExpire, "-c "+k+"="+v+" (what git reflog expire --expire=now does)")
		}
	}
}

// gitExpiresNow reports whether an expiry date for git (gc.pruneExpire,
// --prune=, --expire=) reaches objects or entries made moments ago: now,
// all, 0, seconds, minutes or hours.
func gitExpiresNow(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case v == "now" || v == "all" || strings.HasPrefix(v, "0"):
		return true
	case v == "never" || v == "false" || v == "":
		return false
	}
	for _, u := range [...]string{"sec", "min", "hour"} {
		if strings.Contains(v, u) {
			return true
		}
	}
	return false
}

// gitFalse reports whether a git boolean config value is false.
func gitFalse(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// gitOpts splits git subcommand words into option words, positional words
// (before "--") and paths after "--".
func gitOpts(rest []string, takesArg func(string) bool) (opts, pos, paths []string, dashdash bool) {
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			return opts, pos, rest[k+1:], true
		}
		if len(a) > 1 && a[0] == '-' && !isDynamic(a) {
			opts = append(opts, a)
			if takesArg != nil && takesArg(a) && k+1 < len(rest) {
				k++
				opts = append(opts, rest[k])
			}
			continue
		}
		pos = append(pos, a)
	}
	return opts, pos, nil, false
}

// shortHas reports whether a short option cluster in opts contains c.
func shortHas(opts []string, c byte) bool { return shortHasA(opts, c, "") }

// shortHasA is shortHas for commands whose options in argLetters take a
// value, which may be attached (-bfeature is -b feature, not -f).
func shortHasA(opts []string, c byte, argLetters string) bool {
	for _, o := range opts {
		if o == "--" {
			return false
		}
		if len(o) < 2 || o[0] != '-' || o[1] == '-' || isDynamic(o) {
			continue
		}
		for k := 1; k < len(o); k++ {
			if o[k] == c {
				return true
			}
			if strings.IndexByte(argLetters, o[k]) >= 0 {
				break
			}
		}
	}
	return false
}

// beforeDashDash returns the words before "--".
func beforeDashDash(words []string) []string {
	for i, w := range words {
		if w == "--" {
			return words[:i]
		}
	}
	return words
}

// longHas reports whether opts has an abbreviation (>= min chars) of full.
func longHas(opts []string, full string, min int) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") && longIs(strings.ToLower(o), full, min) {
			return true
		}
	}
	return false
}

// gitSub judges git subcommand sub with its words rest (lrest: long
// options in lower case); cfg holds the config the command line and the
// environment set (lower-case keys). What every subcommand shares (the
// programs git's environment names, --help) is judged here, the rest by
// the subcommand's handler in gitTable (git_subcommands.go).
func gitSub(cx *cmdCtx, sub string, rest, lrest []string, cfg map[string]string) {
	j := cx.j
	pre := beforeDashDash(lrest)
	info := longHas(pre, "--help", 4) || longHas(pre, "--version", 5)
	for _, a := range pre {
		if a == "-h" {
			info = true
		}
	}
	if cx.c.Env != nil {
		for _, k := range [...]string{"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR"} {
			if v := cx.c.Env(k); v != "" {
				if k == "GIT_EXEC_PATH" && cx.pe.resolve(v).loc == locSystem {
					// what git itself exports to its hooks and helpers
					// (/usr/lib/git-core): git's own programs
					continue
				}
				j.other(idGitConfigExec, k+"="+v)
				cx.nestDenyOnly(v)
			}
		}
		// pagers and editors git starts: the user's usual ones are fine,
		// a command line that would be denied is not
		for _, k := range [...]string{"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR"} {
			if v := cx.c.Env(k); v != "" {
				cx.nestDenyOnly(v)
			}
		}
	}
	if info && sub != "restore" {
		j.atLeast(kRead)
		return
	}
	h := gitTable()[sub]
	if h == nil {
		h = gitUnknown
	}
	h(cx, gitArgs{sub: sub, rest: rest, lrest: lrest, cfg: cfg})
}

func gitPush(cx *cmdCtx, rest, lrest []string) {
	j := cx.j
	j.eff.Network = true
	opts, pos, after, _ := gitOpts(rest, func(a string) bool {
		switch a {
		case "--repo", "--receive-pack", "--exec", "-o", "--push-option", "--signed":
			return true
		}
		return false
	})
	pos = append(pos, after...)
	force := shortHas(opts, 'f') || longHas(lrest, "--mirror", 4)
	for _, lo := range lrest {
		if !strings.HasPrefix(lo, "--") {
			continue
		}
		name, _, _ := strings.Cut(lo, "=")
		if len(name) >= 4 && strings.HasPrefix("--force", name) {
			force = true
		}
		if name == "--force" {
			force = true
		}
	}
	if longHas(lrest, "--receive-pack", 4) || longHas(lrest, "--exec", 4) {
		j.other(idGitConfigExec, "git push --receive-pack")
	}
	del := shortHas(opts, 'd') || longHas(lrest, "--delete", 4) || longHas(lrest, "--prune", 4)
	for k, p := range pos {
		if k == 0 {
			continue // remote
		}
		if strings.HasPrefix(p, "+") {
			force = true
		}
		if strings.HasPrefix(p, ":") {
			del = true
		}
	}
	switch {
	case force:
		j.match(idGitPushForce, strings.Join(displayArgs(append([]string{"git", "push"}, rest...), 6), " "))
	case del:
		j.other(idGitPushDelete, strings.Join(displayArgs(pos, 3), " "))
	default:
		j.other(idGitPush, strings.Join(displayArgs(pos, 3), " "))
	}
}

// gitUpdateRef judges git update-ref by what it does to the ref: deleting
// refs/stash is git stash clear, deleting a branch (or HEAD) is git branch
// -D, deleting a tag asks, and moving a ref (or --stdin, any change) is
// what git branch --force does.
func gitUpdateRef(cx *cmdCtx, rest, lrest []string) {
	j := cx.j
	opts, pos, _, _ := gitOpts(rest, func(a string) bool { return a == "-m" })
	del := shortHas(opts, 'd') || longHas(lrest, "--delete", 4)
	ref := ""
	if len(pos) > 0 {
		ref = pos[0]
	}
	switch {
	case longHas(lrest, "--stdin", 4):
		j.other(idGitBranchForce, "git update-ref --stdin changes any ref")
	case del && (ref == "refs/stash" || ref == "stash"):
		j.match(idGitStashDrop, "git update-ref -d refs/stash (what git stash clear does)")
	case del && strings.HasPrefix(ref, "refs/tags/"):
		j.other(idGitRefDelete, "git update-ref -d "+ref)
	case del:
		j.match(idGitBranchForceDelete, "git update-ref -d "+displayArg(ref)+" (what git branch -D does)")
	case len(pos) >= 2:
		j.other(idGitBranchForce, "git update-ref "+strings.Join(displayArgs(pos, 3), " "))
	}
}

// gitDataDelete names the rule deleting the file abs (inside the project)
// is equivalent to when it is part of the repository's history in
// project's .git: reflogs (git reflog expire), refs (git branch -D, git
// stash clear) and objects (git gc --prune=now); "" otherwise.
func gitDataDelete(project, abs string) (id ruleID, detail string) {
	rel, ok := strings.CutPrefix(abs, project+"/.git/")
	if !ok || project == "" {
		return idNone, ""
	}
	switch {
	case rel == "logs" || strings.HasPrefix(rel, "logs/"):
		return idGitReflogExpire, "deleting " + abs + " (what git reflog expire does)"
	case rel == "refs/stash":
		return idGitStashDrop, "deleting " + abs + " (what git stash clear does)"
	case rel == "refs" || strings.HasPrefix(rel, "refs/") || rel == "packed-refs" || rel == "HEAD":
		return idGitBranchForceDelete, "deleting " + abs + " (what git branch -D does)"
	case rel == "objects" || strings.HasPrefix(rel, "objects/"):
		return idGitGcPrune, "deleting " + abs + " (what git gc --prune=now does)"
	}
	return idNone, ""
}

// gitDataID is gitDataDelete's rule alone.
func gitDataID(project, abs string) ruleID {
	id, _ := gitDataDelete(project, abs)
	return id
}

func gitCheckout(cx *cmdCtx, rest, lrest []string) {
	j := cx.j
	var opts, pos, paths []string
	dashdash := false
	newBranch := false
	for k := 0; k < len(rest); k++ {
		a, lo := rest[k], lrest[k]
		if a == "--" {
			paths, dashdash = rest[k+1:], true
			break
		}
		if len(a) > 1 && a[0] == '-' && !isDynamic(a) {
			opts = append(opts, a)
			switch {
			case lo == "--orphan":
				newBranch = true
				k++ // the new branch's name
			case a[1] != '-' && strings.ContainsAny(a, "bB"):
				newBranch = true
				if i := strings.IndexAny(a, "bB"); i == len(a)-1 {
					k++ // the new branch's name
				}
			case strings.HasPrefix(lo, "--orphan="):
				newBranch = true
			case lo == "--track" || a == "-t":
				if k+1 < len(rest) && (rest[k+1] == "direct" || rest[k+1] == "inherit") {
					k++
				}
			case lo == "--recurse-submodules":
				if k+1 < len(rest) {
					switch rest[k+1] {
					case "checkout", "on-demand", "yes", "no", "true", "false":
						k++
					}
				}
			case lo == "--conflict" || lo == "--pathspec-from-file" || lo == "--unified" || lo == "--inter-hunk-context" || a == "-U":
				k++
			}
			continue
		}
		pos = append(pos, a)
	}
	switch {
	case shortHasA(opts, 'f', "bBU") || longHas(opts, "--force", 4):
		j.match(idGitCheckoutDiscard, "git checkout --force")
	case dashdash && len(paths) > 0:
		j.match(idGitCheckoutDiscard, strings.Join(displayArgs(paths, 3), " "))
	case longHas(lrest, "--pathspec-from-file", 6):
		j.match(idGitCheckoutDiscard, "--pathspec-from-file")
	case !newBranch && len(pos) >= 2:
		j.match(idGitCheckoutDiscard, strings.Join(displayArgs(pos[1:], 3), " "))
	case !newBranch && len(pos) == 1 && (pathLike(pos[0]) || cx.existingFile(pos[0])):
		// a bare name that is a file here (Makefile) is a path to git
		// when no branch has that name
		j.match(idGitCheckoutDiscard, pos[0])
	case longHas(lrest, "--ours", 5) || longHas(lrest, "--theirs", 5):
		j.match(idGitCheckoutDiscard, "--ours/--theirs")
	case shortHasA(opts, 'B', "b"):
		j.other(idGitBranchForce, "git checkout -B resets an existing branch (what git branch -f does)")
	default:
		j.atLeast(kEdit)
	}
}

// existingFile reports whether word names an existing file or directory
// relative to the command's directory (not a dynamic word, not an option).
func (cx *cmdCtx) existingFile(word string) bool {
	if word == "" || isDynamic(word) || strings.HasPrefix(word, "-") || cx.pe.dir == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(cx.pe.dir, word))
	return err == nil
}

func gitConfig(cx *cmdCtx, rest, lrest []string) {
	j := cx.j
	var pos []string
	write := false
	for k, a := range rest {
		lo := lrest[k]
		switch {
		case lo == "--get" || lo == "--get-all" || lo == "--get-regexp" || lo == "--list" || a == "-l" || lo == "--get-urlmatch" || lo == "--get-color" || lo == "--get-colorbool" || lo == "--show-origin" || lo == "--show-scope" || lo == "--name-only" || lo == "-z":
		case lo == "--add" || lo == "--unset" || lo == "--unset-all" || lo == "--replace-all" || lo == "--rename-section" || lo == "--remove-section" || a == "-e" || lo == "--edit":
			write = true
		case lo == "--file" || a == "-f" || lo == "--blob" || lo == "--type" || lo == "--default":
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		switch pos[0] {
		case "set", "unset", "rename-section", "remove-section", "edit":
			write = true
			pos = pos[1:]
		case "get", "list":
			pos = pos[1:]
		}
	}
	if len(pos) >= 2 {
		write = true
	}
	if !write {
		j.atLeast(kRead)
		return
	}
	if len(pos) > 0 {
		v := ""
		if len(pos) > 1 {
			v = pos[1]
		}
		if gitExecKey(strings.ToLower(displayArg(pos[0])), v) {
			j.other(idGitConfigExec, "git config "+displayArg(pos[0]))
			cx.gitConfigValue(v)
			return
		}
	}
	j.other(idGitConfigWrite, "git config "+strings.Join(displayArgs(pos, 2), " "))
}

// gitRestore: restoring paths in the working tree discards changes.
func gitRestore(cx *cmdCtx, rest []string) {
	j := cx.j
	staged, worktree, stagedSet, worktreeSet, patch, fromFile := false, false, false, false, false, false
	var paths []string
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			paths = append(paths, rest[k+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || isDynamic(a) {
			paths = append(paths, a)
			continue
		}
		lo := strings.ToLower(a)
		if strings.HasPrefix(lo, "--") {
			name, _, hasVal := strings.Cut(lo, "=")
			switch {
			case longIs(name, "--staged", 4):
				staged, stagedSet = true, true
			case name == "--no-staged":
				staged, stagedSet = false, true
			case longIs(name, "--worktree", 3):
				worktree, worktreeSet = true, true
			case name == "--no-worktree":
				worktree, worktreeSet = false, true
			case longIs(name, "--patch", 4):
				patch = true
			case name == "--no-patch":
				patch = false
			case longIs(name, "--pathspec-from-file", 6):
				fromFile = true
				if !hasVal {
					k++
				}
			case longIs(name, "--help", 4) || name == "--version":
				patch, paths, fromFile = false, nil, false
				j.atLeast(kRead)
				return
			case longIs(name, "--source", 4) || name == "--conflict" || name == "--unified" || name == "--inter-hunk-context":
				if !hasVal {
					k++
				}
			}
			continue
		}
		if a == "-h" {
			j.atLeast(kRead)
			return
		}
		for x := 1; x < len(a); x++ {
			c := a[x]
			switch c {
			case 'S':
				staged, stagedSet = true, true
			case 'W':
				worktree, worktreeSet = true, true
			case 'p':
				patch = true
			case 's', 'U':
				if x == len(a)-1 {
					k++
				}
				x = len(a)
			}
		}
	}
	if !worktreeSet && !stagedSet {
		worktree = true
	}
	if !worktreeSet && stagedSet {
		worktree = false
	}
	_ = staged
	switch {
	case worktree && (len(paths) > 0 || fromFile):
		j.match(idGitRestoreWorktree, strings.Join(displayArgs(paths, 3), " "))
	case worktree && patch:
		j.other(idGitRestorePatch, "git restore -p")
	default:
		j.atLeast(kEdit)
	}
}

// gitConfigValue checks the command a git config value would run
// (core.pager, core.fsmonitor, alias.x=!cmd ...).
func (cx *cmdCtx) gitConfigValue(v string) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "!")
	if v != "" && !isDynamic(v) {
		cx.nestScript(v)
	}
}

// gitEnvConfig reads the config set through the environment
// (GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS), keys in lower
// case; nil when there is none.
func gitEnvConfig(cx *cmdCtx) map[string]string {
	if cx.c.Env == nil {
		return nil
	}
	var out map[string]string
	add := func(k, v string) {
		k = strings.ToLower(strings.TrimSpace(k))
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	if n := cx.c.Env("GIT_CONFIG_COUNT"); n != "" {
		for i := 0; i < 16; i++ {
			if k := cx.c.Env("GIT_CONFIG_KEY_" + itoa(i)); k != "" {
				add(k, cx.c.Env("GIT_CONFIG_VALUE_"+itoa(i)))
			}
		}
	}
	if p := cx.c.Env("GIT_CONFIG_PARAMETERS"); p != "" {
		for _, part := range strings.Fields(p) {
			part = strings.Trim(part, "'\"")
			if k, v, ok := strings.Cut(part, "="); ok {
				add(k, v)
			}
		}
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}
