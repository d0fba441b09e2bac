package gitsafe

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAttackArgsAbbreviated: git takes any unambiguous prefix of a long
// option, one letter included: git push --e=CMD runs CMD as the
// receive-pack, git ls-remote --u=CMD as the upload-pack (both seen run by
// real git 2.x).
func TestAttackArgsAbbreviated(t *testing.T) {
	for _, args := range [][]string{
		{"push", "--e=sh x.sh; git-receive-pack", "origin", "main"},
		{"push", "--e", "sh x.sh; git-receive-pack", "origin", "main"},
		{"ls-remote", "--u=sh x.sh; git-upload-pack", "origin"},
		{"ls-remote", "--u", "sh x.sh", "origin"},
	} {
		var r *Refusal
		if err := CheckArgs(args); !errors.As(err, &r) {
			t.Errorf("CheckArgs(%q) = %v, want a refusal", args, err)
		}
	}
}

// TestAttackLocalPushHooks: a push that lands in a repository on this
// machine runs that repository's hooks (receive-pack runs here). Each case
// plants a bare repository with a pre-receive hook and a push that reaches
// it without naming a path: the hook must not run (or the push is
// refused). Real git, throwaway repositories.
func TestAttackLocalPushHooks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, top, victim string)
		args  []string
	}{
		// no remote named origin: git takes the word as a path, and the
		// session can make ./origin in the project
		{"directory named like the remote", func(t *testing.T, top, victim string) {}, []string{"push", "origin", "HEAD:refs/heads/x"}},
		{"url.insteadOf to a local path", func(t *testing.T, top, victim string) {
			gitIn(t, top, "remote", "add", "up", "https://example.invalid/r.git")
			gitIn(t, top, "config", "url."+victim+".insteadOf", "https://example.invalid/r.git")
		}, []string{"push", "up", "HEAD:refs/heads/x"}},
		{"url.pushInsteadOf to a local path", func(t *testing.T, top, victim string) {
			gitIn(t, top, "remote", "add", "up", "https://example.invalid/r.git")
			gitIn(t, top, "config", "url."+victim+".pushInsteadOf", "https://example.invalid/r.git")
		}, []string{"push", "up", "HEAD:refs/heads/x"}},
		{"branch pushRemote with no target", func(t *testing.T, top, victim string) {
			gitIn(t, top, "remote", "add", "up", victim)
			gitIn(t, top, "config", "branch.main.pushRemote", "up")
			gitIn(t, top, "config", "push.default", "current")
		}, []string{"push"}},
		{"branch remote with no target", func(t *testing.T, top, victim string) {
			gitIn(t, top, "remote", "add", "up", victim)
			gitIn(t, top, "config", "branch.main.remote", "up")
			gitIn(t, top, "config", "push.default", "current")
		}, []string{"push"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			gitIn(t, top, "init", "-q", "-b", "main")
			gitIn(t, top, "commit", "-q", "--allow-empty", "-m", "start")
			victim := filepath.Join(top, "origin")
			gitIn(t, top, "init", "-q", "--bare", victim)
			marker := filepath.Join(t.TempDir(), "hook-ran")
			hook := "#!/bin/sh\ntouch " + marker + "\n"
			if err := os.WriteFile(filepath.Join(victim, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
				t.Fatal(err)
			}
			c.plant(t, top, victim)
			cmd, err := Command("", top, append(os.Environ(), "GIT_AUTHOR_NAME=t"), c.args...)
			if err != nil {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatal(err)
				}
				return // refused: nothing ran
			}
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("git %v ran the receiving repository's pre-receive hook\n%s", c.args, out)
			}
		})
	}
}
