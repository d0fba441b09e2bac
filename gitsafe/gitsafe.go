// Package gitsafe builds the git commands guardsh itself runs outside the
// session sandbox (guardsh-agent's checkpoints, branch and undo; the
// broker's escalated git): git that never runs code the repository
// controls.
//
// A repository's own files decide a lot of what git executes: hooks,
// core.fsmonitor, filters and textconv drivers, external diff, pagers and
// editors, ssh and credential helpers, and the files that send git
// elsewhere for all of these (.git/commondir, a .git file's gitdir:,
// objects/info/alternates, core.worktree). Command builds a git that
//
//   - turns off what an override can turn off (core.hooksPath=/dev/null,
//     core.fsmonitor=false, automatic gc and maintenance, the ext::
//     transport, pagers), ignores the system config and the caller's GIT_*
//     environment;
//   - refuses, saying why, a repository whose git directory is redirected
//     or whose own config (local or worktree scope, includes followed)
//     sets anything that runs a program;
//   - refuses arguments that run a program (--upload-pack, --receive-pack,
//     --exec, -c KEY=program, --config-env, clone --template/--config).
//
// The user's global config (~/.gitconfig) stays in effect: it is the
// user's, not the repository's. git's own ownership check (safe.directory)
// stays on.
package gitsafe

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/protect"
)

// overrides are the -c options every command gets: command-line config
// beats the repository's.
var overrides = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "protocol.ext.allow=never",
	"-c", "core.untrackedCache=false",
	// a submodule is another repository, with a config and hooks of its
	// own that checkRepo has not seen: no recursion into them
	"-c", "submodule.recurse=false",
	"-c", "push.recurseSubmodules=no",
	"-c", "fetch.recurseSubmodules=false",
}

// Refusal is the error for a repository or a command line guardsh does not
// run git on outside the sandbox.
type Refusal struct {
	Why  string // what was found, and why it matters
	Hint string // how to do the legitimate thing
}

func (r *Refusal) Error() string {
	msg := "guardsh does not run git outside the sandbox here: " + r.Why
	if r.Hint != "" {
		msg += ". " + r.Hint
	}
	return msg
}

// The hints of the three kinds of refusal.
const (
	hintArgs     = "Run it without that option or config: git then runs its own programs (git-receive-pack, git-upload-pack, ssh), and an ssh command or helper of yours belongs in your ~/.gitconfig"
	hintRedirect = "If the session made it, remove it; a linked worktree or a submodule: run the command in the main repository's work tree"
	hintConfig   = "Remove it from the repository's config (git config --unset KEY), or set it in your own ~/.gitconfig if you trust it"
)

// Command returns git (found on the caller's PATH as exec.LookPath does,
// or gitPath when not empty) run in dir with args, hardened as the package
// doc says, with env (the caller's environment; nil: os.Environ()) minus
// every GIT_* variable but the author and committer ones, plus
// GIT_CONFIG_NOSYSTEM=1. A repository or argument that would run a program
// is a *Refusal.
func Command(gitPath, dir string, env []string, args ...string) (*exec.Cmd, error) {
	argv, envOut, err := Prepare(gitPath, dir, env, args)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = envOut
	return cmd, nil
}

// Prepare is Command's argv and environment, for callers that start the
// process themselves (the broker starts it confined).
func Prepare(gitPath, dir string, env, args []string) (argv, envOut []string, err error) {
	if gitPath == "" {
		// It runs outside the sandbox: never a git a session could have
		// planted in a directory of PATH it may write.
		if gitPath, err = protect.TrustedProgram("git", protect.SessionWritable(dir)); err != nil {
			return nil, nil, err
		}
	}
	if env == nil {
		env = os.Environ()
	}
	envOut = Env(env)
	if err := CheckArgs(args); err != nil {
		return nil, nil, err
	}
	globals, sub := repoOptions(args)
	if err := checkRepo(gitPath, dir, envOut, globals); err != nil {
		return nil, nil, err
	}
	if sub >= 0 && args[sub] == "push" && localPush(gitPath, dir, envOut, globals, args[sub+1:]) {
		// A push to a repository on this machine runs its receive-pack
		// here, with that repository's hooks, and git does not pass
		// command-line config across a local transport: turn them off
		// there too.
		args = append(append(append([]string(nil), args[:sub+1]...), "--receive-pack=git -c core.hooksPath=/dev/null receive-pack"), args[sub+1:]...)
	}
	argv = append(append([]string{gitPath}, overrides...), args...)
	return argv, envOut, nil
}

