package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/sandbox"
)

// approvedGitConfigRules are the human's approvals of the git config
// writes below (the user's config.toml: the sessions have no terminal).
const approvedGitConfigRules = `[[rule]]
id = "test.git-name"
decision = "allow"
prefix = ["git", "config", "user.name", "*"]

[[rule]]
id = "test.git-unset-email"
decision = "allow"
prefix = ["git", "config", "--unset", "user.email", "$"]

[[rule]]
id = "test.git-local-exec"
decision = "allow"
prefix = ["git", "config", "--local", "core.fsmonitor", "*"]

[[rule]]
id = "test.git-any-option"
decision = "allow"
prefix = ["git", "config", "--*"]

[[rule]]
id = "test.git-remote"
decision = "allow"
prefix = ["git", "remote", "add", "*"]

[[rule]]
id = "test.git-ref"
decision = "allow"
prefix = ["git", "update-ref", "refs/remotes/origin/main", "HEAD"]

[[rule]]
id = "test.git-upstream"
decision = "allow"
prefix = ["git", "branch", "--set-upstream-to=origin/main"]
`

// approvedGitConfigScript runs the approved writes and the attacks on
// them in one session: each line says its status.
const approvedGitConfigScript = `git config user.name Alice; echo "RC set $?"
git config user.name Alice "--file=$OUT/f"; echo "RC pattern $?"
git config --local core.fsmonitor "touch pwn"; echo "RC exec $?"
git config --add include.path "$OUT/inc"; echo "RC include $?"
git config --unset user.name; echo "RC unset-unnamed $?"
git config --unset user.email; echo "RC unset-named $?"
git config --rename-section user core; echo "RC rename $?"
git config -f "$OUT/f" user.name X; echo "RC file $?"
GIT_CONFIG="$OUT/g" git config user.name X; echo "RC env $?"
git remote add origin https://example.com/x.git; echo "RC remote $?"
git commit -q --allow-empty -m c && git update-ref refs/remotes/origin/main HEAD && git branch --set-upstream-to=origin/main; echo "RC upstream $?"
echo x >> .git/config; echo "RC direct $?"
`

