package guardsh

import (
	"strings"
	"sync"
)

// gitArgs are one git subcommand's words as its handler gets them.
type gitArgs struct {
	sub  string   // the subcommand, in lower case, aliases expanded
	rest []string // its words
	// lrest is rest with long options in lower case
	lrest []string
	// cfg is the config the command line and the environment set
	// (lower-case keys)
	cfg map[string]string
}

// gitHandler judges one git subcommand (its findings go to cx.j).
type gitHandler func(cx *cmdCtx, g gitArgs)

// The git subcommand table (gitTable), built on first use like
// handlerTable: handlers reach the classifier again (git bisect run,
// git submodule foreach), which reaches the table.
var (
	gitSubcommands map[string]gitHandler
	gitSubOnce     sync.Once
)

// gitTable returns the git subcommand table: subcommand -> handler. A
// subcommand it does not list is unknown (gitUnknown: an alias or a git-*
// program).
func gitTable() map[string]gitHandler {
	gitSubOnce.Do(func() {
		t := map[string]gitHandler{}
		add := func(h gitHandler, names ...string) {
			for _, n := range names {
				t[n] = h
			}
		}
		// reading: history, objects, refs, the work tree's state
		add(gitRead, "status", "log", "show", "blame", "annotate", "describe", "shortlog", "rev-parse", "rev-list", "ls-files",
			"ls-tree", "cat-file", "for-each-ref", "name-rev", "merge-base", "grep", "whatchanged", "count-objects",
			"verify-commit", "verify-tag", "verify-pack", "fsck", "version", "help", "check-ignore", "check-attr",
			"check-ref-format", "var", "range-diff", "diff", "diff-tree", "diff-files", "diff-index", "show-ref",
			"show-branch", "cherry", "get-tar-commit-id", "column", "fmt-merge-msg", "interpret-trailers",
			"patch-id", "request-pull", "difftool", "citool", "gui", "gitk", "stripspace", "ls-remote-local", "hash-object")
		add(gitReflog, "reflog")
		// editing the repository and the work tree
		add(gitEdit, "add", "commit", "sparse-checkout", "update-index", "commit-tree", "mktree", "write-tree",
			"symbolic-ref", "replace", "pack-refs", "mergetool", "rerere", "bundle", "merge-file", "maintenance-run",
			"stage", "restore-staged")
		add(gitMv, "mv")
		add(gitApply, "apply", "am")
		add(gitReadTree, "read-tree")
		add(gitRevert, "revert")
		add(gitRepack, "repack")
		add(gitCheckoutIndex, "checkout-index")
		add(func(cx *cmdCtx, g gitArgs) { cx.j.atLeast(kEdit); gitUpdateRef(cx, g.rest, g.lrest) }, "update-ref")
		add(gitArchive, "archive")
		add(gitBisect, "bisect")
		add(gitFormatPatch, "format-patch")
		add(gitInit, "init")
		add(gitWorktree, "worktree")
		add(gitTag, "tag")
		add(gitNotes, "notes")
		add(gitRm, "rm")
		add(gitReset, "reset")
		add(gitClean, "clean")
		// the network
		add(func(cx *cmdCtx, g gitArgs) { gitPush(cx, g.rest, g.lrest) }, "push")
		add(gitNetwork, "fetch-pack", "ls-remote", "archive-remote", "fetch")
		add(gitNetwork, "send-email", "daemon", "instaweb", "http-fetch", "http-push", "send-pack", "upload-pack",
			"receive-pack", "svn", "p4", "cvsimport")
		add(gitRemote, "remote")
		add(gitSubmodule, "submodule")
		add(gitLfs, "lfs")
		add(gitClone, "clone")
		add(gitPull, "pull")
		// branches and the work tree's files
		add(gitBranch, "branch")
		add(func(cx *cmdCtx, g gitArgs) { gitCheckout(cx, g.rest, g.lrest) }, "checkout")
		add(gitSwitch, "switch")
		add(func(cx *cmdCtx, g gitArgs) { gitRestore(cx, g.rest) }, "restore")
		add(gitStash, "stash")
		add(gitMerge, "merge", "rebase", "cherry-pick")
		// history and objects deleted
		add(gitGc, "gc")
		add(gitPrune, "prune")
		add(func(cx *cmdCtx, g gitArgs) { cx.j.match(idGitHistoryRewrite, "git "+g.sub) }, "filter-branch", "filter-repo")
		// configuration, credentials, hooks, scheduled jobs
		add(func(cx *cmdCtx, g gitArgs) { gitConfig(cx, g.rest, g.lrest) }, "config")
		add(func(cx *cmdCtx, g gitArgs) { cx.j.other(idReadCredentials, "git "+g.sub) }, "credential", "credential-store", "credential-cache")
		add(func(cx *cmdCtx, g gitArgs) { cx.j.atLeast(kDev) }, "hook")
		add(func(cx *cmdCtx, g gitArgs) { cx.j.other(idSysSystemWrite, "git maintenance registers scheduled jobs") }, "maintenance")
		gitSubcommands = t
	})
	return gitSubcommands
}