// repoOptions returns the global options of a git command line that choose
// its repository (-C, --git-dir, --work-tree, --bare), to locate the same
// repository, and the index of the subcommand (-1 none).
func repoOptions(args []string) (globals []string, sub int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "" || a[0] != '-' {
			return globals, i
		}
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree":
			if i+1 < len(args) {
				globals = append(globals, a, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree=") || a == "--bare":
			globals = append(globals, a)
		case a == "-c" || a == "--namespace" || a == "--super-prefix" || a == "--config-env":
			i++
		}
	}
	return globals, -1
}

// localPush reports whether git push with words rest goes to a repository
// on this machine: a path or file:// URL, given or configured for the
// remote named.
func localPush(gitPath, dir string, env, globals, rest []string) bool {
	target := ""
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			if k+1 < len(rest) {
				target = rest[k+1]
			}
			break
		}
		if strings.HasPrefix(a, "--repo=") {
			target = a[len("--repo="):]
			break
		}
		if a == "--repo" || a == "-o" || a == "--push-option" {
			k++
			if a == "--repo" && k < len(rest) {
				target = rest[k]
				break
			}
			continue
		}
		if !strings.HasPrefix(a, "-") {
			target = a
			break
		}
	}
	g := func(args ...string) []string { return append(append([]string(nil), globals...), args...) }
	if target == "" {
		// git's order for a push with no repository: the current branch's
		// pushRemote, remote.pushDefault, the branch's remote, origin
		target = "origin"
		var keys []string
		if b, err := run(gitPath, dir, env, g("symbolic-ref", "-q", "--short", "HEAD")...); err == nil && b != "" {
			keys = append(keys, "branch."+b+".pushRemote", "remote.pushDefault", "branch."+b+".remote")
		} else {
			keys = append(keys, "remote.pushDefault")
		}
		for _, key := range keys {
			if v, err := run(gitPath, dir, env, g("config", "--get", key)...); err == nil && v != "" {
				target = v
				break
			}
		}
	}
	var urls []string
	if out, err := run(gitPath, dir, env, g("remote", "get-url", "--push", "--all", target)...); err == nil {
		// a configured remote: its push URLs, insteadOf and
		// pushInsteadOf applied by git
		urls = strings.Split(out, "\n")
	} else {
		// not a remote: git takes the word for a URL or a path (a
		// directory named like a remote the repository does not have)
		urls = rewrites(gitPath, dir, env, globals, target)
	}
	for _, u := range urls {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		if strings.HasPrefix(u, "file://") || u == "." || !strings.Contains(u, "://") && !scpLike(u) {
			return true
		}
	}
	return false
}

// rewrites returns u and what the url.<base>.insteadOf and pushInsteadOf
// settings whose value starts u make of it (any of them may be the one git
// uses).
func rewrites(gitPath, dir string, env, globals []string, u string) []string {
	out := []string{u}
	list, err := run(gitPath, dir, env, append(append([]string(nil), globals...), "config", "--get-regexp", "-z", `^url\..*\.(push)?insteadof$`)...)
	if err != nil {
		return out
	}
	for _, rec := range strings.Split(list, "\x00") {
		k, v, ok := strings.Cut(rec, "\n")
		if !ok || v == "" || !strings.HasPrefix(u, v) {
			continue
		}
		lk := strings.ToLower(k)
		base := k[len("url.") : len(k)-len(".insteadof")]
		if strings.HasSuffix(lk, ".pushinsteadof") {
			base = k[len("url.") : len(k)-len(".pushinsteadof")]
		}
		out = append(out, base+u[len(v):])
	}
	return out
}

// scpLike reports whether u is git's host:path form (a colon before the
// first slash).
func scpLike(u string) bool {
	c := strings.IndexByte(u, ':')
	s := strings.IndexByte(u, '/')
	return c > 0 && (s < 0 || c < s)
}

// Env is env without the GIT_* variables that choose a repository, config,
// program or hook (all of them but GIT_AUTHOR_*, GIT_COMMITTER_* and
// GIT_TERMINAL_PROMPT), with GIT_CONFIG_NOSYSTEM=1.
func Env(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(name, "GIT_") && !strings.HasPrefix(name, "GIT_AUTHOR_") &&
			!strings.HasPrefix(name, "GIT_COMMITTER_") && name != "GIT_TERMINAL_PROMPT" {
			continue
		}
		out = append(out, e)
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1")
}

