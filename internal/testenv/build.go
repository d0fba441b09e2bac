package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildMu   sync.Mutex
	buildBins = map[string]string{}
)

// Guardsh returns the path of a guardsh binary built from this module's
// current source. It is built once per module content: the first test
// process of a `go test ./...` run builds it under os.TempDir() in a
// directory named for the hash of the module's non-test files, the Go
// version and the build settings, holding a file lock, and every other
// test package (and later run) reuses it while its content is unchanged.
func Guardsh(t testing.TB) string {
	t.Helper()
	return Binary(t, "cmd/guardsh")
}

// Binary is Guardsh for any main package of the module (pkg relative to
// the module root, e.g. "cmd/guardsh-agent").
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := buildBins[pkg]; ok {
		return b
	}
	start := time.Now()
	b, built, err := build(pkg)
	if err != nil {
		t.Fatalf("building %s: %v", pkg, err)
	}
	if built {
		t.Logf("testenv: built %s in %v: %s", pkg, time.Since(start).Round(time.Millisecond), b)
	} else {
		t.Logf("testenv: reused %s: %s", pkg, b)
	}
	buildBins[pkg] = b
	return b
}

// ModuleRoot returns the directory holding the module's go.mod, found
// from the working directory (go test runs each package in its source
// directory).
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		d = p
	}
}

// sourceKey hashes what the binary is made of: every file of the module
// outside .git, testdata directories and _test.go files (names and
// contents), the toolchain, and the settings the go command reads from
// the environment.
func sourceKey(root, pkg string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", runtime.Version(), runtime.GOOS, runtime.GOARCH, pkg)
	for _, v := range []string{"GOFLAGS", "CGO_ENABLED", "GOAMD64", "GOEXPERIMENT", "GOTOOLCHAIN", "CC"} {
		fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == ".git" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00", rel)
		_, err = io.Copy(h, f)
		h.Write([]byte{0})
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// build builds pkg into the shared directory for its source key, or
// reuses what another test process built there (built false).
func build(pkg string) (bin string, built bool, err error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", false, err
	}
	key, err := sourceKey(root, pkg)
	if err != nil {
		return "", false, err
	}
	parent := filepath.Join(os.TempDir(), fmt.Sprintf("guardsh-test-bin-%d", os.Geteuid()))
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", false, err
	}
	if fi, err := os.Lstat(parent); err != nil || !fi.IsDir() || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
		return "", false, fmt.Errorf("%s is not a directory of this user", parent)
	}
	dir := filepath.Join(parent, key)
	bin = filepath.Join(dir, filepath.Base(pkg))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", false, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", false, err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// The directory is under /tmp, which sandboxed commands may write:
	// a binary is reused only while its content is what was built.
	if sum, err := os.ReadFile(bin + ".sha256"); err == nil && fileSum(bin) == string(sum) {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: keep it from pruning
		return bin, false, nil
	}
	prune(parent, key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, err
	}
	tmp := bin + ".tmp"
	cmd := exec.Command("go", "build", "-o", tmp, "./"+pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", false, fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(bin+".sha256", []byte(fileSum(tmp)), 0o600); err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", false, err
	}
	return bin, true, nil
}

// fileSum is the hex SHA-256 of a file's content, "" when unreadable.
func fileSum(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// prune removes the binaries of other source keys not used for a day.
func prune(parent, keep string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".lock")
		if name == keep {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}