// gitUnknown judges a subcommand the table does not list.
func gitUnknown(cx *cmdCtx, g gitArgs) {
	cx.j.other(idUnknown, "git "+g.sub+" (unknown subcommand or alias)")
}

// gitRead: readers, some of which read files named on the command line
// (git diff --no-index A B, git hash-object FILE: with -w the file becomes
// a blob a push would publish, git grep --no-index), write --output, or
// run an external program (difftool --extcmd, --ext-diff).
func gitRead(cx *cmdCtx, g gitArgs) {
	j, sub, rest, lrest := cx.j, g.sub, g.rest, g.lrest
	j.atLeast(kRead)
	if sub == "hash-object" && shortHas(lrest, 'w') {
		j.atLeast(kEdit)
	}
	if sub == "hash-object" || (sub == "diff" || sub == "grep") && longHas(lrest, "--no-index", 6) {
		_, pos, paths, _ := gitOpts(rest, func(a string) bool {
			return a == "-t" || a == "--path" || a == "-e" || a == "-f" || a == "-m" || a == "--max-depth" || a == "-A" || a == "-B" || a == "-C"
		})
		if sub == "grep" && len(pos) > 0 && !hasOpt(rest, 'e') && !hasOpt(rest, 'f') {
			pos = pos[1:] // the pattern
		}
		for _, f := range append(pos, paths...) {
			cx.read(f)
		}
	}
	if sub == "difftool" && (shortHasA(rest, 'x', "") || longHas(lrest, "--extcmd", 4)) {
		j.other(idGitConfigExec, "git difftool --extcmd runs a command")
		cx.optionCommands(append([]string{"git"}, rest...), 'x', "extcmd")
	}
	if sub == "ls-files" || sub == "grep" || sub == "diff" || sub == "log" || sub == "show" {
		if longHas(lrest, "--ext-diff", 5) || longHas(lrest, "--open-files-in-pager", 6) || shortHas(lrest, 'O') && sub == "grep" {
			j.other(idGitConfigExec, "git "+sub+" runs an external program")
		}
	}
	for k, o := range rest {
		lo := lrest[k]
		switch {
		case strings.HasPrefix(lo, "--output="):
			cx.write(o[len("--output="):], false)
		case lo == "--output" && k+1 < len(rest):
			cx.write(rest[k+1], false)
		}
	}
}

// gitReflog: expiring or deleting entries loses what they keep reachable.
func gitReflog(cx *cmdCtx, g gitArgs) {
	if len(g.rest) > 0 && (g.rest[0] == "expire" || g.rest[0] == "delete") {
		cx.j.match(idGitReflogExpire, "git reflog "+g.rest[0])
		return
	}
	cx.j.atLeast(kRead)
}

// gitEdit: subcommands that change the repository or the work tree and
// nothing else.
func gitEdit(cx *cmdCtx, g gitArgs) { cx.j.atLeast(kEdit) }

// gitMv: a rename writes both names (git mv cfg .guardsh.toml).
func gitMv(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	for _, o := range operands(g.rest, optSpec{}) {
		cx.writeName(o, false)
	}
}

// gitApply: git apply and git am write the files the patches name (the
// patch file read here; -p1 by default); git am --abort is the sequencer's
// rollback, as git cherry-pick --abort.
func gitApply(cx *cmdCtx, g gitArgs) {
	j, rest, lrest := cx.j, g.rest, g.lrest
	j.atLeast(kEdit)
	if g.sub == "am" && longHas(lrest, "--abort", 4) {
		j.other(idGitAbort, "git am --abort")
	}
	strip := 1
	if p, ok := optValue(rest, 'p', ""); ok {
		if n, ok := stripCount(p); ok {
			strip = n
		}
	}
	dir, _ := optValue(rest, 0, "directory")
	for _, o := range operands(rest, optSpec{short: "pC", long: []string{"directory", "exclude", "include", "whitespace", "build-fake-ancestor"}}) {
		if a, ok := cx.pe.abs(o); ok {
			names, _ := patchTargets(a, strip)
			for _, n := range names {
				if dir != "" {
					n = strings.TrimSuffix(dir, "/") + "/" + n
				}
				cx.writeName(n, false)
			}
		}
	}
}