// checkRepo refuses the repository that dir and the global options
// globals (-C, --git-dir, --work-tree) choose (none: nil) when its git
// directory is redirected (a .git file or symlink, commondir, gitdir,
// objects/info/alternates, core.worktree) or its own config sets a key
// that runs a program. It runs git only to locate the repository and list
// its config, which execute nothing the repository controls.
func checkRepo(gitPath, dir string, env, globals []string) error {
	g := func(args ...string) []string { return append(append([]string(nil), globals...), args...) }
	out, err := run(gitPath, dir, env, g("rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")...)
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil
		}
		return err
	}
	lines := strings.Split(out, "\n")
	gitDir := lines[0]
	if len(lines) > 1 {
		common := lines[1]
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		if filepath.Clean(common) != filepath.Clean(gitDir) {
			return &Refusal{Why: fmt.Sprintf("its git directory %s takes its objects, refs, config and hooks from %s (a linked worktree or a planted commondir)", gitDir, common), Hint: hintRedirect}
		}
	}
	if len(lines) > 2 && lines[2] != "" {
		dotgit := filepath.Join(lines[2], ".git")
		if fi, err := os.Lstat(dotgit); err == nil && !fi.IsDir() {
			what := "a file (gitdir: redirection)"
			if fi.Mode()&os.ModeSymlink != 0 {
				what = "a symbolic link"
			}
			return &Refusal{Why: fmt.Sprintf("%s is %s to %s, not the repository's own directory", dotgit, what, gitDir), Hint: hintRedirect}
		}
	}
	for _, f := range []string{"commondir", "gitdir", filepath.Join("objects", "info", "alternates")} {
		if _, err := os.Lstat(filepath.Join(gitDir, f)); err == nil {
			return &Refusal{Why: fmt.Sprintf("%s exists: it sends git to another directory for the repository's data", filepath.Join(gitDir, f)), Hint: hintRedirect}
		}
	}
	if len(lines) > 2 && lines[2] != "" {
		if err := checkSubmodules(gitPath, lines[2], env, 0); err != nil {
			return err
		}
	}
	list, err := run(gitPath, dir, env, g("config", "--list", "--show-scope", "--includes", "-z")...)
	if err != nil {
		return err
	}
	// -z with --show-scope: scope NUL key LF value NUL, per entry
	recs := strings.Split(list, "\x00")
	for n := 0; n+1 < len(recs); n += 2 {
		scope, kv := recs[n], recs[n+1]
		if scope != "local" && scope != "worktree" {
			continue
		}
		k, v, _ := strings.Cut(kv, "\n")
		lk := strings.ToLower(k)
		if lk == "core.hookspath" || lk == "core.fsmonitor" || lk == "core.pager" {
			continue // overridden on the command line
		}
		if RunsProgram(lk, v) || lk == "core.worktree" {
			return &Refusal{Why: fmt.Sprintf("the repository's own config sets %s = %q (%s scope), which git would run or follow", k, v, scope), Hint: strings.Replace(hintConfig, "KEY", k, 1)}
		}
	}
	return nil
}

