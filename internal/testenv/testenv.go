// Package testenv gives guardsh's tests an environment of their own, so
// that they pass wherever the invoking user's HOME is and never touch that
// user's state:
//
//   - Main pins HOME, XDG_STATE_HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME,
//     XDG_DATA_HOME and XDG_RUNTIME_DIR (the probe cache's fallback before
//     /run) to a fresh directory for the whole test process (every
//     in-process runner and every spawned binary that inherits the
//     environment writes its audit log, probe cache and configuration
//     there), and drops the invoking session's guardsh settings;
//   - Outside makes a directory beyond every root the sandbox makes
//     writable by default, for the attack tests' "outside";
//   - Guardsh builds cmd/guardsh once per module content and shares the
//     binary between the test packages of one `go test` run.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// EnvOutside names a directory the tests may use as the parent of their
// "outside" directories when the account's home directory cannot serve
// (it lies under a temporary directory or is not writable).
const EnvOutside = "GUARDSH_TEST_OUTSIDE"

// sharedTmp are the trees the sandbox makes writable for every session by
// default (sandbox.NewConfig with GUARDSH_SANDBOX_TMP unset), besides the
// project and the session's own $TMPDIR.
func sharedTmp() []string {
	roots := []string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", os.TempDir()}
	for _, r := range roots[:len(roots):len(roots)] {
		if c, err := filepath.EvalSymlinks(r); err == nil && c != r {
			roots = append(roots, c)
		}
	}
	return roots
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// underSharedTmp reports whether dir (absolute, symlinks resolved) lies in
// a tree the sandbox makes writable by default.
func underSharedTmp(dir string) bool {
	for _, r := range sharedTmp() {
		if within(dir, r) {
			return true
		}
	}
	return false
}

// envDir passes Main's directory to the test binary's own helper
// processes (a test re-executing os.Args[0]): they use it instead of
// making one each that, ending with os.Exit, they would leave behind.
const envDir = "GUARDSH_TESTENV_DIR"

var (
	baseOnce  sync.Once
	baseDir   string
	baseOwned bool // made by this process: Main removes it
	baseErr   error
)

// outsideBase is a directory of this process beyond every shared temporary
// tree: under $GUARDSH_TEST_OUTSIDE, else under the account's home
// directory as the password database names it (not $HOME, which the
// invoking user may point anywhere and Main replaces), made afresh and
// removed by Main when the tests end.
func outsideBase() (string, error) {
	baseOnce.Do(func() {
		if d := os.Getenv(envDir); d != "" {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				baseDir = d
				if underSharedTmp(d) {
					baseErr = fmt.Errorf("no directory outside the sandbox's writable roots for the tests (set %s to one)", EnvOutside)
				}
				return
			}
		}
		var parents []string
		if d := os.Getenv(EnvOutside); d != "" {
			parents = append(parents, d)
		}
		if u, err := user.Current(); err == nil && u.HomeDir != "" {
			parents = append(parents, u.HomeDir)
		}
		var why []string
		for _, p := range parents {
			c, err := filepath.EvalSymlinks(p)
			if err != nil || !filepath.IsAbs(c) || c == "/" {
				why = append(why, fmt.Sprintf("%s: not an existing absolute directory", p))
				continue
			}
			if underSharedTmp(c) {
				why = append(why, fmt.Sprintf("%s: under a temporary directory the sandbox leaves writable", p))
				continue
			}
			d, err := os.MkdirTemp(c, ".guardsh-test-")
			if err != nil {
				why = append(why, err.Error())
				continue
			}
			baseDir, baseOwned = d, true
			return
		}
		baseErr = fmt.Errorf("no directory outside the sandbox's writable roots for the tests (set %s to one): %s",
			EnvOutside, strings.Join(why, "; "))
	})
	return baseDir, baseErr
}

// Outside returns a fresh directory, removed when t ends, that lies beyond
// every root the sandbox makes writable by default: not under /tmp,
// /var/tmp, /dev/shm or os.TempDir(), nor under any project or $HOME a
// test makes (those live under t.TempDir or Main's directory). The test
// is skipped, with the reason, where no such directory can be made.
func Outside(t testing.TB) string {
	t.Helper()
	base, err := outsideBase()
	if err != nil {
		t.Skip(err)
	}
	d, err := os.MkdirTemp(base, "outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(d) })
	return d
}

// removeAll removes dir even where a test left read-only directories.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// goVars are the go command's settings that default to places under HOME
// or XDG_CACHE_HOME/XDG_CONFIG_HOME: Main sets them to their real values so
// that `go` run by a test keeps using the real build and module caches.
var goVars = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}

// sessionVars are the variables through which the invoking shell, or a
// guardsh session the tests run in, would configure the guardsh under
// test: its mode, configuration file, project, audit log, sandbox
// settings and the session's own channels. Main unsets them. The tests'
// own knobs (GUARDSH_SANDBOX to pick a backend, GUARDSH_TEST_*, the
// *_MD generators, GUARDSH_CORPUS) stay.
var sessionVars = []string{"GUARDSH_MODE", "GUARDSH_CONFIG", "GUARDSH_PROJECT", "GUARDSH_TRUST", "GUARDSH_AUDIT",
	"GUARDSH_MODEL", "GUARDSH_AGENT", "GUARDSH_HOOK_REWRITE", "GUARDSH_ENV_SCRUBBED", "GUARDSH_LAUNCH_SHIM",
	"GUARDSH_LAUNCH_ROUTE", "GUARDSH_APPROVAL_FD",
	"GUARDSH_SANDBOX_DISABLE", "GUARDSH_SANDBOX_WRITE", "GUARDSH_SANDBOX_TMP", "GUARDSH_SANDBOX_UNIX",
	"GUARDSH_SANDBOX_RUN", "GUARDSH_SANDBOX_FILES", "GUARDSH_SANDBOX_BROKER_FD"}

// Main runs the tests of a package in a pinned environment (see the
// package doc) and exits with their status. A package's TestMain calls it
// after dispatching any helper process it re-executes itself as.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := pin(); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 2
	}
	defer func() {
		if baseOwned {
			removeAll(baseDir)
		}
	}()
	return m.Run()
}

// Dir is the directory Main made for this process's HOME and XDG
// directories ("" before Main).
var Dir string

// pin sets the environment Main promises.
func pin() error {
	if d := os.Getenv(envDir); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			// A helper process of a pinned test process: the
			// environment is the one the test gave it.
			Dir = d
			return nil
		}
	}
	if out, err := exec.Command("go", append([]string{"env"}, goVars...)...).Output(); err == nil {
		vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, v := range goVars {
			if i < len(vals) && vals[i] != "" {
				os.Setenv(v, vals[i])
			}
		}
	}
	for _, k := range sessionVars {
		os.Unsetenv(k)
	}
	base, err := outsideBase()
	if err != nil {
		// No place outside the temporary trees: the process's own
		// directories go under os.TempDir (Outside then skips).
		if base == "" {
			if base, err = os.MkdirTemp("", "guardsh-test-"); err != nil {
				return err
			}
			baseDir, baseOwned = base, true
		}
	}
	Dir = base
	os.Setenv(envDir, base)
	for k, sub := range map[string]string{"HOME": "home", "XDG_STATE_HOME": "state", "XDG_CACHE_HOME": "cache",
		"XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_RUNTIME_DIR": "run"} {
		d := filepath.Join(base, sub)
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		os.Setenv(k, d)
	}
	if os.Getenv("HOME") == "" {
		return errors.New("HOME not set")
	}
	return nil
}
