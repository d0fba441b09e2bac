package protect

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestAttackHooksPathInclude: a .git/config that includes a file of the
// project (include.path, includeIf) hands that file git's trust: a
// core.hooksPath (or core.fsmonitor) there is obeyed by the user's git as
// if in .git/config. The hooks directory it names must be protected, and
// so must the included file itself, wherever git (the oracle) says.
func TestAttackHooksPathInclude(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range []struct{ key, file, hooks string }{
		{"include.path", "../shared.gitconfig", ".husky"},
		{"includeIf.gitdir:/.path", "../cfg/more.inc", "tools/hooks"},
		{"include.path", "ABS/abs.inc", "abshooks"},
	} {
		t.Run(c.key+"="+c.file, func(t *testing.T) {
			p := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", p).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			file := strings.Replace(c.file, "ABS", p, 1)
			if out, err := exec.Command("git", "-C", p, "config", c.key, file).CombinedOutput(); err != nil {
				t.Fatalf("git config: %v %s", err, out)
			}
			inc := filepath.Clean(filepath.Join(p, ".git", file))
			if filepath.IsAbs(file) {
				inc = file
			}
			os.MkdirAll(filepath.Dir(inc), 0o755)
			os.WriteFile(inc, []byte("[core]\n\thooksPath = "+c.hooks+"\n"), 0o644)
			out, err := exec.Command("git", "-C", p, "rev-parse", "--git-path", "hooks").Output()
			if err != nil || strings.TrimSpace(string(out)) != c.hooks {
				t.Fatalf("git's hooks directory: %q %v (want %s)", out, err, c.hooks)
			}
			if got, want := HooksDir(p), filepath.Join(p, c.hooks); got != want {
				t.Errorf("HooksDir = %q, want %q (git obeys the included file)", got, want)
			}
			w := Where{Project: p}
			if _, ok := Match(inc, w); !ok {
				t.Errorf("Match(%s) = false: the included config file is writable", inc)
			}
			if !slices.Contains(Paths(w), inc) {
				t.Errorf("Paths lacks the included config file %s", inc)
			}
		})
	}
}

// TestAttackHooksPathWorktreeConfig: with extensions.worktreeConfig, git
// also reads .git/config.worktree; a core.hooksPath set there (git config
// --worktree) names the hooks directory git runs.
func TestAttackHooksPathWorktreeConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := t.TempDir()
	for _, args := range [][]string{{"init", "-q", p}, {"-C", p, "config", "extensions.worktreeConfig", "true"}, {"-C", p, "config", "--worktree", "core.hooksPath", "wt-hooks"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", p, "rev-parse", "--git-path", "hooks").Output()
	if err != nil || strings.TrimSpace(string(out)) != "wt-hooks" {
		t.Fatalf("git's hooks directory: %q %v", out, err)
	}
	if got, want := HooksDir(p), filepath.Join(p, "wt-hooks"); got != want {
		t.Errorf("HooksDir = %q, want %q (git obeys .git/config.worktree)", got, want)
	}
}

// TestAttackStateHomeAuditLog: the audit log lives in $XDG_STATE_HOME/guardsh
// when XDG_STATE_HOME is set (guardsh.AuditLogPath); there it must be as
// protected as ~/.local/state/guardsh is (a state directory under /tmp
// was writable by every sandboxed command).
func TestAttackStateHomeAuditLog(t *testing.T) {
	w := Where{Project: "/p", Home: "/h", StateHome: "/tmp/state"}
	if _, ok := Match("/tmp/state/guardsh/audit.jsonl", w); !ok {
		t.Errorf("the audit log in $XDG_STATE_HOME/guardsh is not protected")
	}
	if !slices.Contains(Paths(w), filepath.FromSlash("/tmp/state/guardsh")) {
		t.Errorf("Paths lacks $XDG_STATE_HOME/guardsh: %v", Paths(w))
	}
}
