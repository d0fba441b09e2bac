package guardsh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealPath: paths resolved as the kernel does, against a real tree
// and the links a checked script made; compared with what the kernel
// itself opens (os.Stat of the same spelling) where the path exists.
func TestRealPath(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(d+"/c/f", []byte("x"), 0o644)
	os.Symlink(d+"/c", d+"/a/b/toc")    // absolute
	os.Symlink("../../c", d+"/a/b/rel") // relative: d/c
	os.Symlink("loop2", d+"/loop1")
	os.Symlink("loop1", d+"/loop2")
	links := map[string]string{d + "/planned": "/", d + "/unknown": unknownLink}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{d + "/a/b/toc/f", d + "/c/f", true},
		{d + "/a/b/rel/f", d + "/c/f", true},
		{d + "/a/b/toc/../a", d + "/a", true}, // ".." of the target: d/c/.. = d
		{d + "/a/b/../b/./toc", d + "/c", true},
		{d + "/planned/etc/passwd", "/etc/passwd", true},
		{d + "/unknown/x", "", false},
		{d + "/loop1/x", "", false},
		{"/proc/self/root" + d + "/c/f", d + "/c/f", true},
		{"/proc/thread-self/root/etc", "/etc", true},
		{"/proc/self/cwd/f", d + "/c/f", true},
		{"/proc/self/fd/1", "/proc/self/fd/1", true},
		{"/dev/stdout", "/dev/stdout", true},
		{"relative", "", false},
	}
	for _, tt := range tests {
		got, ok := realPath(tt.in, d+"/c", links)
		if got != tt.want || ok != tt.ok {
			t.Errorf("realPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if !tt.ok || strings.Contains(tt.in, "/planned/") || strings.HasPrefix(tt.in, "/proc/") || strings.HasPrefix(tt.in, "/dev/") {
			continue
		}
		// the kernel's own reading of the same spelling
		a, err1 := os.Stat(tt.in)
		b, err2 := os.Stat(tt.want)
		if err1 != nil || err2 != nil || !os.SameFile(a, b) {
			t.Errorf("kernel: %q and %q are not the same file (%v, %v)", tt.in, tt.want, err1, err2)
		}
	}
	// realName leaves the last component alone
	if got, _ := realName(d+"/a/b/toc", "", nil); got != d+"/a/b/toc" {
		t.Errorf("realName(link) = %q", got)
	}
	if got, _ := realName(d+"/a/b/toc/", "", nil); got != d+"/c" {
		t.Errorf("realName(link/) = %q", got)
	}
}
