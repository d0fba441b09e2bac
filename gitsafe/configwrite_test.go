package gitsafe

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestParseConfigWrite: which command lines are writes of the repository's
// own config that the privileged side makes, which it refuses, and which
// are none of its business (another file, a read: the sandbox decides).
func TestParseConfigWrite(t *testing.T) {
	const (
		write  = "write"
		refuse = "refuse"
		none   = "none"
	)
	cases := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"config", "user.name", "X"}, nil, write},
		{[]string{"config", "--local", "user.email", "a@b"}, nil, write},
		{[]string{"config", "--unset", "user.name"}, nil, write},
		{[]string{"config", "--", "user.name", "X"}, nil, write},
		{[]string{"-C", "sub", "config", "user.name", "X"}, nil, write},
		{[]string{"remote", "add", "origin", "https://example.com/x.git"}, nil, write},
		{[]string{"remote", "set-url", "origin", "https://example.com/y.git"}, nil, write},
		{[]string{"remote", "set-url", "--push", "origin", "https://example.com/y.git"}, nil, write},
		{[]string{"branch", "--set-upstream-to=origin/main"}, nil, write},
		{[]string{"branch", "-u", "origin/main", "main"}, nil, write},
		{[]string{"branch", "--unset-upstream"}, nil, write},
		// git config stops at the first word that is not an option:
		// this sets user.name to "--unset"
		{[]string{"config", "user.name", "--unset"}, nil, write},

		// attacks on an approval of git config user.name X: every other
		// form is refused, whatever the rule matched
		{[]string{"config", "core.fsmonitor", "sh evil.sh"}, nil, refuse},
		{[]string{"config", "core.sshCommand", "sh evil.sh"}, nil, refuse},
		{[]string{"config", "alias.st", "!sh evil.sh"}, nil, refuse},
		{[]string{"config", "core.hooksPath", "hooks"}, nil, refuse},
		{[]string{"config", "include.path", "/tmp/evil"}, nil, refuse},
		{[]string{"config", "includeIf.gitdir:/.path", "/tmp/evil"}, nil, refuse},
		{[]string{"config", "core.worktree", "/etc"}, nil, refuse},
		{[]string{"config", "--add", "include.path", "/tmp/evil"}, nil, refuse},
		{[]string{"config", "--add", "user.name", "Y"}, nil, refuse},
		{[]string{"config", "--rename-section", "user", "core"}, nil, refuse},
		{[]string{"config", "--remove-section", "user"}, nil, refuse},
		{[]string{"config", "--edit"}, nil, refuse},
		{[]string{"config", "-e"}, nil, refuse},
		{[]string{"config", "--replace-all", "user.name", "X"}, nil, refuse},
		{[]string{"config", "--type=path", "user.name", "X"}, nil, refuse},
		{[]string{"config", "user.name", "X", "^Y$"}, nil, refuse},
		{[]string{"-c", "user.x=y", "config", "user.name", "X"}, nil, refuse},
		{[]string{"remote", "add", "-f", "origin", "https://example.com/x.git"}, nil, refuse},
		{[]string{"remote", "add", "origin", "ext::sh -c evil"}, nil, refuse},
		{[]string{"remote", "add", "origin", "fd::3"}, nil, refuse},
		{[]string{"remote", "rename", "origin", "up"}, nil, refuse},
		{[]string{"branch", "-u", "origin/main", "-f", "x"}, nil, refuse},
		// a path git writes to: git fetch over http saves its cookie jar
		// there (real git 2.39.5 replaced the file with curl's jar, a
		// Set-Cookie value and all: $(...) in a ~/.bashrc)
		{[]string{"config", "http.cookieFile", "/root/.bashrc"}, nil, refuse},
		{[]string{"config", "HTTP.https://example.com/.CookieFile", "/root/.bashrc"}, nil, refuse},
		// git format-patch writes its patches there (real git 2.39.5): a
		// directory whose every file a shell sources (~/.bashrc.d)
		{[]string{"config", "format.outputDirectory", "/root/.bashrc.d"}, nil, refuse},
		// ext:: where RunsProgram did not look: a push URL, and the base
		// of url.<base>.insteadOf (the key, not the value)
		{[]string{"config", "remote.origin.pushurl", "ext::sh -c evil"}, nil, refuse},
		{[]string{"config", "url.ext::sh -c evil.insteadOf", "https://example.com/"}, nil, refuse},
		{[]string{"config", "url.ext::sh -c evil.pushInsteadOf", "https://example.com/"}, nil, refuse},
		// a remote on this machine: the user's own git push runs its
		// receive-pack there, with that repository's hooks (real git
		// 2.39.5 ran a planted pre-receive through an url.<path>.insteadOf
		// of the origin's https URL)
		{[]string{"remote", "add", "backup", "/tmp/x/backup.git"}, nil, refuse},
		{[]string{"remote", "set-url", "origin", "../other"}, nil, refuse},
		{[]string{"remote", "set-url", "--push", "origin", "file:///tmp/x.git"}, nil, refuse},
		{[]string{"config", "remote.origin.url", "file:///tmp/x.git"}, nil, refuse},
		{[]string{"config", "remote.origin.pushurl", "."}, nil, refuse},
		{[]string{"config", "url./tmp/evil.git.insteadOf", "https://example.com/me/proj.git"}, nil, refuse},
		{[]string{"config", "url.file:///tmp/evil.git.pushInsteadOf", "https://example.com/"}, nil, refuse},
		{[]string{"config", "remote.origin.url", "git@example.com:me/proj.git"}, nil, write},
		{[]string{"config", "url.git@example.com:.insteadOf", "https://example.com/"}, nil, write},

		// another file, or a redirected git: not the repository's
		// config, the sandbox decides
		{[]string{"config", "--file", "/root/.bashrc", "user.name", "X"}, nil, none},
		{[]string{"config", "-f", ".git/config", "core.fsmonitor", "x"}, nil, none},
		{[]string{"config", "--file=x.cfg", "user.name", "X"}, nil, none},
		{[]string{"config", "--global", "user.name", "X"}, nil, none},
		{[]string{"config", "--system", "user.name", "X"}, nil, none},
		{[]string{"config", "--worktree", "user.name", "X"}, nil, none},
		{[]string{"--git-dir=/elsewhere", "config", "user.name", "X"}, nil, none},
		{[]string{"config", "user.name", "X"}, []string{"GIT_CONFIG=/root/.bashrc"}, none},
		{[]string{"config", "user.name", "X"}, []string{"GIT_DIR=/elsewhere/.git"}, none},
		{[]string{"config", "user.name", "X"}, []string{"GIT_CONFIG_COUNT=1"}, none},
		// reads
		{[]string{"config", "user.name"}, nil, none},
		{[]string{"config", "--get", "user.name"}, nil, none},
		{[]string{"config", "--list"}, nil, none},
		{[]string{"remote", "-v"}, nil, none},
		{[]string{"remote", "get-url", "origin"}, nil, none},
		{[]string{"branch", "-a"}, nil, none},
		{[]string{"status"}, nil, none},
	}
	for _, c := range cases {
		w, err := ParseConfigWrite(c.args, EnvLookup(c.env))
		got := none
		switch {
		case err != nil:
			var r *Refusal
			if !errors.As(err, &r) {
				t.Errorf("%q: error %v is not a *Refusal", c.args, err)
			}
			got = refuse
		case w != nil:
			got = write
		}
		if got != c.want {
			t.Errorf("ParseConfigWrite(%q, %q) = %s (%v), want %s", c.args, c.env, got, err, c.want)
		}
	}
}