// gitReadTree: -u --reset is what git reset --hard does.
func gitReadTree(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if longHas(g.lrest, "--reset", 4) && shortHas(g.rest, 'u') {
		cx.j.match(idGitResetHard, "git read-tree -u --reset (what git reset --hard does)")
	}
}

// gitRevert: --abort is the sequencer's rollback, as git cherry-pick
// --abort.
func gitRevert(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if longHas(g.lrest, "--abort", 4) {
		cx.j.other(idGitAbort, "git "+g.sub+" --abort")
	}
}

// gitRepack: -a -d deletes the old packs with the unreachable objects in
// them (-A, --cruft and --keep-unreachable keep those).
func gitRepack(cx *cmdCtx, g gitArgs) {
	rest, lrest := g.rest, g.lrest
	cx.j.atLeast(kEdit)
	if shortHas(rest, 'a') && (shortHas(rest, 'd') || longHas(lrest, "--delete", 5)) && !shortHas(rest, 'A') &&
		!longHas(lrest, "--cruft", 4) && !shortHas(rest, 'k') && !longHas(lrest, "--keep-unreachable", 4) {
		cx.j.match(idGitGcPrune, "git repack -a -d deletes the unreachable objects in packs (what git gc --prune=now does)")
	}
}

// gitCheckoutIndex: --force overwrites the work tree's files.
func gitCheckoutIndex(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if shortHasA(g.rest, 'f', "") || longHas(g.lrest, "--force", 4) {
		cx.j.match(idGitCheckoutDiscard, "git checkout-index --force overwrites the working tree's files")
	}
}

// gitArchive: --remote reaches the network; -o writes a file.
func gitArchive(cx *cmdCtx, g gitArgs) {
	j := cx.j
	j.atLeast(kEdit)
	if longHas(g.lrest, "--remote", 5) {
		j.eff.Network = true
		j.other(idGitNetwork, "git archive --remote")
	}
	if o, ok := optValue(g.rest, 'o', "output"); ok {
		cx.write(o, false)
	}
}

// gitBisect: git bisect run runs its command at every step.
func gitBisect(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if len(g.rest) > 1 && g.rest[0] == "run" {
		cx.nest(g.rest[1:])
	}
}

// gitFormatPatch: -o writes the patches there.
func gitFormatPatch(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if o, ok := optValue(g.rest, 'o', "output"); ok {
		cx.write(o, false)
	}
}

// gitInit writes its directory; --template installs hooks.
func gitInit(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	_, pos, _, _ := gitOpts(g.rest, func(a string) bool {
		return a == "--template" || a == "--separate-git-dir" || a == "-b" || a == "--initial-branch"
	})
	if len(pos) > 0 {
		cx.write(pos[0], false)
	}
	if longHas(g.lrest, "--template", 5) {
		cx.j.other(idGitConfigExec, "git init --template installs hooks")
	}
}

// gitWorktree: add writes the new worktree's directory; remove --force
// deletes uncommitted work.
func gitWorktree(cx *cmdCtx, g gitArgs) {
	j, rest := cx.j, g.rest
	j.atLeast(kEdit)
	if len(rest) > 0 && rest[0] == "add" {
		_, pos, _, _ := gitOpts(rest[1:], func(a string) bool { return a == "-b" || a == "-B" || a == "--reason" })
		if len(pos) > 0 {
			cx.write(pos[0], false)
		}
	}
	if len(rest) > 0 && rest[0] == "remove" && (shortHas(rest[1:], 'f') || longHas(g.lrest, "--force", 4)) {
		j.match(idGitResetHard, "git worktree remove --force deletes the worktree with its uncommitted changes and untracked files")
	}
	if len(rest) > 0 && rest[0] == "list" {
		j.kind = kRead
	}
}

