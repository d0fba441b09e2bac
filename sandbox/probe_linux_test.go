//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Stage()
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
	os.Exit(m.Run())
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
	home, _ := os.UserHomeDir()
	cache, err := os.MkdirTemp(home, "guardsh-cache-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(cache)
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
	// A cache dir inside a writable root is never used: the cache goes to
	// the next candidate outside every writable root (/run for root).
	t.Setenv("XDG_CACHE_HOME", c.TmpDir)
	CachedProbe(BackendLandlock, c)
	CachedProbe(BackendLandlock, c)
	if m, _ := filepath.Glob(filepath.Join(c.TmpDir, "guardsh", "probe-*")); len(m) > 0 {
		t.Errorf("cache written inside a writable root: %v", m)
	}
	dir := ProbeCacheDir(c)
	for _, r := range c.WritableRoots() {
		if dir != "" && (within(dir, r) || within(r, dir)) {
			t.Errorf("probe cache dir %s is inside writable root %s", dir, r)
		}
	}
}
