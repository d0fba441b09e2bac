package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchConfinePlant: under guardsh --launch --confine the agent's own
// file tools (not its shell) write the protected files that did not exist
// when it started (no read-only mount can cover a missing file): the
// launcher removes them when the agent exits, and says so, so that the
// user's git afterwards reads none of them.
func TestLaunchConfinePlant(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	backendsUnderTest(t)
	f := newFixture(t)
	agent := fakeAgent(t, f.base, "claude", `
printf '[core]\n\tfsmonitor = touch "%s/ran-worktree"\n' "$OUT" > .git/config.worktree && echo planted-worktree
echo ../.planted > .git/commondir && echo planted-commondir
`)
	cmd := exec.Command(f.bin, "--launch", "--mode", "auto", "--confine", "--", agent)
	cmd.Dir = f.project
	cmd.Env = f.env("", "GUARDSH_MODE=auto")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
			cmd.Env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "planted-worktree") || !strings.Contains(string(out), "planted-commondir") {
		t.Skipf("the confined agent could not plant here (a read-only mount?): %v\n%s", err, out)
	}
	for _, p := range []string{".git/config.worktree", ".git/commondir"} {
		if _, err := os.Lstat(filepath.Join(f.project, p)); err == nil {
			t.Errorf("%s planted by the confined agent is still there after it exited\n%s", p, out)
		}
		if !strings.Contains(string(out), p+": created") {
			t.Errorf("the removal of %s is not said:\n%s", p, out)
		}
	}
}