// gitTag: deleting and forcing a tag ask; listing reads.
func gitTag(cx *cmdCtx, g gitArgs) {
	j, rest, lrest := cx.j, g.rest, g.lrest
	j.atLeast(kEdit)
	switch {
	case shortHasA(rest, 'd', "mFu") || longHas(lrest, "--delete", 5):
		j.other(idGitRefDelete, "git tag --delete")
	case shortHasA(rest, 'f', "mFu") || longHas(lrest, "--force", 4):
		j.other(idGitBranchForce, "git tag --force")
	case len(rest) == 0 || shortHas(rest, 'l') || longHas(lrest, "--list", 4):
		j.kind = kRead
	}
}

// gitNotes: listing and showing read.
func gitNotes(cx *cmdCtx, g gitArgs) {
	cx.j.atLeast(kEdit)
	if len(g.rest) == 0 || g.rest[0] == "list" || g.rest[0] == "show" {
		cx.j.kind = kRead
	}
}

// gitRm: a forced removal discards the files' uncommitted changes; -rf of
// the whole tree asks as its own rule; --dry-run reads.
func gitRm(cx *cmdCtx, g gitArgs) {
	j := cx.j
	opts, pos, paths, _ := gitOpts(g.rest, func(a string) bool { return a == "--pathspec-from-file" })
	dry, cached, force := false, false, false
	for _, o := range opts {
		lo := strings.ToLower(o)
		switch {
		case strings.HasPrefix(lo, "--"):
			switch {
			case longIs(lo, "--dry-run", 4):
				dry = true
			case longIs(lo, "--no-dry-run", 6):
				dry = false
			case longIs(lo, "--cached", 4):
				cached = true
			case longIs(lo, "--no-cached", 6):
				cached = false
			case longIs(lo, "--force", 4):
				force = true
			case longIs(lo, "--no-force", 6):
				force = false
			}
		default:
			if strings.Contains(o, "n") {
				dry = true
			}
			if strings.Contains(o, "f") {
				force = true
			}
		}
	}
	if dry {
		j.atLeast(kRead)
		return
	}
	j.atLeast(kEdit)
	if shortHas(opts, 'r') && force && !cached {
		for _, p := range append(pos, paths...) {
			t := cx.pe.resolve(p)
			if t.loc == locProjectRoot || p == "." || p == "*" {
				j.other(idGitRmAll, "git rm -rf "+p)
			}
		}
	}
	if force && !cached {
		j.other(idGitRmForce, strings.Join(displayArgs(append(pos, paths...), 3), " "))
	}
}

// gitReset: --hard discards the work tree's changes, --merge the
// sequencer's.
func gitReset(cx *cmdCtx, g gitArgs) {
	switch {
	case longHas(g.lrest, "--hard", 4):
		cx.j.match(idGitResetHard, "")
	case longHas(g.lrest, "--merge", 4):
		cx.j.other(idGitAbort, "git reset --merge")
	default:
		cx.j.atLeast(kEdit)
	}
}

// gitClean deletes untracked files, unless it only lists them.
func gitClean(cx *cmdCtx, g gitArgs) {
	j, lrest := cx.j, g.lrest
	opts, _, _, _ := gitOpts(g.rest, func(a string) bool { return a == "-e" || a == "--exclude" })
	dry := shortHas(opts, 'n') || longHas(lrest, "--dry-run", 4)
	force := shortHas(opts, 'f') || longHas(lrest, "--force", 4)
	switch {
	case dry:
		j.atLeast(kRead)
	case force:
		j.match(idGitCleanForce, "")
	case shortHas(opts, 'i') || longHas(lrest, "--interactive", 4):
		j.unsure(idGitCleanForce, "git clean --interactive")
	case gitFalse(g.cfg["clean.requireforce"]):
		j.match(idGitCleanForce, "clean.requireForce=false makes git clean delete without -f")
	default:
		// git refuses without -f only while clean.requireForce is on,
		// and the user's config may turn it off
		j.match(idGitCleanForce, "git clean without -n deletes when clean.requireForce is off in git's config")
	}
}

// gitNetwork: subcommands that reach another machine (or serve this one's
// repositories); --upload-pack and --exec name the program run there.
func gitNetwork(cx *cmdCtx, g gitArgs) {
	switch g.sub {
	case "fetch", "ls-remote", "fetch-pack", "archive-remote":
		if longHas(g.lrest, "--upload-pack", 4) || longHas(g.lrest, "--exec", 4) {
			cx.j.other(idGitConfigExec, "git "+g.sub+" --upload-pack runs a program")
		}
	case "send-pack", "http-push":
		// the plumbing of git push: it updates the remote's refs
		line := strings.Join(displayArgs(append([]string{"git", g.sub}, g.rest...), 6), " ")
		if longHas(g.lrest, "--force", 3) || shortHas(g.rest, 'f') || longHas(g.lrest, "--mirror", 3) {
			cx.j.match(idGitPushForce, line)
		}
		cx.j.other(idGitPush, line)
	case "send-email":
		cx.j.other(idNetUnproxied, "git send-email (SMTP)")
	}
	gitNetworkUse(cx, g)
}

