package gitsafe

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	cases := []struct {
		args   string
		refuse bool
	}{
		{"push origin main", false},
		{"push -u origin main", false}, // --set-upstream
		{"push origin main --receive-pack=python3 x.py; git-receive-pack", true},
		{"push --rec=x origin main", true}, // an abbreviation git would refuse as ambiguous
		{"push --exec=x origin main", true},
		{"push --repo=origin main", false},
		{"fetch --upload-pack=x origin", true},
		{"fetch -u origin", false}, // --update-head-ok
		{"pull --upload-pack x origin", true},
		{"clone -u x https://h/r", true},
		{"clone -qu x https://h/r", true},
		{"clone --template=t https://h/r", true},
		{"clone -c core.fsmonitor=x https://h/r", true},
		{"clone --config=core.sshCommand=x https://h/r", true},
		{"clone -c user.name=x https://h/r", false},
		{"ls-remote --upload-pack=x origin", true},
		{"archive --remote=r --exec=x HEAD", true},
		{"-c core.sshCommand=x push origin main", true},
		{"-ccore.sshCommand=x push origin main", true},
		{"-c core.pager=cat log", false},
		{"-c include.path=/tmp/c push origin main", true},
		{"-c protocol.ext.allow=always fetch", true},
		{"-c user.email=a@b commit -m x", false},
		{"--config-env=core.sshCommand=V push", true},
		{"--exec-path=/tmp push", true},
		{"-C dir push origin main", false},
		{"push ext::sh -c x", true},
		{"rebase -x make main", true},
		{"bisect run make", true},
		{"difftool --extcmd=x", true},
	}
	for _, c := range cases {
		args := strings.Fields(c.args)
		if strings.Contains(c.args, "receive-pack=python3") {
			args = []string{"push", "origin", "main", "--receive-pack=python3 x.py; git-receive-pack"}
		}
		err := CheckArgs(args)
		var r *Refusal
		if got := errors.As(err, &r); got != c.refuse {
			t.Errorf("CheckArgs(%q) = %v, want refused %v", c.args, err, c.refuse)
		}
	}
}

// gitIn runs the real git in dir for a test's set-up.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestCheckRepo: real repositories, each with one thing that makes git run
// a program or look elsewhere, against real git.
func TestCheckRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cases := []struct {
		name   string
		plant  func(t *testing.T, top string) string // returns the dir to check
		refuse string
	}{
		{"plain", func(t *testing.T, top string) string { return top }, ""},
		{"subdir", func(t *testing.T, top string) string {
			os.MkdirAll(filepath.Join(top, "a", "b"), 0o755)
			return filepath.Join(top, "a", "b")
		}, ""},
		{"not a repository", func(t *testing.T, top string) string { return t.TempDir() }, ""},
		{"hooksPath (overridden)", func(t *testing.T, top string) string {
			gitIn(t, top, "config", "core.hooksPath", "h")
			return top
		}, ""},
		{"credential helper", func(t *testing.T, top string) string {
			gitIn(t, top, "config", "credential.helper", "!sh -c 'touch x'")
			return top
		}, "credential.helper"},
		{"ssh command", func(t *testing.T, top string) string {
			gitIn(t, top, "config", "core.sshCommand", "sh x.sh")
			return top
		}, "core.sshcommand"},
		{"textconv", func(t *testing.T, top string) string {
			gitIn(t, top, "config", "diff.x.textconv", "sh x.sh")
			return top
		}, "diff.x.textconv"},
		{"core.worktree", func(t *testing.T, top string) string {
			gitIn(t, top, "config", "core.worktree", "/")
			return top
		}, "core.worktree"},
		{"linked worktree", func(t *testing.T, top string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			gitIn(t, top, "worktree", "add", "-q", wt)
			return wt
		}, "takes its objects"},
		{"commondir", func(t *testing.T, top string) string {
			os.WriteFile(filepath.Join(top, ".git", "commondir"), []byte(".\n"), 0o644)
			return top
		}, "commondir"},
		{"submodule with a filter in its config", func(t *testing.T, top string) string {
			sub := filepath.Join(t.TempDir(), "sub")
			gitIn(t, filepath.Dir(sub), "init", "-q", sub)
			gitIn(t, sub, "commit", "-q", "--allow-empty", "-m", "s")
			gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
			gitIn(t, top, "config", "--file", filepath.Join(top, ".git", "modules", "sub", "config"), "filter.x.clean", "sh x.sh")
			return top
		}, "submodule sub"},
		{"submodule's .git pointed at a planted gitdir", func(t *testing.T, top string) string {
			sub := filepath.Join(t.TempDir(), "sub")
			gitIn(t, filepath.Dir(sub), "init", "-q", sub)
			gitIn(t, sub, "commit", "-q", "--allow-empty", "-m", "s")
			gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
			planted := filepath.Join(top, "planted")
			if err := os.CopyFS(planted, os.DirFS(filepath.Join(top, ".git", "modules", "sub"))); err != nil {
				t.Fatal(err)
			}
			gitIn(t, top, "config", "--file", filepath.Join(planted, "config"), "diff.x.textconv", "sh x.sh")
			os.WriteFile(filepath.Join(top, "sub", ".git"), []byte("gitdir: ../planted\n"), 0o644)
			return top
		}, "diff.x.textconv"},
		{"submodule, clean", func(t *testing.T, top string) string {
			sub := filepath.Join(t.TempDir(), "sub")
			gitIn(t, filepath.Dir(sub), "init", "-q", sub)
			gitIn(t, sub, "commit", "-q", "--allow-empty", "-m", "s")
			gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
			return top
		}, ""},
		{"alternates", func(t *testing.T, top string) string {
			os.WriteFile(filepath.Join(top, ".git", "objects", "info", "alternates"), []byte("/tmp\n"), 0o644)
			return top
		}, "alternates"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			gitIn(t, top, "init", "-q")
			gitIn(t, top, "commit", "-q", "--allow-empty", "-m", "start")
			dir := c.plant(t, top)
			err := checkRepo("git", dir, Env(os.Environ()), nil)
			switch {
			case c.refuse == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refuse != "" && (err == nil || !strings.Contains(err.Error(), c.refuse)):
				t.Fatalf("got %v, want a refusal naming %q", err, c.refuse)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	got := strings.Join(Env([]string{"PATH=/bin", "GIT_DIR=/x", "GIT_SSH_COMMAND=x", "GIT_CONFIG_PARAMETERS='a=b'", "GIT_AUTHOR_NAME=n", "HOME=/h"}), " ")
	if got != "PATH=/bin GIT_AUTHOR_NAME=n HOME=/h GIT_CONFIG_NOSYSTEM=1" {
		t.Errorf("Env = %s", got)
	}
}
