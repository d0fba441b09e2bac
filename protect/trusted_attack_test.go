package protect

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackHooksDirPlantedGit: HooksDir runs in the privileged side,
// unconfined, when a session starts. A `git` planted by a session's
// command in a directory of PATH that the sandbox leaves writable (a HOME
// under /tmp with ~/.local/bin first in PATH, a project's bin/) must not be
// the program it runs; the git it runs is one no session could have written.
func TestAttackHooksDirPlantedGit(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	base := t.TempDir() // under /tmp: where a session may write
	p := filepath.Join(base, "project")
	if out, err := exec.Command("git", "init", "-q", p).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", p, "config", "core.hooksPath", ".husky/_").CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	marker := filepath.Join(base, "ran")
	for _, dir := range []string{filepath.Join(base, "home", ".local", "bin"), filepath.Join(p, "bin")} {
		os.MkdirAll(dir, 0o755)
		fake := "#!/bin/sh\necho \"$0\" >> " + marker + "\nexec " + realGit + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, "git"), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Join(base, "home", ".local", "bin")+":"+filepath.Join(p, "bin")+":"+filepath.Dir(realGit)+":/usr/bin:/bin")
	got := HooksDir(p)
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the privileged side ran a planted git: %s", strings.TrimSpace(string(b)))
	}
	if want := filepath.Join(p, ".husky/_"); got != want {
		t.Errorf("HooksDir = %q, want %q (the real git's answer)", got, want)
	}
}