// gitNetworkUse records the network finding of git g.sub; a remote URL
// over ssh or git:// (which the session's proxy cannot carry) asks as well
// (net.unproxied).
func gitNetworkUse(cx *cmdCtx, g gitArgs) {
	cx.j.eff.Network = true
	cx.j.other(idGitNetwork, "git "+g.sub)
	_, pos, _, _ := gitOpts(g.rest, nil)
	for _, u := range pos {
		if gitUnproxiedURL(u) {
			cx.j.other(idNetUnproxied, "git "+g.sub+" over "+displayArg(u))
			break
		}
	}
}

// gitRemote: listing and get-url read; add, remove, rename, set-url,
// set-head and set-branches write .git/config; the rest (update, prune,
// show) reach the remote.
func gitRemote(cx *cmdCtx, g gitArgs) {
	_, pos, _, _ := gitOpts(g.rest, nil)
	if len(pos) == 0 || pos[0] == "get-url" {
		cx.j.atLeast(kRead)
		return
	}
	switch pos[0] {
	case "add", "remove", "rm", "rename", "set-url", "set-head", "set-branches":
		cx.j.other(idGitConfigWrite, "git remote "+pos[0])
		return
	}
	gitNetworkUse(cx, g)
}

// gitSubmodule: status and summary read; foreach runs its command in each
// submodule; the rest reach the submodules' remotes.
func gitSubmodule(cx *cmdCtx, g gitArgs) {
	_, pos, _, _ := gitOpts(g.rest, nil)
	if len(pos) == 0 || pos[0] == "status" || pos[0] == "summary" {
		cx.j.atLeast(kRead)
		return
	}
	if pos[0] == "foreach" && len(pos) > 1 {
		cx.nestScript(strings.Join(pos[1:], " "))
	}
	gitNetworkUse(cx, g)
}

// gitLfs: ls-files, status, env and version read; the rest reach the LFS
// server.
func gitLfs(cx *cmdCtx, g gitArgs) {
	if len(g.rest) > 0 && (g.rest[0] == "ls-files" || g.rest[0] == "status" || g.rest[0] == "env" || g.rest[0] == "version") {
		cx.j.atLeast(kRead)
		return
	}
	if len(g.rest) > 0 && g.rest[0] == "push" {
		cx.j.other(idGitPush, "git lfs push (uploads objects to the remote)")
	}
	gitNetworkUse(cx, g)
}

// gitClone reaches the network and writes its destination; --upload-pack,
// -u, --config and --template make it run programs.
func gitClone(cx *cmdCtx, g gitArgs) {
	rest, lrest := g.rest, g.lrest
	_, pos, _, _ := gitOpts(rest, func(a string) bool {
		switch a {
		case "-b", "--branch", "-o", "--origin", "--depth", "--reference", "-u", "--upload-pack", "-c", "--config", "--template", "--separate-git-dir", "-j", "--jobs", "--filter":
			return true
		}
		return false
	})
	dest := ""
	if len(pos) > 1 {
		dest = pos[1]
	}
	if longHas(lrest, "--upload-pack", 4) || shortHas(rest, 'u') || longHas(lrest, "--config", 5) || longHas(lrest, "--template", 5) {
		cx.j.other(idGitConfigExec, "git clone option that runs a program")
	}
	gitNetworkUse(cx, g)
	if dest != "" {
		cx.write(dest, false)
	}
}

// gitPull reaches the network; --upload-pack runs a program, --force
// overwrites local refs.
func gitPull(cx *cmdCtx, g gitArgs) {
	if longHas(g.lrest, "--upload-pack", 4) {
		cx.j.other(idGitConfigExec, "git pull --upload-pack runs a program")
	}
	if longHas(g.lrest, "--force", 4) || shortHas(g.rest, 'f') {
		cx.j.other(idGitNetwork, "git pull --force")
	}
	gitNetworkUse(cx, g)
}

