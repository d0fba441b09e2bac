package gitsafe

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestAttackSubmoduleConditionalInclude: a submodule's config whose
// includeIf holds only in the submodule (onbranch: its own branch, gitdir:
// its own git directory) brings in a clean filter. Read with --file from
// the superproject, the condition is judged against the superproject and
// the include is not followed; git status in the superproject runs the
// filter in the submodule. Real git; the submodule's .git points at a
// gitdir the session made in the project.
func TestAttackSubmoduleConditionalInclude(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, cond := range []string{"onbranch:subonly", "gitdir:"} {
		t.Run(cond, func(t *testing.T) {
			top := t.TempDir()
			gitIn(t, top, "init", "-q", "-b", "main")
			gitIn(t, top, "commit", "-q", "--allow-empty", "-m", "start")
			src := filepath.Join(t.TempDir(), "s0")
			gitIn(t, filepath.Dir(src), "init", "-q", "-b", "main", src)
			gitIn(t, src, "commit", "-q", "--allow-empty", "-m", "s")
			gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
			gitIn(t, top, "commit", "-q", "-m", "sub")
			planted := filepath.Join(top, "planted")
			if err := os.CopyFS(planted, os.DirFS(filepath.Join(top, ".git", "modules", "sub"))); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(planted, "config")
			gitIn(t, top, "config", "--file", cfg, "--unset", "core.worktree")
			if err := os.WriteFile(filepath.Join(top, "sub", ".git"), []byte("gitdir: ../planted\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := cond
			if c == "gitdir:" {
				c += planted
			}
			gitIn(t, top, "config", "--file", cfg, "includeIf."+c+".path", "evil.cfg")
			gitIn(t, filepath.Join(top, "sub"), "checkout", "-q", "-b", "subonly")
			if err := os.WriteFile(filepath.Join(top, "sub", "f"), []byte("hi\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(top, "sub", ".gitattributes"), []byte("* filter=x\n"), 0o644)
			gitIn(t, filepath.Join(top, "sub"), "add", "f", ".gitattributes")
			marker := filepath.Join(t.TempDir(), "filter-ran")
			os.WriteFile(filepath.Join(planted, "evil.cfg"), []byte("[filter \"x\"]\n\tclean = touch "+marker+"\n"), 0o644)
			os.WriteFile(filepath.Join(top, "sub", "f"), []byte("hj\n"), 0o644) // same size: git must read it through the filter
			future := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(top, "sub", "f"), future, future)
			err := checkRepo("git", top, Env(os.Environ()), nil)
			if err != nil {
				return // refused
			}
			cmd, err := Command("", top, nil, "status", "--short")
			if err != nil {
				return
			}
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("checkRepo let it through and git status ran the submodule's clean filter\n%s", out)
			}
			t.Fatalf("checkRepo let a submodule config with a conditional filter through (the filter did not run this time)\n%s", out)
		})
	}
}

// TestAttackRunsProgramKeys: config keys whose value git runs that
// RunsProgram did not know (git-config(1): gpg.ssh.defaultKeyCommand runs
// when a commit is signed with ssh and no key is set; send-email's
// sendmailCmd and headerCmd; a browser's path; git-lfs custom transfer
// agents).
func TestAttackRunsProgramKeys(t *testing.T) {
	for _, k := range []string{"gpg.ssh.defaultkeycommand", "sendemail.sendmailcmd", "sendemail.headercmd",
		"browser.x.path", "lfs.customtransfer.x.path",
		// git instaweb runs instaweb.httpd (real git 2.39.5 ran a script
		// at /tmp/x/bin/lighttpd); send-email's per-identity settings
		// (sendemail.<identity>.<item>) override the plain ones
		"instaweb.httpd", "sendemail.work.smtpserver", "sendemail.work.tocmd", "sendemail.work.cccmd",
		"sendemail.work.sendmailcmd", "sendemail.work.headercmd"} {
		if !RunsProgram(k, "sh x.sh") {
			t.Errorf("RunsProgram(%s) = false", k)
		}
		if err := CheckArgs([]string{"-c", k + "=sh x.sh", "commit", "-m", "x"}); err == nil {
			t.Errorf("CheckArgs(-c %s=...) = nil", k)
		}
	}
}

// TestAttackPushRecurseSubmodules: git push --recurse-submodules=on-demand
// pushes each submodule to its own remote; one on this machine runs its
// pre-receive hook (the local-push guard sees only the superproject's
// remote). Real git.
func TestAttackPushRecurseSubmodules(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := t.TempDir()
	subRemote := filepath.Join(base, "subremote.git")
	gitIn(t, base, "init", "-q", "--bare", "-b", "main", subRemote)
	s0 := filepath.Join(base, "s0")
	gitIn(t, base, "init", "-q", "-b", "main", s0)
	gitIn(t, s0, "commit", "-q", "--allow-empty", "-m", "s")
	gitIn(t, s0, "push", "-q", subRemote, "main")
	marker := filepath.Join(base, "hook-ran")
	if err := os.WriteFile(filepath.Join(subRemote, "hooks", "pre-receive"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, base, "init", "-q", "--bare", "-b", "main", filepath.Join(base, "top.git"))
	top := filepath.Join(base, "top")
	gitIn(t, base, "init", "-q", "-b", "main", top)
	gitIn(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subRemote, "sub")
	gitIn(t, top, "commit", "-q", "-m", "x")
	gitIn(t, top, "remote", "add", "origin", filepath.Join(base, "top.git"))
	gitIn(t, filepath.Join(top, "sub"), "commit", "-q", "--allow-empty", "-m", "new")
	gitIn(t, top, "add", "sub")
	gitIn(t, top, "commit", "-q", "-m", "bump")
	for _, args := range [][]string{
		{"push", "--recurse-submodules=on-demand", "origin", "main"},
		{"push", "--recurse-submodules", "on-demand", "origin", "main"},
		{"push", "--recurse-submodules=only", "origin", "main"},
		{"push", "--rec=on-demand", "origin", "main"},
		{"-c", "push.recurseSubmodules=on-demand", "push", "origin", "main"},
		{"-c", "Push.RecurseSubmodules=on-demand", "push", "origin", "main"},
		{"-c", "submodule.recurse=true", "push", "origin", "main"},
	} {
		cmd, err := Command("", top, nil, args...)
		if err != nil {
			continue // refused
		}
		out, _ := cmd.CombinedOutput()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git %q ran the submodule remote's pre-receive hook\n%s", args, out)
		}
	}
}

// TestAttackPreparePlantedGit: gitsafe's git runs outside the sandbox (the
// agent's checkpoints); named by PATH, it must never be a git planted in a
// directory a session may write (a HOME under /tmp, ~/.local/bin first).
func TestAttackPreparePlantedGit(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	bin := filepath.Join(t.TempDir(), ".local", "bin") // under /tmp
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexec "+realGit+" \"$@\"\n"), 0o755)
	t.Setenv("PATH", bin+":"+filepath.Dir(realGit)+":/usr/bin:/bin")
	argv, _, err := Prepare("", repo, os.Environ(), []string{"status"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(argv[0], bin) {
		t.Errorf("gitsafe runs the planted %s", argv[0])
	}
}
