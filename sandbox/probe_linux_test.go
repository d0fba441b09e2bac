//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
	"golang.org/x/sys/unix"
)

// init runs the confining stage when this test binary is one (the probes
// start it so). In init, not TestMain: during initialisation the main
// goroutine is locked to the main thread, whose capabilities and
// /proc/self/status are the process's; from TestMain the stage could run
// on another thread, drop that thread's capabilities only, and the probe
// then read the main thread's (seen under -race on a loaded machine:
// "CapEff=1fffeffffff" in TestProbeBackends/bwrap).
func init() { Stage() }

func TestMain(m *testing.M) {
	forgedInherited()
	if addr := os.Getenv("GUARDSH_TEST_DIAL"); addr != "" {
		// Helper command for the escalation tests: connect and say hello.
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			os.Exit(3)
		}
		fmt.Fprintln(c, "hello")
		c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	testenv.Main(m)
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (CI runs as root)")
	}
}

func TestProbeBackends(t *testing.T) {
	needRoot(t)
	for _, b := range []string{BackendLandlock, BackendBwrap} {
		t.Run(b, func(t *testing.T) {
			if b == BackendLandlock && LandlockABI() < minLandlockABI {
				t.Skip("no Landlock")
			}
			if _, err := exec.LookPath("bwrap"); b == BackendBwrap && err != nil {
				t.Skip("no bwrap")
			}
			c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
			r := Probe(b, c)
			for _, ch := range r.Checks {
				t.Logf("%v %s: %s", ch.OK, ch.Name, ch.Detail)
			}
			if !r.OK {
				t.Fatalf("probe %s failed: %s", b, r.Err)
			}
		})
	}
}

func TestCachedProbe(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	// /tmp is writable in the sandbox: the cache must live elsewhere.
	cache := testenv.Outside(t)
	t.Setenv("XDG_CACHE_HOME", cache)
	c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
	first := CachedProbe(BackendLandlock, c)
	second := CachedProbe(BackendLandlock, c)
	if !first.OK || first.Cached || !second.OK || !second.Cached {
		t.Fatalf("first ok=%v cached=%v, second ok=%v cached=%v", first.OK, first.Cached, second.OK, second.Cached)
	}
	c.Network = true // other settings: probed afresh
	if r := CachedProbe(BackendLandlock, c); r.Cached {
		t.Error("a different configuration reused the cached result")
	}
	// A cache dir inside a writable root is used only with a key (the
	// user's kernel keyring): see TestProbeCacheForged.
	t.Setenv("XDG_CACHE_HOME", c.TmpDir)
	t.Setenv("XDG_RUNTIME_DIR", "")
	dir, key := probeCacheDir(c)
	if dir != "" && key == nil {
		for _, r := range c.WritableRoots() {
			if within(dir, r) || within(r, dir) {
				t.Errorf("probe cache dir %s is inside writable root %s and has no key", dir, r)
			}
		}
	}
}

