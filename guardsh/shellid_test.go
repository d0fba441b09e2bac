package guardsh

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestShellByIdentity: a copy and a link of bash are bash, a file of
// another content (bash with one byte changed, a text file) is no shell.
func TestShellByIdentity(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	b, err := os.ReadFile(bash)
	if err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	changed := append([]byte(nil), b...)
	changed[len(changed)/2] ^= 1
	files := map[string][]byte{"copy": b, "changed": changed, "text": []byte("#!/bin/sh\n")}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(d, n), c, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bash, filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"copy", "bash"}, {"link", "bash"}, {"changed", ""}, {"text", ""}, {"missing", ""},
	} {
		if got := ShellByIdentity(filepath.Join(d, c.name)); got != c.want {
			t.Errorf("ShellByIdentity(%s) = %q, want %q", c.name, got, c.want)
		}
	}
}