// gitRepo makes a repository in dir with one commit on main and a remote
// tracking ref origin/main.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, a := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", dir, "update-ref", "refs/remotes/origin/main", "HEAD"},
		{"-C", dir, "config", "remote.origin.url", "https://example.com/o.git"},
	} {
		cmd := exec.Command("git", a...)
		cmd.Env = gitTestEnv(t)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v %s", a, err, b)
		}
	}
}

func gitTestEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
}

// TestConfigWriteLikeGit: each write the privileged side makes leaves the
// same config, output and exit status as real git run on a twin
// repository, in place (the same inode: a read-only bind mount of the file
// in the session's namespace stays attached).
func TestConfigWriteLikeGit(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	cases := [][]string{
		{"config", "user.name", "Alice Example"},
		{"config", "--local", "user.email", "alice@example.com"},
		{"config", "User.Name", "Mixed Case"},
		{"config", "--unset", "remote.origin.url"},
		{"config", "--unset", "user.nosuch"},  // exit 5, nothing written
		{"config", "nosection", "x"},          // git's own error, exit 1 or 2
		{"config", "user.name", "--unset"},    // the value "--unset"
		{"config", "user.name", "a \"q\" #x"}, // quoting
		// a value holding a section header and a key: git writes it
		// escaped, one value of user.name (attack: held)
		{"config", "user.name", "X\n[core]\n\tfsmonitor = touch pwn\n[include]\npath = /tmp/x"},
		{"config", "remote.origin.url", "https://example.com/x\n[core]\n\tfsmonitor = touch pwn"},
		{"config", "remote.x\"]\n[core]\nfsmonitor = pwn\n[x \"y.url", "https://example.com/"}, // git: invalid key
		{"remote", "add", "up", "https://example.com/up.git"},
		{"remote", "add", "origin", "https://example.com/again.git"}, // exists: exit 3
		{"remote", "set-url", "origin", "https://example.com/new.git"},
		{"remote", "set-url", "--push", "origin", "https://example.com/push.git"},
		{"branch", "--set-upstream-to=origin/main"},
		{"branch", "-u", "origin/main", "main"},
		{"branch", "-u", "origin/nosuch"}, // git's refusal
		{"branch", "--unset-upstream"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			env := gitTestEnv(t)
			twin, mine := filepath.Join(t.TempDir(), "twin"), filepath.Join(t.TempDir(), "mine")
			gitRepo(t, twin)
			gitRepo(t, mine)
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = twin, env
			var wantOut, wantErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
			wantStatus := 0
			if err := cmd.Run(); err != nil {
				wantStatus = err.(*exec.ExitError).ExitCode()
			}
			w, err := ParseConfigWrite(args, nil)
			if w == nil || err != nil {
				t.Fatalf("ParseConfigWrite: %v, %v", w, err)
			}
			path, err := w.Locate(gitPath, mine, env)
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(mine, ".git", "config") {
				t.Fatalf("Locate = %s", path)
			}
			var before syscall.Stat_t
			syscall.Stat(path, &before)
			var out, errb bytes.Buffer
			status, err := w.Apply(gitPath, mine, path, env, &out, &errb)
			if err != nil {
				t.Fatal(err)
			}
			if status != wantStatus || out.String() != wantOut.String() || errb.String() != wantErr.String() {
				t.Errorf("status %d out %q err %q; git: status %d out %q err %q", status, out.String(), errb.String(), wantStatus, wantOut.String(), wantErr.String())
			}
			a, _ := os.ReadFile(filepath.Join(twin, ".git", "config"))
			b, _ := os.ReadFile(path)
			if !bytes.Equal(a, b) {
				t.Errorf("config differs from git's:\n%s\ngit:\n%s", b, a)
			}
			var after syscall.Stat_t
			syscall.Stat(path, &after)
			if after.Ino != before.Ino {
				t.Errorf("config replaced (inode %d -> %d), not written in place", before.Ino, after.Ino)
			}
		})
	}
}

