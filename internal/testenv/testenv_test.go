package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/sandbox"
)

func TestMain(m *testing.M) { Main(m) }

// TestPinned: after Main, HOME and the XDG directories are this process's
// own, beyond the shared temporary trees, and the session variables are
// gone.
func TestPinned(t *testing.T) {
	if Dir == "" {
		t.Fatal("Main set no directory")
	}
	for k, sub := range map[string]string{"HOME": "home", "XDG_STATE_HOME": "state", "XDG_CACHE_HOME": "cache",
		"XDG_CONFIG_HOME": "config", "XDG_RUNTIME_DIR": "run"} {
		if got, want := os.Getenv(k), filepath.Join(Dir, sub); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for _, k := range sessionVars {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%q survived", k, v)
		}
	}
}

// TestOutside: the outside directory lies beyond every root the default
// sandbox configuration makes writable, for a project and a session
// temporary directory made the usual way, and HOME anywhere.
func TestOutside(t *testing.T) {
	out := Outside(t)
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
		t.Fatalf("outside: %v", err)
	}
	c := sandbox.NewConfig(t.TempDir(), t.TempDir(), os.Getenv("HOME"), func(string) string { return "" })
	for _, r := range c.WritableRoots() {
		if out == r || strings.HasPrefix(out, r+"/") {
			t.Errorf("outside directory %s is inside the writable root %s", out, r)
		}
	}
}

// TestSourceKey: the key changes with a file's content and ignores tests.
func TestSourceKey(t *testing.T) {
	root := t.TempDir()
	write := func(name, s string) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("main.go", "package main\n")
	k1, err := sourceKey(root, "cmd/x")
	if err != nil {
		t.Fatal(err)
	}
	write("main_test.go", "package main\n")
	write("testdata/a.txt", "a")
	if k2, _ := sourceKey(root, "cmd/x"); k2 != k1 {
		t.Error("a test file or testdata changed the key")
	}
	write("main.go", "package main // changed\n")
	if k3, _ := sourceKey(root, "cmd/x"); k3 == k1 {
		t.Error("a changed source file kept the key")
	}
}