// TestApprovedGitConfig: a human-approved write of the project
// repository's config (read-only in the sandbox: "Device or resource
// busy" until the privileged side made it) works at every level, with the
// approved key and value only; what an approval of one write does not
// name (another key, --unset, --add include.path, --rename-section,
// another file through -f or GIT_CONFIG) and keys that run programs stay
// refused whatever the approval. At the container level the approved
// write is kept when the session's restore undoes every other change.
func TestApprovedGitConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git needed")
	}
	var levels []string
	if os.Geteuid() == 0 {
		levels = backendsUnderTest(t)
		if sandbox.LandlockABI() >= 2 {
			levels = append(levels, "container")
		}
	}
	if len(levels) == 0 {
		t.Skip("the sandboxed shell runs as root (CI does); skipping as non-root")
	}
	for _, level := range levels {
		t.Run(level, func(t *testing.T) {
			var prefix []string
			if level == "container" {
				prefix = containerLike(t)
			}
			f := newFixture(t)
			conf := filepath.Join(f.home, ".config", "guardsh", "config.toml")
			os.MkdirAll(filepath.Dir(conf), 0o755)
			must(t, os.WriteFile(conf, []byte(approvedGitConfigRules), 0o644))
			gitc := func(args ...string) string {
				out, _ := exec.Command("git", append([]string{"-C", f.project}, args...)...).Output()
				return strings.TrimSpace(string(out))
			}
			gitc("config", "user.email", "pre@example.com")
			backend := level
			if level == "container" {
				backend = "auto"
			}
			env := f.env(backend, "GUARDSH_MODE=auto", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
			argv := append(append(append([]string{}, prefix...), f.bin), "-c", approvedGitConfigScript)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = f.project, env
			var o, e strings.Builder
			cmd.Stdout, cmd.Stderr = &o, &e
			cmd.Run()
			stdout, stderr := o.String(), e.String()
			if level == "container" && !strings.Contains(stderr, `sandbox level "container"`) {
				t.Fatalf("not the container level:\n%s", stderr)
			}
			for _, want := range []string{"RC set 0", "RC unset-named 0", "RC remote 0", "RC upstream 0"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("an approved write failed: no %q in\n%s\nstderr:\n%s", want, stdout, stderr)
				}
			}
			for _, bad := range []string{"RC pattern 0", "RC exec 0", "RC include 0", "RC unset-unnamed 0", "RC rename 0", "RC file 0", "RC env 0"} {
				if strings.Contains(stdout, bad) {
					t.Errorf("attack succeeded: %q in\n%s\nstderr:\n%s", bad, stdout, stderr)
				}
			}
			if strings.Contains(stderr, "Device or resource busy") {
				t.Errorf("a write still failed in the sandbox:\n%s", stderr)
			}
			// the repository's config afterwards, read by the user's git
			if got := gitc("config", "--local", "user.name"); got != "Alice" {
				t.Errorf("user.name = %q, want Alice\n%s", got, stderr)
			}
			if got := gitc("config", "--local", "user.email"); got != "" {
				t.Errorf("user.email = %q, want it unset", got)
			}
			if got := gitc("config", "--local", "remote.origin.url"); got != "https://example.com/x.git" {
				t.Errorf("remote.origin.url = %q", got)
			}
			if got := gitc("config", "--local", "branch.master.merge") + gitc("config", "--local", "branch.main.merge"); got != "refs/heads/main" && got != "refs/heads/master" {
				t.Errorf("no upstream set: %q", got)
			}
			cfg, _ := os.ReadFile(filepath.Join(f.project, ".git", "config"))
			for _, bad := range []string{"fsmonitor", "include", "[core \"", "\nx\n"} {
				if strings.Contains(string(cfg), bad) {
					t.Errorf("attack succeeded: %q in .git/config:\n%s", bad, cfg)
				}
			}
			if strings.Contains(string(cfg), "[core]") && strings.Count(string(cfg), "[user]") != 1 {
				t.Errorf("the user section moved or doubled:\n%s", cfg)
			}
			if _, err := os.Lstat(filepath.Join(f.project, "pwn")); err == nil {
				t.Error("attack succeeded: the fsmonitor ran")
			}
			for _, p := range []string{"f", "g", "inc"} {
				if _, err := os.Lstat(filepath.Join(f.outside, p)); err == nil {
					t.Errorf("attack succeeded: %s written outside", p)
				}
			}
		})
	}
}

// TestAttackApprovedGitConfigRedirected: an approved write never lands
// outside the project through the repository's own redirections: a
// symlinked .git/config, a .git file naming another git directory.
func TestAttackApprovedGitConfigRedirected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git needed")
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, f *fixture) string // returns the file that must stay as it is
	}{
		{"symlinked config", func(t *testing.T, f *fixture) string {
			victim := filepath.Join(f.outside, "victim.cfg")
			must(t, os.Rename(filepath.Join(f.project, ".git", "config"), victim))
			must(t, os.Symlink(victim, filepath.Join(f.project, ".git", "config")))
			return victim
		}},
		{"gitdir file", func(t *testing.T, f *fixture) string {
			other := filepath.Join(f.outside, "other.git")
			must(t, os.Rename(filepath.Join(f.project, ".git"), other))
			must(t, os.WriteFile(filepath.Join(f.project, ".git"), []byte("gitdir: "+other+"\n"), 0o644))
			return filepath.Join(other, "config")
		}},
	}
	for _, backend := range backendsUnderTest(t) {
		for _, c := range cases {
			t.Run(backend+"/"+c.name, func(t *testing.T) {
				f := newFixture(t)
				conf := filepath.Join(f.home, ".config", "guardsh", "config.toml")
				os.MkdirAll(filepath.Dir(conf), 0o755)
				must(t, os.WriteFile(conf, []byte(approvedGitConfigRules), 0o644))
				victim := c.plant(t, f)
				before, _ := os.ReadFile(victim)
				stdout, stderr, _ := f.run(t, backend, `git config user.name Mallory; echo "RC $?"`, "GUARDSH_MODE=auto")
				after, _ := os.ReadFile(victim)
				if string(after) != string(before) {
					t.Errorf("attack succeeded: %s changed (stdout %q stderr %q):\n%s", victim, stdout, stderr, after)
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