// checkSubmodules refuses a work tree whose initialised submodules (the
// repositories git add and git status run git in, with their own config)
// have a config that names a program, wherever their .git leads; nested
// submodules are checked to depth 3.
func checkSubmodules(gitPath, top string, env []string, depth int) error {
	if depth > 3 {
		return nil
	}
	out, err := run(gitPath, top, env, "ls-files", "--stage", "-z")
	if err != nil {
		return nil // nothing to list: nothing git would recurse into either
	}
	n := 0
	for _, rec := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		if n++; n > 64 {
			return &Refusal{Why: "the repository has more than 64 submodules to check", Hint: hintRedirect}
		}
		wt := filepath.Join(top, path)
		gd := filepath.Join(wt, ".git")
		fi, err := os.Lstat(gd)
		if err != nil {
			continue // not initialised: git does not go there
		}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(gd)
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if err != nil || !ok {
				return &Refusal{Why: gd + " is not a gitdir: file", Hint: hintRedirect}
			}
			gd = strings.TrimSpace(target)
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(wt, gd)
			}
		}
		// the file as it stands, and as git in the submodule reads it:
		// includeIf conditions (onbranch:, gitdir:) judged against the
		// submodule's own git directory, not the superproject's
		var kvs []string
		if cfg, err := run(gitPath, top, env, "config", "--file", filepath.Join(gd, "config"), "--list", "--includes", "-z"); err == nil {
			kvs = strings.Split(cfg, "\x00")
		}
		if cfg, err := run(gitPath, top, env, "--git-dir="+gd, "config", "--list", "--show-scope", "--includes", "-z"); err == nil {
			recs := strings.Split(cfg, "\x00")
			for n := 0; n+1 < len(recs); n += 2 {
				if recs[n] == "local" || recs[n] == "worktree" {
					kvs = append(kvs, recs[n+1])
				}
			}
		}
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "\n")
			lk := strings.ToLower(k)
			if lk == "core.hookspath" || lk == "core.fsmonitor" || lk == "core.pager" {
				continue // overridden: command-line config reaches the submodule's git
			}
			if RunsProgram(lk, v) {
				return &Refusal{Why: fmt.Sprintf("the config of submodule %s (%s) sets %s = %q, which git would run when it looks into the submodule", path, gd, k, v),
					Hint: strings.Replace(hintConfig, "KEY", k, 1)}
			}
		}
		if err := checkSubmodules(gitPath, wt, env, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// run runs git with the overrides and returns its stdout, trimmed of the
// final newline (the error carries stderr).
func run(gitPath, dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(gitPath, append(append([]string(nil), overrides...), args...)...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New("git " + strings.Join(args, " ") + ": " + msg)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// RunsProgram reports whether git config key k (lower case) set to v makes
// git run a program (or a shell command line): hooks, fsmonitor, pagers
// and editors, ssh/proxy/askpass/credential helpers, diff/merge/filter
// drivers, remote helpers' programs, ext:: URLs. The policy (guardsh/) and
// checkRepo share it.
func RunsProgram(k, v string) bool {
	switch k {
	case "core.fsmonitor":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "false", "no", "off", "0", "true", "yes", "on", "1":
			return false // off, or git's own built-in daemon
		}
		return true
	case "core.pager", "core.editor", "sequence.editor":
		return !harmlessPager(v)
	case "core.sshcommand", "core.hookspath", "core.askpass", "core.gitproxy", "core.alternaterefscommand",
		"diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "interactive.difffilter",
		"web.browser", "sendemail.smtpserver", "imap.tunnel", "init.templatedir", "sendemail.tocmd", "sendemail.cccmd",
		"gpg.ssh.defaultkeycommand", "sendemail.sendmailcmd", "sendemail.headercmd", "instaweb.httpd":
		return true
	}
	if strings.HasPrefix(k, "sendemail.") && strings.Count(k, ".") >= 2 {
		// sendemail.<identity>.<item> overrides sendemail.<item>
		switch k[strings.LastIndexByte(k, '.')+1:] {
		case "smtpserver", "tocmd", "cccmd", "sendmailcmd", "headercmd":
			return true
		}
	}
	if strings.HasPrefix(k, "pager.") {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "false", "yes", "no", "on", "off", "1", "0":
			return false
		}
		return !harmlessPager(v)
	}
	if strings.HasPrefix(k, "alias.") {
		return strings.HasPrefix(strings.TrimSpace(v), "!")
	}
	if strings.HasPrefix(k, "url.") {
		// url.<base>.insteadOf: the base, in the key, is what git uses
		return strings.Contains(k, "ext::") || strings.Contains(v, "ext::")
	}
	if (strings.HasPrefix(k, "remote.") || strings.HasPrefix(k, "submodule.")) && (strings.HasSuffix(k, ".url") || strings.HasSuffix(k, ".pushurl")) {
		return strings.Contains(v, "ext::")
	}
	if strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update") {
		return strings.HasPrefix(strings.TrimSpace(v), "!")
	}
	if strings.HasPrefix(k, "trace2.") {
		return true // writes wherever it says
	}
	for _, suf := range [...]string{".textconv", ".command", ".driver", ".cmd", ".program", ".helper", ".receivepack",
		".uploadpack", ".clean", ".smudge", ".process", ".tool", ".path"} {
		if strings.HasSuffix(k, suf) && (suf != ".path" || strings.HasPrefix(k, "difftool.") || strings.HasPrefix(k, "mergetool.") || strings.HasPrefix(k, "man.") ||
			strings.HasPrefix(k, "browser.") || strings.HasPrefix(k, "lfs.customtransfer.")) &&
			(suf != ".tool" || k == "diff.tool" || k == "merge.tool") {
			return true
		}
	}
	return false
}

func harmlessPager(v string) bool {
	switch strings.TrimSpace(v) {
	case "", "cat", "less", "more", "true", ":", "less -r", "less -R", "less -FRX":
		return true
	}
	return false
}