// TestProbeCacheForged: with the user's cache directory inside a writable
// root (HOME under /tmp) the probe cache lives there authenticated: a
// second session uses it, but a file a confined command wrote or changed
// there (a passing result of its own, a copy under another settings'
// name, a symbolic link to elsewhere) is not believed: the probe runs
// afresh.
func TestProbeCacheForged(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(c.TmpDir, "cache")) // inside a writable root
	t.Setenv("XDG_RUNTIME_DIR", "")
	if probeCacheKey() == nil {
		t.Skip("no kernel keyring here (keyctl refused)")
	}
	path, key := probeCachePath(BackendLandlock, c)
	if path == "" || key == nil {
		t.Fatalf("no authenticated cache inside the writable root: %q", path)
	}
	first := CachedProbe(BackendLandlock, c)
	second := CachedProbe(BackendLandlock, c)
	if !first.OK || first.Cached || !second.OK || !second.Cached {
		t.Fatalf("first ok=%v cached=%v, second ok=%v cached=%v", first.OK, first.Cached, second.OK, second.Cached)
	}
	valid, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	forged := `{"backend":"landlock","abi":7,"ok":true,"checks":[{"name":"forged","ok":true}]}`
	other := c
	other.Network = true
	otherPath, _ := probeCachePath(BackendLandlock, other)
	outside := filepath.Join(testenv.Outside(t), "planted.json")
	os.WriteFile(outside, valid, 0o644)
	for _, tc := range []struct {
		name  string
		write func()
		c     Config
	}{
		{"plain result, no MAC", func() { os.WriteFile(path, []byte(forged), 0o644) }, c},
		{"forged result, the old MAC", func() {
			os.WriteFile(path, []byte(strings.Replace(string(valid), `"result":{`, `"result":{"forged":1,`, 1)), 0o644)
		}, c},
		{"valid file copied to another settings' name", func() { os.WriteFile(otherPath, valid, 0o644) }, other},
		{"symbolic link to a valid file elsewhere", func() { os.Remove(path); os.Symlink(outside, path) }, c},
	} {
		CachedProbe(BackendLandlock, c) // a valid cache again
		tc.write()
		if r := CachedProbe(BackendLandlock, tc.c); r.Cached {
			t.Errorf("%s: the cache was believed", tc.name)
		}
		os.Remove(path)
		os.Remove(otherPath)
	}
}

// TestAttackProbeCacheOtherSession: a cache directory outside this
// session's writable roots may lie inside another session's (a session in
// the home directory, or one given GUARDSH_SANDBOX_WRITE=~/.cache): a
// command of that session writes a result there that this session must
// not believe unauthenticated.
func TestAttackProbeCacheOtherSession(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	if probeCacheKey() == nil {
		t.Skip("no kernel keyring here (keyctl refused)")
	}
	home := testenv.Outside(t)
	cache := filepath.Join(home, ".cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("XDG_RUNTIME_DIR", "")
	a := NewConfig(t.TempDir(), t.TempDir(), "", nil) // the cache is outside its roots
	b := a
	b.Project = home // the other session: its project holds the cache
	pathA, _ := probeCachePath(BackendLandlock, a)
	pathB, _ := probeCachePath(BackendLandlock, b)
	if pathA == "" || pathB == "" || filepath.Dir(pathA) != filepath.Dir(pathB) {
		t.Skipf("the two sessions do not share a cache directory: %q %q", pathA, pathB)
	}
	if !within(pathA, b.Project) {
		t.Fatalf("%s is not inside the other session's writable root %s", pathA, b.Project)
	}
	// What a command of session b writes (it knows the name: the file of
	// an earlier session a, listed in the directory).
	os.MkdirAll(filepath.Dir(pathA), 0o700)
	forged := `{"backend":"landlock","abi":7,"ok":true,"checks":[{"name":"forged","ok":true}]}`
	if err := os.WriteFile(pathA, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := CachedProbe(BackendLandlock, a); r.Cached {
		t.Errorf("session a believed an unauthenticated result another session's command could write")
	}
}

// TestAttackProbeCacheFIFO: a command that may write the cache directory
// (HOME under /tmp) replaces a cache file by a FIFO: the next session's
// start must not block opening it (it probes afresh).
func TestAttackProbeCacheFIFO(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(c.TmpDir, "cache")) // inside a writable root
	t.Setenv("XDG_RUNTIME_DIR", "")
	if probeCacheKey() == nil {
		t.Skip("no kernel keyring here (keyctl refused)")
	}
	path, _ := probeCachePath(BackendLandlock, c)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan ProbeResult, 1)
	go func() { done <- CachedProbe(BackendLandlock, c) }()
	select {
	case r := <-done:
		if r.Cached || !r.OK {
			t.Errorf("cached=%v ok=%v: want a fresh passing probe", r.Cached, r.OK)
		}
	case <-time.After(60 * time.Second):
		// unblock the open so that the test binary can end
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("the session's start blocked on a FIFO planted as a cache file")
	}
}
