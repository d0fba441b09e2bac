// Package protect is the one list of things no command of a session may
// change, whoever writes them and however (a redirection, cp, a rename, an
// archive, a patch): files that run code or grant access later, outside
// the session's control — shell start-up files, git's configuration, hooks
// and the files through which git finds another repository's, ~/.ssh, and
// guardsh's own configuration and audit log.
//
// The policy (guardsh) denies writing them; the sandbox (sandbox) makes
// each one that exists read-only in the kernel, which is what holds against
// a program no rule knows; the agent's file tools (agentloop) refuse them.
// All three read this list, so they cannot drift apart again.
//
// The package is a leaf: it imports only the standard library.
package protect

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Base is what an entry's path is relative to.
type Base uint8

const (
	// Project: the project root.
	Project Base = iota
	// GitDir: every git directory: a ".git" directory anywhere (the
	// project's, a nested repository's), and below it the git directories
	// of submodules (.git/modules/NAME/...) and worktrees
	// (.git/worktrees/NAME/...).
	GitDir
	// Home: the user's home directory.
	Home
	// ConfigHome: $XDG_CONFIG_HOME (when set and absolute; ~/.config is
	// listed under Home anyway).
	ConfigHome
	// System: an absolute path.
	System
	// StateHome: $XDG_STATE_HOME (when set and absolute; guardsh's audit
	// log lives there then, ~/.local/state is listed under Home anyway).
	StateHome
)

// Entry is one protected thing.
type Entry struct {
	Base Base
	// Path is relative to Base (absolute for System), clean, with "/".
	Path string
	// Tree protects everything below Path too.
	Tree bool
	// Startup marks a shell start-up file: shells source it, so reading it
	// (as a login shell does) is routine.
	Startup bool
	// Why says what the file does, for messages.
	Why string
}

const (
	whyRC     = "a shell start-up file: it runs in every later shell"
	whyGit    = "git reads its configuration from it (core.fsmonitor, core.hooksPath, filters run programs)"
	whyHook   = "git runs the hooks in it"
	whyGitDir = "it points git at another directory's configuration, hooks or objects"
	whyAttr   = "it chooses the filters and diff drivers git runs"
	whySSH    = "SSH keys and the commands authorized_keys and ssh config run"
	whyGuard  = "guardsh's own configuration or audit log, which the privileged side trusts"
	whySys    = "system start-up, account or privilege configuration"
)

