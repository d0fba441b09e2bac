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
	for _, e := range Entries {
		var base string
		switch e.Base {
		case Project:
			base = w.Project
		case Home:
			base = w.Home
		case ConfigHome:
			base = w.ConfigHome
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
	cfg  string
	mod  time.Time
	size int64
}

var hooksCache sync.Map // hooksKey -> string

// mayNameHooksPath reports whether the config file cfg may set
// core.hooksPath, so that asking git is needed (a process start, on every
// sandboxed session's start). A variable name in git's configuration has
// no escapes and no line continuations (letters, digits and '-' only,
// compared without case), so a file that sets core.hooksPath contains
// "hookspath" in some case; one without it, git answers nothing for. An
// unreadable or very large file is left to git.
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
	return bytes.Contains(bytes.ToLower(b), []byte("hookspath"))
}

// HooksDir returns the directory the project repository's own
// configuration (.git/config) names in core.hooksPath, absolute and clean,
// when it lies where a session may write (inside the project, below its
// root, such as husky's .husky/_): git runs the programs there as hooks,
// as it does those in .git/hooks. "" when there is none. The answer is
// cached per state of the config file.
func HooksDir(project string) string {
	if project == "" || !path.IsAbs(project) || path.Clean(project) == "/" {
		return ""
	}
	project = path.Clean(project)
	cfg := path.Join(project, ".git", "config")
	fi, err := os.Stat(cfg)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	k := hooksKey{cfg, fi.ModTime(), fi.Size()}
	if v, ok := hooksCache.Load(k); ok {
		return v.(string)
	}
	hp := ""
	if mayNameHooksPath(cfg) {
		// --file: this one file, no includes, nothing of the repository run
		out, _ := exec.Command("git", "config", "--file", cfg, "--get", "core.hooksPath").Output()
		hp = strings.TrimSpace(string(out))
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
	hooksCache.Store(k, hp)
	return hp
}
