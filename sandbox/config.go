package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/guardsh/guardsh/protect"
)

// Backend names, in the order guardsh tries them.
const (
	BackendLandlock = "landlock" // Landlock + seccomp, no namespaces required (Linux)
	BackendBwrap    = "bwrap"    // bubblewrap + seccomp (Linux fallback)
	// BackendContainer is Landlock + seccomp without any namespace, where
	// none can be made (a container: no CAP_SYS_ADMIN, user namespaces
	// off). Writes outside the writable roots and the network are refused
	// by the kernel as at the full level; the protected paths inside the
	// project cannot be made read-only, so the privileged side guards them
	// instead (Integrity: checked and restored before an escalated command
	// runs and when the session ends).
	BackendContainer = "container"
	BackendSeatbelt  = "seatbelt" // sandbox-exec with a generated profile (macOS)
	BackendOff       = "off"      // no sandbox: only by the named switch
)

// Config is the session sandbox: what confined processes may write and
// whether they may use the network. The zero value confines everything to
// nothing; use NewConfig for the defaults.
type Config struct {
	// Project is the project root (absolute, symlinks resolved). "" or "/"
	// grants no project write.
	Project string `json:"project"`
	// TmpDir is the session's private temporary directory, exported to
	// confined processes as TMPDIR.
	TmpDir string `json:"tmpdir"`
	// SharedTmp makes /tmp (and /var/tmp) writable too.
	SharedTmp bool `json:"shared_tmp"`
	// Writable are further directories or files confined processes may
	// write (GUARDSH_SANDBOX_WRITE, colon separated).
	Writable []string `json:"writable,omitempty"`
	// Protected are paths that stay read-only even inside a writable tree:
	// package protect's list anchored for this session (git's config,
	// hooks and indirection files, .gitmodules, shell rc files, ~/.ssh,
	// guardsh's configuration).
	Protected []string `json:"protected,omitempty"`
	// Network allows sockets of every family (escalations only).
	Network bool `json:"network,omitempty"`
	// Unix allows creating AF_UNIX sockets even where Landlock cannot
	// restrict connect(2) to them by path (ABI < 9).
	Unix bool `json:"unix,omitempty"`
	// NoLoopback keeps network sockets off altogether instead of giving
	// confined processes a private network namespace with loopback
	// (GUARDSH_SANDBOX_NETNS=0).
	NoLoopback bool `json:"no_loopback,omitempty"`
}

// Rights are what a human approved beyond the session sandbox for one
// command.
type Rights struct {
	Network bool     `json:"network,omitempty"`
	Writes  []string `json:"writes,omitempty"`
}

// With returns c extended by r. A write right on a path that does not
// exist yet (a file the command will create) becomes one on its nearest
// existing parent directory: the kernel can only attach rules to what
// exists, so an approved new file outside widens to its directory for
// that one command.
func (c Config) With(r Rights) Config {
	c.Network = c.Network || r.Network
	c.Writable = append([]string{}, c.Writable...)
	for _, w := range r.Writes {
		if !filepath.IsAbs(w) {
			continue
		}
		w = canon(w)
		for w != "/" {
			if _, err := os.Lstat(w); err == nil {
				break
			}
			w = canon(filepath.Dir(w))
		}
		if w != "/" {
			c.Writable = append(c.Writable, w)
		}
	}
	return c
}