// TestAttackConfigWriteRedirected: a repository whose config or git
// directory leads elsewhere is refused, and the file elsewhere keeps its
// content: a symlinked .git/config, a hard link, a .git file (gitdir:), a
// symlinked .git, a commondir.
func TestAttackConfigWriteRedirected(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	const victimText = "# the victim\n"
	cases := []struct {
		name  string
		plant func(t *testing.T, repo, victim string)
	}{
		{"symlinked config", func(t *testing.T, repo, victim string) {
			os.Rename(filepath.Join(repo, ".git", "config"), victim+".cfg")
			must(t, os.Symlink(victim, filepath.Join(repo, ".git", "config")))
		}},
		{"hard-linked config", func(t *testing.T, repo, victim string) {
			os.Remove(filepath.Join(repo, ".git", "config"))
			must(t, os.Link(victim, filepath.Join(repo, ".git", "config")))
		}},
		{"gitdir file", func(t *testing.T, repo, victim string) {
			other := filepath.Join(filepath.Dir(victim), "other.git")
			must(t, os.Rename(filepath.Join(repo, ".git"), other))
			must(t, os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: "+other+"\n"), 0o644))
			os.Remove(filepath.Join(other, "config"))
			must(t, os.Symlink(victim, filepath.Join(other, "config")))
		}},
		{"symlinked .git", func(t *testing.T, repo, victim string) {
			other := filepath.Join(filepath.Dir(victim), "other.git")
			must(t, os.Rename(filepath.Join(repo, ".git"), other))
			must(t, os.Symlink(other, filepath.Join(repo, ".git")))
		}},
		{"commondir", func(t *testing.T, repo, victim string) {
			must(t, os.WriteFile(filepath.Join(repo, ".git", "commondir"), []byte(filepath.Dir(victim)+"\n"), 0o644))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := gitTestEnv(t)
			repo := filepath.Join(t.TempDir(), "repo")
			gitRepo(t, repo)
			victim := filepath.Join(t.TempDir(), "victim")
			must(t, os.WriteFile(victim, []byte(victimText), 0o644))
			c.plant(t, repo, victim)
			w, err := ParseConfigWrite([]string{"config", "user.name", "X"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			path, err := w.Locate(gitPath, repo, env)
			if err == nil {
				var out bytes.Buffer
				_, err = w.Apply(gitPath, repo, path, env, &out, &out)
			}
			if err == nil {
				t.Errorf("write made through %s", c.name)
			}
			if b, _ := os.ReadFile(victim); string(b) != victimText {
				t.Errorf("attack succeeded: the victim now holds %q", b)
			}
		})
	}
}

// TestAttackConfigWriteOnlyNamedKeys: the result git leaves in the private
// copy is checked before it is written back: a copy that changed another
// key (what a planted file or a git that does more than asked would leave)
// is not written.
func TestAttackConfigWriteOnlyNamedKeys(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	env := Env(gitTestEnv(t))
	w, _ := ParseConfigWrite([]string{"config", "user.name", "X"}, nil)
	old := []byte("[core]\n\tbare = false\n")
	for _, newer := range []string{
		"[core]\n\tbare = false\n\tfsmonitor = sh evil.sh\n[user]\n\tname = X\n",
		"[core]\n\tbare = false\n[user]\n\tname = X\n\temail = other@example.com\n",
		"[core]\n\tbare = false\n[include]\n\tpath = /tmp/evil\n[user]\n\tname = X\n",
		"[core]\n\tbare = false\n[user]\n\tname = Y\n",
		"[user]\n\tname = X\n",
	} {
		if err := w.check(gitPath, t.TempDir(), env, old, []byte(newer)); err == nil {
			t.Errorf("accepted %q", newer)
		}
	}
	if err := w.check(gitPath, t.TempDir(), env, old, []byte("[core]\n\tbare = false\n[user]\n\tname = X\n")); err != nil {
		t.Errorf("the write itself refused: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestParseConfigWriteOthers: git commands that are not config writes are
// nil whatever their global options.
func TestParseConfigWriteOthers(t *testing.T) {
	for _, args := range [][]string{{"-c", "core.pager=cat", "status"}, {"-c", "x.y=z", "log"}, {"--no-pager", "diff"}, {"-p", "branch"}} {
		if w, err := ParseConfigWrite(args, nil); w != nil || err != nil {
			t.Errorf("ParseConfigWrite(%q) = %v, %v", args, w, err)
		}
	}
}
