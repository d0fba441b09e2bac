package guardsh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackCredentialReaders: readers of a credential file the reader
// table did not know, each allowed before (auto mode): compressors' -c,
// tar's -C, a hard link into the project, xargs's argument file, awk's
// getline < FILE, sed's r command, literal paths in inline code.
func TestAttackCredentialReaders(t *testing.T) {
	for _, src := range []string{
		"gzip -c ~/.ssh/id_rsa",
		"xz -c ~/.ssh/id_rsa",
		"bzip2 -c ~/.aws/credentials",
		"tar cf - -C ~ .ssh",
		"ln ~/.ssh/id_rsa ./k",
		"xargs -a ~/.ssh/id_rsa echo",
		"xargs --arg-file=/home/user/.ssh/id_rsa echo",
		`awk 'BEGIN{while((getline l < "/home/user/.ssh/id_rsa")>0) print l}'`,
		`sed -e 'r /home/user/.ssh/id_rsa' /dev/null`,
		`perl -e 'open F,"<","/home/user/.ssh/id_rsa"; print <F>'`,
		`python3 -c "import shutil; shutil.copy('/home/user/.ssh/id_rsa','k')"`,
	} {
		sv := check(t, ModeAuto, src)
		if sv.Decision == Allow || !mentions(sv, idReadCredentials.String()) && sv.Decision != Deny {
			t.Errorf("auto: %s = %s [%s], want ask [%s]", src, sv.Decision, sv.Rule, idReadCredentials)
		}
	}
}

// TestAttackInlineSpawns: inline code that runs a command the scanner did
// not see (auto mode, each allowed before): a git reset --hard through
// python's subprocess.__dict__ and asyncio, ruby's Kernel.send, perl's
// pipe opens, readpipe and string eval, an ed script piping a typed-in
// buffer to sh, vim's system(), make -E, awk -f on a here-string, deno
// eval. (bash <(echo git reset --hard) is allowed by --check but denied by
// the runner, which judges the script's commands as it runs them.)
func TestAttackInlineSpawns(t *testing.T) {
	for _, src := range []string{
		`python3 -c "import subprocess; subprocess.__dict__['run'](['git','reset','--hard'])"`,
		`python3 -c "import asyncio; asyncio.run(asyncio.create_subprocess_shell('git reset --hard'))"`,
		`ruby -e 'Kernel.send(:system, "git reset --hard")'`,
		`perl -e 'open(P, "|-", "git reset --hard")'`,
		`perl -e 'open(P, "git reset --hard |")'`,
		`perl -e 'eval "sys"."tem q(git reset --hard)"'`,
		`perl -e 'readpipe("git reset --hard")'`,
		`ed -s <<< $'a\ngit reset --hard\n.\nw !sh'`,
		`vim -es -c ':call system("git reset --hard")' -c q`,
		`make -E 'x:=$(shell git reset --hard)'`,
		`awk -f /dev/stdin <<< 'BEGIN{system("git reset --hard")}'`,
		`deno eval "new Deno.Command('git',{args:['reset','--hard']}).outputSync()"`,
		`python3 -c "import os; vars(os)['system']('git reset --hard')"`,
		`python3 -c "import os; os.__getattribute__('system')('git reset --hard')"`,
		`node -e "new Function('return process')().mainModule.require('child_process').execSync('git reset --hard')"`,
		`perl -e 'system { "git" } "git","reset","--hard"'`,
		`perl -e 'exec { "git" } "git","reset","--hard"'`,
		`php -r '$f="sys"."tem"; $f("git reset --hard");'`,
		`php -r 'pcntl_exec("/usr/bin/git",["reset","--hard"]);'`,
		`lua -e 'local f=os["exe".."cute"]; f("git reset --hard")'`,
		`gawk '@load "./evil"; BEGIN{}'`,
		`ruby -e 'syscall 59'`,
	} {
		if sv := check(t, ModeAuto, src); sv.Decision == Allow {
			t.Errorf("auto: %s = allow [%s], want it judged (ask or deny)", src, sv.Rule)
		}
	}
}

// TestAttackGitEffects: git commands that do what a guarded one does get
// its decision: revert --abort and am --abort are cherry-pick --abort's
// sequencer rollback (git.abort); checkout -B and switch -C on an existing
// branch move it like branch -f (git.branch-force); repack -a -d drops
// the unreachable objects in packs like gc --prune=now.
func TestAttackGitEffects(t *testing.T) {
	cases := []struct{ src, like string }{
		{"git revert --abort", "git cherry-pick --abort"},
		{"git am --abort", "git merge --abort"},
		{"git checkout -B main HEAD~5", "git branch -f main HEAD~5"},
		{"git switch -C main HEAD~5", "git branch -f main HEAD~5"},
		{"git switch --force-create main HEAD~5", "git branch -f main HEAD~5"},
		{"git repack -a -d", "git gc --prune=now"},
	}
	for _, c := range cases {
		for _, m := range []Mode{ModeDefault, ModeAuto} {
			got, want := check(t, m, c.src), check(t, m, c.like)
			if got.Decision != want.Decision {
				t.Errorf("%s: %s = %s [%s], want %s like %s [%s]", m, c.src, got.Decision, got.Rule, want.Decision, c.like, want.Rule)
			}
		}
	}
}

