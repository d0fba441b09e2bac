package guardsh

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoBuildID: the build ID read from a binary's head is the one the Go
// tool reports (go tool buildid), for this test binary and its copy; a
// non-Go program and a text file have none.
func TestGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skip("go tool buildid:", err)
	}
	want := strings.TrimSpace(string(out))
	if got := goBuildID(exe); got != want {
		t.Fatalf("goBuildID = %q, go tool buildid says %q", got, want)
	}
	cp := filepath.Join(t.TempDir(), "renamed")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if !IsGuardshBinary(cp) {
		t.Errorf("a copy of the running binary is not recognised")
	}
	for _, other := range []string{"/bin/sh", "/etc/passwd", "/nonexistent"} {
		if IsGuardshBinary(other) {
			t.Errorf("%s recognised as guardsh", other)
		}
	}
}