// CheckArgs refuses a git command line (without the program name) that
// makes git run a program: -c KEY=VALUE with such a key (RunsProgram) or
// an include, --config-env, --exec-path=DIR, and the subcommand options
// --upload-pack/-u (fetch, pull, clone, ls-remote, archive), --receive-pack
// and --exec (push, send-pack, archive), clone's --template and
// -c/--config, rebase --exec/-x, difftool --extcmd, bisect run.
func CheckArgs(args []string) error {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "" || a[0] != '-' {
			break
		}
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c") && len(a) > 2:
			kv := a[2:]
			if a == "-c" {
				if i+1 >= len(args) {
					return nil
				}
				i++
				kv = args[i]
			}
			if err := checkConfig(kv); err != nil {
				return err
			}
		case strings.HasPrefix(a, "--config-env"):
			return &Refusal{Why: a + " sets config from the environment", Hint: hintArgs}
		case strings.HasPrefix(a, "--exec-path"):
			if strings.Contains(a, "=") {
				return &Refusal{Why: a + " makes git run its subcommands from another directory", Hint: hintArgs}
			}
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--super-prefix":
			i++
		}
	}
	if i >= len(args) {
		return nil
	}
	sub, rest := args[i], args[i+1:]
	for k, a := range rest {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		long := func(full string) bool {
			return strings.HasPrefix(name, "--") && len(name) >= 3 && strings.HasPrefix(full, name)
		}
		switch sub {
		case "fetch", "pull", "clone", "ls-remote", "archive", "fetch-pack", "submodule":
			shortU := (sub == "clone" || sub == "ls-remote") && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'u')
			if long("--upload-pack") || shortU || (sub == "archive" || sub == "fetch-pack") && long("--exec") {
				return &Refusal{Why: fmt.Sprintf("git %s %s names the program to run on the other side (through ssh or locally)", sub, a), Hint: hintArgs}
			}
		case "push", "send-pack":
			if long("--receive-pack") || long("--exec") {
				return &Refusal{Why: fmt.Sprintf("git %s %s names the program to run on the other side (through ssh or locally)", sub, a), Hint: hintArgs}
			}
			if long("--recurse-submodules") {
				v, ok := strings.CutPrefix(a, name+"=")
				if !ok && k+1 < len(rest) {
					v = rest[k+1]
				}
				if v != "no" && v != "check" {
					return &Refusal{Why: fmt.Sprintf("git push %s pushes submodules to their own remotes, with their own config and, on this machine, hooks", a),
						Hint: "Push each submodule from its own directory, or use --recurse-submodules=check"}
				}
			}
		case "rebase":
			if long("--exec") || a == "-x" {
				return &Refusal{Why: "git rebase --exec runs commands", Hint: hintArgs}
			}
		case "difftool", "mergetool":
			if long("--extcmd") || a == "-x" || long("--tool") || a == "-t" {
				return &Refusal{Why: "git " + sub + " " + a + " runs a program", Hint: hintArgs}
			}
		case "bisect":
			if k == 0 && a == "run" {
				return &Refusal{Why: "git bisect run runs commands", Hint: hintArgs}
			}
		}
		if sub == "clone" {
			if long("--template") {
				return &Refusal{Why: "git clone --template installs hooks from a directory", Hint: hintArgs}
			}
			if a == "-c" || long("--config") {
				v := ""
				if strings.Contains(a, "=") {
					_, v, _ = strings.Cut(a, "=")
				} else if k+1 < len(rest) {
					v = rest[k+1]
				}
				if err := checkConfig(v); err != nil {
					return err
				}
			}
		}
		if strings.Contains(a, "ext::") {
			return &Refusal{Why: "an ext:: URL runs a command", Hint: hintArgs}
		}
	}
	return nil
}

func checkConfig(kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	lk := strings.ToLower(k)
	for i := 1; i < len(overrides); i += 2 {
		// a later -c beats the overrides: one of their keys is refused
		ok, ov, _ := strings.Cut(overrides[i], "=")
		if strings.ToLower(ok) == lk && v != ov && !(lk == "core.pager" && harmlessPager(v)) {
			return &Refusal{Why: fmt.Sprintf("-c %s changes a setting guardsh fixes for git outside the sandbox (%s)", kv, overrides[i]), Hint: hintArgs}
		}
	}
	if RunsProgram(lk, v) || strings.HasPrefix(lk, "include") || lk == "core.worktree" || strings.HasPrefix(lk, "protocol.") {
		return &Refusal{Why: fmt.Sprintf("-c %s makes git run a program or read config from elsewhere", kv), Hint: hintArgs}
	}
	return nil
}