// Entries is the list. Order does not matter.
var Entries = []Entry{
	// the project
	{Base: Project, Path: ".guardsh.toml", Why: "guardsh's project configuration (rules the project may only tighten)"},
	{Base: Project, Path: ".gitmodules", Why: "it tells git which submodules to fetch, from where, into which directory"},

	// every git directory (see gitRel for modules/ and worktrees/)
	{Base: GitDir, Path: "config", Why: whyGit},
	{Base: GitDir, Path: "config.worktree", Why: whyGit},
	{Base: GitDir, Path: "hooks", Tree: true, Why: whyHook},
	{Base: GitDir, Path: "commondir", Why: whyGitDir},
	{Base: GitDir, Path: "gitdir", Why: whyGitDir},
	{Base: GitDir, Path: "objects/info/alternates", Why: whyGitDir},
	{Base: GitDir, Path: "info/attributes", Why: whyAttr},

	// home
	{Base: Home, Path: ".bashrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".bash_profile", Startup: true, Why: whyRC},
	{Base: Home, Path: ".bash_login", Startup: true, Why: whyRC},
	{Base: Home, Path: ".bash_logout", Startup: true, Why: whyRC},
	{Base: Home, Path: ".bash_aliases", Startup: true, Why: whyRC},
	{Base: Home, Path: ".profile", Startup: true, Why: whyRC},
	{Base: Home, Path: ".zshrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".zshenv", Startup: true, Why: whyRC},
	{Base: Home, Path: ".zprofile", Startup: true, Why: whyRC},
	{Base: Home, Path: ".zlogin", Startup: true, Why: whyRC},
	{Base: Home, Path: ".zlogout", Startup: true, Why: whyRC},
	{Base: Home, Path: ".kshrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".mkshrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".cshrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".tcshrc", Startup: true, Why: whyRC},
	{Base: Home, Path: ".login", Startup: true, Why: whyRC},
	{Base: Home, Path: ".logout", Startup: true, Why: whyRC},
	{Base: Home, Path: ".inputrc", Startup: true, Why: "readline's start-up file: its macros type commands"},
	{Base: Home, Path: ".config/fish", Tree: true, Startup: true, Why: whyRC},
	{Base: Home, Path: ".ssh", Tree: true, Why: whySSH},
	{Base: Home, Path: ".gitconfig", Why: whyGit + ", in every repository"},
	{Base: Home, Path: ".config/git", Tree: true, Why: whyGit + ", in every repository"},
	{Base: Home, Path: ".config/guardsh", Tree: true, Why: whyGuard},
	{Base: Home, Path: ".local/state/guardsh", Tree: true, Why: whyGuard},
	{Base: Home, Path: ".local/share/guardsh", Tree: true, Why: "guardsh's launcher shims: the shells agents start"},
	{Base: ConfigHome, Path: "guardsh", Tree: true, Why: whyGuard},
	{Base: StateHome, Path: "guardsh", Tree: true, Why: whyGuard},
	{Base: ConfigHome, Path: "git", Tree: true, Why: whyGit + ", in every repository"},

	// the system
	{Base: System, Path: "/etc/profile", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/profile.d", Tree: true, Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/bash.bashrc", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/bash.bash_logout", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/bashrc", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zshrc", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zshenv", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zprofile", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zlogin", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zlogout", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/zsh", Tree: true, Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/csh.cshrc", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/csh.login", Startup: true, Why: whyRC},
	{Base: System, Path: "/etc/environment", Startup: true, Why: "every login's environment"},
	{Base: System, Path: "/etc/gitconfig", Why: whyGit + ", for every user"},
	{Base: System, Path: "/etc/sudoers", Why: whySys},
	{Base: System, Path: "/etc/sudoers.d", Tree: true, Why: whySys},
	{Base: System, Path: "/etc/ssh", Tree: true, Why: whySys},
	{Base: System, Path: "/etc/passwd", Why: whySys},
	{Base: System, Path: "/etc/shadow", Why: whySys},
	{Base: System, Path: "/etc/group", Why: whySys},
}

// Where anchors the entries for one session. Empty fields anchor nothing.
type Where struct {
	Project    string // the project root
	Home       string // the user's home
	ConfigHome string // $XDG_CONFIG_HOME
	StateHome  string // $XDG_STATE_HOME
	Config     string // $GUARDSH_CONFIG: guardsh's user file, wherever it is
	Shim       string // $GUARDSH_LAUNCH_SHIM: the launcher's shim directory
}

// Match reports whether writing abs (absolute, clean) changes a protected
// thing in w, and which entry: the thing itself or, for a tree, anything
// in it. A path above an entry (its directory) is not a match.
func Match(abs string, w Where) (Entry, bool) {
	if abs == "" || !path.IsAbs(abs) {
		return Entry{}, false
	}
	if w.Config != "" && path.IsAbs(w.Config) && abs == path.Clean(w.Config) {
		return Entry{Base: System, Path: path.Clean(w.Config), Why: whyGuard}, true
	}
	if s := path.Clean(w.Shim); w.Shim != "" && path.IsAbs(s) && s != "/" && (abs == s || strings.HasPrefix(abs, s+"/")) {
		return Entry{Base: System, Path: s, Tree: true, Why: "the launcher's shim: the shell the agent starts"}, true
	}
	if e, ok := gitMatch(abs); ok {
		return e, true
	}
	if hp := HooksDir(w.Project); hp != "" && (abs == hp || strings.HasPrefix(abs, hp+"/")) {
		return Entry{Base: System, Path: hp, Tree: true, Why: whyHooksPath}, true
	}
	if slices.Contains(IncludedConfigs(w.Project), abs) {
		return Entry{Base: System, Path: abs, Why: whyGit + " (the repository's .git/config includes it)"}, true
	}
	for _, e := range Entries {
		var base string
		switch e.Base {
		case Project:
			base = w.Project
		case Home:
			base = w.Home
		case ConfigHome:
			base = w.ConfigHome
		case StateHome:
			base = w.StateHome
		case System:
			if under(abs, e) {
				return e, true
			}
			continue
		default:
			continue
		}
		if base == "" || !path.IsAbs(base) || path.Clean(base) == "/" {
			continue
		}
		if rel, ok := strings.CutPrefix(abs, path.Clean(base)+"/"); ok && under(rel, e) {
			return e, true
		}
	}
	return Entry{}, false
}

// under reports whether rel is e.Path or, for a tree, below it.
func under(rel string, e Entry) bool {
	return rel == e.Path || e.Tree && strings.HasPrefix(rel, e.Path+"/")
}

// gitMatch matches abs against the GitDir entries: below the first
// ".git" component, directly (.git/config), or in a submodule's or
// worktree's git directory nested there (.git/modules/NAME/config,
// .git/worktrees/NAME/commondir; NAME may hold "/", and modules nest).
func gitMatch(abs string) (Entry, bool) {
	i := strings.Index(abs+"/", "/.git/")
	if i < 0 {
		return Entry{}, false
	}
	rel := strings.TrimPrefix(abs[i+len("/.git"):], "/")
	match := func(r string) (Entry, bool) {
		for _, e := range Entries {
			if e.Base == GitDir && under(r, e) {
				return e, true
			}
		}
		return Entry{}, false
	}
	if e, ok := match(rel); ok {
		return e, true
	}
	if !strings.HasPrefix(rel, "modules/") && !strings.HasPrefix(rel, "worktrees/") {
		return Entry{}, false
	}
	// every tail after modules/NAME... or worktrees/NAME...
	parts := strings.Split(rel, "/")
	for k := 2; k < len(parts); k++ {
		if e, ok := match(strings.Join(parts[k:], "/")); ok {
			return e, true
		}
	}
	return Entry{}, false
}

// Paths lists the absolute paths of the entries in w that the kernel
// should keep read-only: every Project, Home, ConfigHome and System entry
// (existing or not: the sandbox reports one that appears), and the git
// directories' entries for the project's .git and each submodule's and
// worktree's git directory found below it now.
func Paths(w Where) []string {
	var out []string
	add := func(p string) {
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	abs := func(p string) string {
		if p == "" || !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			return ""
		}
		return filepath.Clean(p)
	}
	for _, e := range Entries {
		var base string
		switch e.Base {
		case Project:
			base = abs(w.Project)
		case Home:
			base = abs(w.Home)
		case ConfigHome:
			base = abs(w.ConfigHome)
		case StateHome:
			base = abs(w.StateHome)
		case System:
			add(e.Path)
			continue
		default:
			continue
		}
		if base != "" {
			add(filepath.Join(base, filepath.FromSlash(e.Path)))
		}
	}
	if c := abs(w.Config); c != "" {
		add(c)
	}
	if c := abs(w.Shim); c != "" {
		add(c)
	}
	if hp := HooksDir(w.Project); hp != "" {
		add(filepath.FromSlash(hp))
	}
	for _, inc := range IncludedConfigs(w.Project) {
		add(filepath.FromSlash(inc))
	}
	if p := abs(w.Project); p != "" {
		dirs := gitDirs(filepath.Join(p, ".git"), 0)
		if len(dirs) == 0 {
			// no repository yet: git init would make one
			dirs = []string{filepath.Join(p, ".git")}
		}
		for _, n := range nestedRepos(p) {
			dirs = append(dirs, gitDirs(n, 0)...)
		}
		for _, g := range dirs {
			for _, e := range Entries {
				if e.Base == GitDir {
					add(filepath.Join(g, filepath.FromSlash(e.Path)))
				}
			}
		}
	}
	return out
}

// gitDirs returns g (when it is a directory) and the git directories of
// its submodules and worktrees, recursively.
func gitDirs(g string, depth int) []string {
	if fi, err := os.Lstat(g); err != nil || !fi.IsDir() || depth > 4 {
		return nil
	}
	out := []string{g}
	for _, sub := range [...]string{"modules", "worktrees"} {
		filepath.WalkDir(filepath.Join(g, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || p == filepath.Join(g, sub) {
				return nil
			}
			if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
				out = append(out, gitDirs(p, depth+1)...)
				return filepath.SkipDir
			}
			if strings.Count(strings.TrimPrefix(p, g), "/") > 6 {
				return filepath.SkipDir
			}
			return nil
		})
	}
	return out
}

// nestedMaxDepth and nestedMaxDirs bound the search for nested
// repositories (a vendored checkout, a repository cloned into the
// project): directories at most this deep below the project, at most this
// many visited; node_modules is not entered.
const (
	nestedMaxDepth = 4
	nestedMaxDirs  = 20000
)

// nestedRepos returns the .git directories of repositories nested in the
// project (project/vendor/lib/.git), not the project's own.
func nestedRepos(project string) []string {
	var out []string
	visited := 0
	filepath.WalkDir(project, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if visited++; visited > nestedMaxDirs {
			return filepath.SkipAll
		}
		if p == project {
			return nil
		}
		switch d.Name() {
		case ".git":
			if filepath.Dir(p) != project {
				out = append(out, p)
			}
			return filepath.SkipDir
		case "node_modules":
			return filepath.SkipDir
		}
		if strings.Count(strings.TrimPrefix(p, project), "/") >= nestedMaxDepth {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

const whyHooksPath = "git runs the programs in it as hooks (the repository's core.hooksPath names it, as husky's .husky does)"

type hooksKey struct {
	cfg    string
	mod    time.Time
	size   int64
	wtMod  time.Time // .git/config.worktree's, zero when absent
	wtSize int64
}

var hooksCache sync.Map // hooksKey -> repoConfig

// mayNameHooksPath reports whether the config file cfg may set
// core.hooksPath, so that asking git is needed (a process start, on every
// sandboxed session's start). A variable name in git's configuration has
// no escapes and no line continuations (letters, digits and '-' only,
// compared without case), so a file that sets core.hooksPath contains
// "hookspath" in some case; one without it, git answers nothing for —
// unless it includes another file ("include" in some case: include.path,
// includeIf), which git is then asked to read too. An unreadable or very
// large file is left to git.
func mayNameHooksPath(cfg string) bool {
	f, err := os.Open(cfg)
	if err != nil {
		return true
	}
	defer f.Close()
	const max = 1 << 20
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || len(b) > max {
		return true
	}
	l := bytes.ToLower(b)
	return bytes.Contains(l, []byte("hookspath")) || bytes.Contains(l, []byte("include"))
}

// HooksDir returns the directory the project repository's own
// configuration (.git/config and .git/config.worktree, with the files they
// include) names in
// core.hooksPath, absolute and clean, when it lies where a session may
// write (inside the project, below its root, such as husky's .husky/_):
// git runs the programs there as hooks, as it does those in .git/hooks.
// "" when there is none. The answer is cached per state of the config
// file.
func HooksDir(project string) string {
	return repoConfigOf(project).hooks
}

// IncludedConfigs returns the files the project repository's .git/config
// includes (include.path, includeIf.*.path, and what those include),
// absolute and clean, whether they exist or not: git trusts them as it
// trusts .git/config (a core.fsmonitor or core.hooksPath there is obeyed),
// so they are protected like it. Cached with HooksDir.
func IncludedConfigs(project string) []string {
	return repoConfigOf(project).includes
}

// repoConfig is what HooksDir and IncludedConfigs read of a repository's
// configuration.
type repoConfig struct {
	hooks    string
	includes []string
}

func repoConfigOf(project string) repoConfig {
	if project == "" || !path.IsAbs(project) || path.Clean(project) == "/" {
		return repoConfig{}
	}
	project = path.Clean(project)
	cfg := path.Join(project, ".git", "config")
	fi, err := os.Stat(cfg)
	if err != nil || !fi.Mode().IsRegular() {
		return repoConfig{}
	}
	k := hooksKey{cfg: cfg, mod: fi.ModTime(), size: fi.Size()}
	// With extensions.worktreeConfig git reads config.worktree too, after
	// config (read here whether or not the extension is on: protecting
	// more is safe).
	wt := path.Join(project, ".git", "config.worktree")
	wfi, werr := os.Stat(wt)
	files := []string{cfg}
	if werr == nil && wfi.Mode().IsRegular() {
		k.wtMod, k.wtSize = wfi.ModTime(), wfi.Size()
		files = append(files, wt)
	}
	if v, ok := hooksCache.Load(k); ok {
		return v.(repoConfig)
	}
	var rc repoConfig
	hp := ""
	for _, cfg := range files {
		h, incs := readRepoConfig(project, cfg)
		if h != "" {
			hp = h // config.worktree's wins, as in git
		}
		for _, inc := range incs {
			if !slices.Contains(rc.includes, inc) {
				rc.includes = append(rc.includes, inc)
			}
		}
	}
	switch {
	case hp == "":
	case strings.HasPrefix(hp, "/"):
		hp = path.Clean(hp)
	default:
		hp = path.Join(project, hp)
	}
	if hp != "" && !strings.HasPrefix(hp, project+"/") {
		hp = "" // outside the project (~/.githooks, /dev/null): not the session's to write
	}
	rc.hooks = hp
	hooksCache.Store(k, rc)
	return rc
}

// readRepoConfig returns the core.hooksPath the config file cfg sets (as
// written) and the files it includes, asking git only when the file may
// name either (mayNameHooksPath).
func readRepoConfig(project, cfg string) (hp string, includes []string) {
	if mayNameHooksPath(cfg) {
		// --file --includes: this file and what it includes, nothing of
		// the repository run (in the work tree, so that includeIf's
		// gitdir conditions are git's own); a git no session could have
		// planted (this runs unconfined, in the privileged side, when a
		// session starts)
		if git, err := TrustedProgram("git", SessionWritable(project)); err == nil {
			cmd := exec.Command(git, "config", "--file", cfg, "--includes", "--get", "core.hooksPath")
			cmd.Dir = project
			out, _ := cmd.Output()
			hp = strings.TrimSpace(string(out))
			cmd = exec.Command(git, "config", "--file", cfg, "--includes", "--show-origin", "-z", "--get-regexp", `^include(if\..*)?\.path$`)
			cmd.Dir = project
			out, _ = cmd.Output()
			includes = parseIncludes(out)
		}
	}
	return hp, includes
}

// parseIncludes reads `git config --show-origin -z --get-regexp` output
// ("file:ORIGIN\0KEY\nVALUE\0" records) of include paths: each is
// resolved as git does, "~/" against $HOME, a relative one against its
// origin file's directory.
func parseIncludes(out []byte) []string {
	var list []string
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		origin, ok := strings.CutPrefix(f[i], "file:")
		if !ok {
			continue
		}
		_, v, ok := strings.Cut(f[i+1], "\n")
		if !ok || v == "" {
			continue
		}
		switch {
		case strings.HasPrefix(v, "~/"):
			home, err := os.UserHomeDir()
			if err != nil {
				continue
			}
			v = path.Join(home, v[2:])
		case !path.IsAbs(v):
			v = path.Join(path.Dir(origin), v)
		}
		v = path.Clean(v)
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