// gitBranch: deleting unmerged branches and forcing asks; setting the
// upstream writes .git/config; creating, renaming and deleting a merged
// branch edit; listing reads.
func gitBranch(cx *cmdCtx, g gitArgs) {
	j, lrest := cx.j, g.lrest
	opts, pos, _, _ := gitOpts(g.rest, func(a string) bool {
		switch a {
		case "-u", "--set-upstream-to", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color", "--column":
			return true
		}
		return false
	})
	if shortHasA(opts, 'u', "") || longHas(lrest, "--set-upstream-to", 7) || longHas(lrest, "--unset-upstream", 4) {
		// the upstream is branch.NAME.remote and .merge in the
		// repository's config
		j.other(idGitConfigWrite, "git branch --set-upstream-to")
		return
	}
	del := shortHasA(opts, 'd', "u") || longHas(lrest, "--delete", 5)
	force := shortHasA(opts, 'f', "u") || longHas(lrest, "--force", 4)
	switch {
	case shortHasA(opts, 'D', "u") || del && force:
		j.match(idGitBranchForceDelete, strings.Join(displayArgs(pos, 3), " "))
	case force && len(pos) > 0 || shortHasA(opts, 'M', "u") || shortHasA(opts, 'C', "u"):
		j.other(idGitBranchForce, strings.Join(displayArgs(pos, 3), " "))
	case del || shortHas(opts, 'm') || shortHas(opts, 'M') || shortHas(opts, 'c') || shortHas(opts, 'C') || len(pos) > 0 && !shortHas(opts, 'l') && !longHas(lrest, "--list", 4):
		j.atLeast(kEdit)
	default:
		j.atLeast(kRead)
	}
}

// gitSwitch: --force/--discard-changes discards the work tree's changes;
// -C resets an existing branch.
func gitSwitch(cx *cmdCtx, g gitArgs) {
	j := cx.j
	opts, _, _, _ := gitOpts(g.rest, func(a string) bool {
		return a == "-c" || a == "-C" || a == "--create" || a == "--force-create" || a == "--orphan"
	})
	force := false
	for _, o := range opts {
		lo := strings.ToLower(o)
		if strings.HasPrefix(lo, "--") {
			if lo == "--force" || longIs(lo, "--discard-changes", 4) {
				force = true
			}
		}
	}
	if shortHasA(opts, 'f', "cC") || force {
		j.match(idGitSwitchDiscard, "")
		return
	}
	if shortHasA(opts, 'C', "c") || longHas(g.lrest, "--force-create", 8) {
		j.other(idGitBranchForce, "git switch -C resets an existing branch (what git branch -f does)")
		return
	}
	j.atLeast(kEdit)
}

// gitStash: drop and clear lose stashed work; list and show read.
func gitStash(cx *cmdCtx, g gitArgs) {
	_, pos, _, _ := gitOpts(g.rest, nil)
	op := "push"
	if len(pos) > 0 {
		op = pos[0]
	}
	switch op {
	case "drop", "clear":
		cx.j.match(idGitStashDrop, "git stash "+op)
	case "list", "show":
		cx.j.atLeast(kRead)
	default:
		cx.j.atLeast(kEdit)
	}
}

// gitMerge: git merge, rebase and cherry-pick; --abort rolls the
// sequencer back, rebase --exec runs commands.
func gitMerge(cx *cmdCtx, g gitArgs) {
	if longHas(g.lrest, "--abort", 4) {
		cx.j.other(idGitAbort, "git "+g.sub+" --abort")
		return
	}
	if g.sub == "rebase" && (longHas(g.lrest, "--exec", 4) || shortHas(g.rest, 'x')) {
		cx.j.other(idGitConfigExec, "git rebase --exec runs commands")
		return
	}
	cx.j.atLeast(kEdit)
}

// gitGc: --prune=now (or any recent date) deletes unreachable objects at
// once.
func gitGc(cx *cmdCtx, g gitArgs) {
	for k, lo := range g.lrest {
		if strings.HasPrefix(lo, "--prune=") {
			if v := lo[len("--prune="):]; gitExpiresNow(v) {
				cx.j.match(idGitGcPrune, g.rest[k])
				return
			}
		}
	}
	cx.j.atLeast(kEdit)
}

// gitPrune deletes unreachable objects, unless it only lists them.
func gitPrune(cx *cmdCtx, g gitArgs) {
	if shortHas(g.rest, 'n') || longHas(g.lrest, "--dry-run", 4) {
		cx.j.atLeast(kRead)
		return
	}
	cx.j.match(idGitGcPrune, "git prune")
}