// NewConfig returns the default session sandbox for project (the user's
// home is home; neither it, its ancestors nor / count as a project): the
// project, tmpDir and /tmp writable; package protect's things protected. The
// environment can adjust it: GUARDSH_SANDBOX_WRITE (extra writable paths,
// colon separated), GUARDSH_SANDBOX_TMP=0 (keep /tmp read-only),
// GUARDSH_SANDBOX_UNIX=1 (allow AF_UNIX sockets on old kernels),
// GUARDSH_SANDBOX_NETNS=0 (no private network namespace: sockets off).
func NewConfig(project, tmpDir, home string, getenv func(string) string) Config {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := Config{Project: canon(project), TmpDir: canon(tmpDir), SharedTmp: getenv("GUARDSH_SANDBOX_TMP") != "0"}
	if c.Project == "/" || home != "" && within(canon(home), c.Project) {
		// Neither / nor the home directory (nor an ancestor of it) is a
		// project: a writable home would let a command plant programs and
		// start-up files (~/.local/bin, ~/.config/autostart, systemd user
		// units) that run later, outside the sandbox.
		c.Project = ""
	}
	for _, w := range filepath.SplitList(getenv("GUARDSH_SANDBOX_WRITE")) {
		if filepath.IsAbs(w) && canon(w) != "/" {
			c.Writable = append(c.Writable, canon(w))
		}
	}
	c.Unix = getenv("GUARDSH_SANDBOX_UNIX") == "1"
	c.NoLoopback = getenv("GUARDSH_SANDBOX_NETNS") == "0"
	// The protected things (package protect) are kept read-only where they
	// exist inside a writable root; those missing are watched.
	w := protect.Where{Project: c.Project, Home: canon(home)}
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		w.ConfigHome = canon(x)
	}
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		w.StateHome = canon(x)
	}
	if x := getenv("GUARDSH_CONFIG"); filepath.IsAbs(x) {
		w.Config = canon(x)
	}
	if x := getenv("GUARDSH_LAUNCH_SHIM"); filepath.IsAbs(x) {
		w.Shim = canon(x)
	}
	c.Protected = protect.Paths(w)
	if c.Project != "" {
		// the git directories of existing submodules (three levels): the
		// user's git status in the project reads their config and hooks
		mods := filepath.Join(c.Project, ".git", "modules")
		for depth := 0; depth < 3; depth++ {
			dirs, _ := filepath.Glob(filepath.Join(mods, "*"))
			for _, d := range dirs {
				if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
					continue
				}
				for _, p := range []string{"hooks", "config", "commondir", "config.worktree"} {
					q := filepath.Join(d, p)
					if _, err := os.Lstat(q); err == nil && !slices.Contains(c.Protected, q) {
						c.Protected = append(c.Protected, q)
					}
				}
			}
			mods = filepath.Join(mods, "*", "modules")
		}
	}
	return c
}

// WritableRoots lists every tree confined processes may write, absolute
// and deduplicated.
func (c Config) WritableRoots() []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	add(c.Project)
	add(c.TmpDir)
	if c.SharedTmp {
		add("/tmp")
		add("/var/tmp")
	}
	for _, w := range c.Writable {
		add(w)
	}
	return out
}

// ProtectedInside lists the protected paths that exist and lie inside a
// writable root: the ones the backend must cover with a read-only mount.
// Parents come before children.
func (c Config) ProtectedInside() []string {
	var out []string
	for _, p := range c.Protected {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		for _, r := range c.WritableRoots() {
			if within(p, r) {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// ProtectedAncestors lists the directories between the outermost writable
// root and each protected path inside it (writable roots left out) (ProtectedInside), parents first: backends
// make each a mount point of its own (bound on itself, writable) before
// the read-only mounts, so that none of them can be renamed away and
// replaced by a directory holding a protected path of the process's
// choosing (rename(2) of a mount point fails with EBUSY). A directory
// inside a protected path is left out (a writable bind there would lift
// the read-only mount), and so are the writable roots and GitDir, which
// are mount points already.
func (c Config) ProtectedAncestors() []string {
	inside := c.ProtectedInside()
	roots := c.WritableRoots()
	git := c.GitDir()
	seen := map[string]bool{}
	var out []string
	for _, p := range inside {
		// up to the outermost writable root: a project in /tmp is itself
		// below a writable root, and renaming its parent would swap it
		root := ""
		for _, r := range roots {
			if within(p, r) && (root == "" || len(r) < len(root)) {
				root = r
			}
		}
		if root == "" || root == "/" {
			continue
		}
		for a := filepath.Dir(p); a != root && within(a, root) && a != "/"; a = filepath.Dir(a) {
			if seen[a] || a == git || slices.Contains(roots, a) {
				continue
			}
			seen[a] = true
			covered := false
			for _, q := range inside {
				if within(a, q) {
					covered = true
					break
				}
			}
			if !covered {
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ProtectedMissing lists the protected paths inside a writable root that
// do not exist: no read-only mount can cover them, so a confined process
// could create them. The privileged side reports any that appear.
func (c Config) ProtectedMissing() []string {
	var out []string
	for _, p := range c.Protected {
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		for _, r := range c.WritableRoots() {
			if within(p, r) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// GitDir returns the project's .git directory when it is a real directory
// inside a writable root; backends make it a mount point of its own so it
// cannot be renamed away and replaced.
func (c Config) GitDir() string {
	if c.Project == "" {
		return ""
	}
	g := filepath.Join(c.Project, ".git")
	if fi, err := os.Lstat(g); err == nil && fi.IsDir() {
		return g
	}
	return ""
}

func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// canon makes p absolute and resolves symlinks where it can.
func canon(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}

// Canon makes p absolute and resolves symlinks where it can.
func Canon(p string) string { return canon(p) }

// ProjectRoot returns the project root for a session started in dir: the
// top of the enclosing git work tree, or dir itself.
func ProjectRoot(dir string) string {
	dir = canon(dir)
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == filepath.Dir(d) {
			return dir
		}
	}
}

// ErrUnavailable is returned when a backend cannot run on this system.
var ErrUnavailable = errors.New("sandbox backend unavailable")