// TestAttackGitApplyReversePipe: git diff | git apply -R reverts every
// uncommitted change, as git checkout . does, and the patch is gone with
// the pipe (git apply -R < saved.patch keeps it).
func TestAttackGitApplyReversePipe(t *testing.T) {
	t.Skip("HOLE: git diff | git apply -R is edit.project (auto: allow); git checkout . is git.checkout-discard (deny). The judge of git apply does not see that its standard input is a pipe from git diff")
	for _, m := range []Mode{ModeDefault, ModeAuto} {
		if got, want := check(t, m, "git diff | git apply -R"), check(t, m, "git checkout ."); got.Decision != want.Decision {
			t.Errorf("%s: git diff | git apply -R = %s [%s], want %s [%s]", m, got.Decision, got.Rule, want.Decision, want.Rule)
		}
	}
}

// TestAttackApprovalElsewhere: a session approval of git push origin main
// (given in the project, with the network) covers only that push. The
// session can make another repository (in a temp dir, by git init and an
// echo into its .git/config) whose origin is any URL: the same words there
// push what the session chose to where it chose, with the network. Words
// xargs reads from a file are words the human never saw.
func TestAttackApprovalElsewhere(t *testing.T) {
	r := ApprovalRule(Command{Args: []string{"git", "push", "origin", "main"}, Dir: "/p", Project: "/p", Home: "/h"})
	p := NewPolicy(ModeAuto)
	p.Session = []Rule{r}
	for _, c := range []Command{
		{Args: []string{"git", "push", "origin", "main"}, Dir: "/tmp/x", Project: "/p", Home: "/h"},
		{Args: []string{"git", "-C", "/tmp/x", "push", "origin", "main"}, Dir: "/p", Project: "/p", Home: "/h"},
		{Args: []string{"xargs", "-a", "args.txt", "git", "push", "origin"}, Dir: "/p", Project: "/p", Home: "/h"},
	} {
		if v := p.Classify(c); v.Decision == Allow {
			t.Errorf("after approving git push origin main in /p: %q in %s allowed [%s] (network %v)", c.Args, c.Dir, v.Rule, v.Effects.Network)
		}
	}
}

// TestAttackApprovalWrapped: the broker hardens an escalated git (gitsafe:
// hooks off, the repository's programs refused, no program-running option)
// when the program it runs is git. An approval of git push origin main
// that covers timeout 9 git push origin main escalates timeout, which then
// runs git with the hooks and config of the repository, with the network.
func TestAttackApprovalWrapped(t *testing.T) {
	c := func(s string) Command { return Command{Args: strings.Fields(s), Dir: "/p", Project: "/p", Home: "/h"} }
	p := NewPolicy(ModeAuto)
	p.Session = []Rule{ApprovalRule(c("git push origin main"))}
	for _, s := range []string{"timeout 9 git push origin main", "env git push origin main", "nice git push origin main", "nohup git push origin main"} {
		if v := p.Classify(c(s)); v.Decision == Allow {
			t.Errorf("after approving git push origin main: %q allowed [%s]", s, v.Rule)
		}
	}
	if v := p.Classify(c("/usr/bin/git push origin main")); v.Decision != Allow {
		t.Errorf("after approving git push origin main: /usr/bin/git push origin main = %s [%s]", v.Decision, v.Rule)
	}
}

// TestAttackGitCheckoutBareFile: git checkout FILE, a file name without a
// slash or a dot (Makefile, LICENSE), restores it from the index and
// discards its uncommitted changes (real git: "Updated 1 path from the
// index"), as git checkout -- FILE does. Judged where the file exists.
func TestAttackGitCheckoutBareFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"Makefile", "LICENSE"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := CheckEnv{Dir: dir, Project: dir, Home: "/home/user"}
	for _, src := range []string{"git checkout Makefile", "git checkout -m LICENSE", "git checkout HEAD Makefile"} {
		sv, _ := NewPolicy(ModeAuto).CheckScript(src, env)
		want, _ := NewPolicy(ModeAuto).CheckScript("git checkout -- Makefile", env)
		if sv.Decision != want.Decision {
			t.Errorf("auto: %s = %s [%s], want %s like git checkout -- Makefile [%s]", src, sv.Decision, sv.Rule, want.Decision, want.Rule)
		}
	}
	if sv, _ := NewPolicy(ModeAuto).CheckScript("git checkout main", env); sv.Decision != Allow {
		t.Errorf("auto: git checkout main (no such file) = %s [%s], want allow", sv.Decision, sv.Rule)
	}
}

// TestAttackGitExecKeys: -c keys whose value git runs, which the policy's
// git.config-exec did not know (gpg.ssh.defaultKeyCommand runs at a signed
// commit; browser.<tool>.path; git-lfs transfer agents).
func TestAttackGitExecKeys(t *testing.T) {
	for _, src := range []string{
		`git -c gpg.format=ssh -c gpg.ssh.defaultKeyCommand='sh x.sh' commit -S -m x`,
		`git -c browser.x.path='sh x.sh' web--browse http://h`,
		`git -c lfs.customtransfer.x.path='sh x.sh' lfs fetch`,
	} {
		if sv := check(t, ModeAuto, src); !mentions(sv, idGitConfigExec.String()) {
			t.Errorf("auto: %s = %s [%s], want [%s]", src, sv.Decision, sv.Rule, idGitConfigExec)
		}
	}
}
