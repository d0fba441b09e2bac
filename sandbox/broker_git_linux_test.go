//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestBrokerGitRunsWhatWasApproved: an escalated git push that the
// privileged side grants the network for (a human approved `git push
// origin main`, or a rule with network = true) runs the push and nothing
// else: not a --receive-pack/--exec program, not -c core.sshCommand, not a
// pre-push hook, not a config the session's HOME points to, not a
// repository redirected through commondir. Real git, a real broker under
// Landlock, a bare repository as the remote; the marker file is what the
// smuggled program would write.
func TestBrokerGitRunsWhatWasApproved(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	smuggled := `sh -c 'echo ran >> "$0"; exec git-receive-pack "$@"' MARKER`
	cases := []struct {
		name   string
		plant  func(t *testing.T, project, marker string)
		args   []string
		env    []string
		refuse string // "" the push must succeed
	}{
		{"plain push (control)", nil, []string{"git", "push", "-q", "origin", "main"}, nil, ""},
		{"--receive-pack", nil, []string{"git", "push", "origin", "main", "--receive-pack=" + smuggled}, nil, "--receive-pack"},
		{"--exec", nil, []string{"git", "push", "--exec=" + smuggled, "origin", "main"}, nil, "--exec"},
		{"-c remote.origin.receivepack", nil, []string{"git", "-c", "remote.origin.receivepack=" + smuggled, "push", "origin", "main"}, nil, "receivepack"},
		{"-c core.sshCommand", nil, []string{"git", "-c", "core.sshCommand=" + smuggled, "push", "origin", "main"}, nil, "core.sshCommand"},
		{"GIT_SSH_COMMAND and GIT_CONFIG_PARAMETERS", nil, []string{"git", "push", "-q", "origin", "main"},
			[]string{"GIT_SSH_COMMAND=" + smuggled, "GIT_CONFIG_PARAMETERS='remote.origin.receivepack=" + smuggled + "'"}, ""},
		{"pre-push hook", func(t *testing.T, project, marker string) {
			os.WriteFile(filepath.Join(project, ".git", "hooks", "pre-push"), []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755)
			os.WriteFile(filepath.Join(project, ".git", "hooks", "reference-transaction"), []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755)
		}, []string{"git", "push", "-q", "origin", "main"}, nil, ""},
		// the remote's own hooks (planted below): a local transport runs
		// its receive-pack here, without the command line's config
		{"hooks of a local remote", nil, []string{"git", "push", "-q", "origin", "main"}, nil, ""},
		{"hooks of a local remote named by path", nil, []string{"git", "push", "-q", "REMOTE", "main"}, nil, ""},
		{"--git-dir to a planted repository", func(t *testing.T, project, marker string) {
			other := filepath.Join(project, "other")
			git(project, "init", "-q", "-b", "main", other)
			git(other, "commit", "-q", "--allow-empty", "-m", "x")
			git(other, "config", "core.sshCommand", "sh x.sh")
		}, []string{"git", "--git-dir=other/.git", "push", "-q", "origin", "main"}, nil, "core.sshcommand"},
		{"receivepack in the repository's config", func(t *testing.T, project, marker string) {
			git(project, "config", "remote.origin.receivepack", strings.ReplaceAll(smuggled, "MARKER", marker))
		}, []string{"git", "push", "-q", "origin", "main"}, nil, "remote.origin.receivepack"},
		{"HOME pointed at a planted .gitconfig", func(t *testing.T, project, marker string) {
			os.MkdirAll(filepath.Join(project, "h"), 0o755)
			x := filepath.Join(project, "x.sh")
			os.WriteFile(x, []byte("#!/bin/sh\necho ran >> "+marker+"\nexec git-receive-pack \"$@\"\n"), 0o755)
			os.WriteFile(filepath.Join(project, "h", ".gitconfig"), []byte("[remote \"origin\"]\n\treceivepack = "+x+"\n"), 0o644)
		}, []string{"git", "push", "-q", "origin", "main"}, []string{"HOME=PROJECT/h"}, ""},
		{"git-receive-pack itself", nil, []string{"git-receive-pack", "REMOTE"}, nil, "serves a repository"},
		{"commondir", func(t *testing.T, project, marker string) {
			c := filepath.Join(project, "c")
			if err := os.CopyFS(c, os.DirFS(filepath.Join(project, ".git"))); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(c, "hooks", "pre-push"), []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755)
			os.WriteFile(filepath.Join(project, ".git", "commondir"), []byte("../c\n"), 0o644)
		}, []string{"git", "push", "-q", "origin", "main"}, nil, "commondir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			project, remote := t.TempDir(), filepath.Join(t.TempDir(), "remote.git")
			marker := filepath.Join(project, "ran")
			git(project, "init", "-q", "-b", "main")
			git(project, "commit", "-q", "--allow-empty", "-m", "one")
			git(filepath.Dir(remote), "init", "-q", "--bare", remote)
			git(project, "remote", "add", "origin", remote)
			if c.plant != nil {
				c.plant(t, project, marker)
			}
			if strings.HasPrefix(c.name, "hooks of a local remote") {
				for _, h := range []string{"pre-receive", "post-receive", "update", "post-update"} {
					os.WriteFile(filepath.Join(remote, "hooks", h), []byte("#!/bin/sh\necho ran >> "+marker+"\n"), 0o755)
				}
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "MARKER", marker), "REMOTE", remote)
			}
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			for _, e := range c.env {
				env = append(env, strings.ReplaceAll(strings.ReplaceAll(e, "MARKER", marker), "PROJECT", project))
			}
			// the remote is outside the project: the approval grants the
			// network and a write to it, as a rule could
			cfg := NewConfig(project, t.TempDir(), "", nil)
			b, end, err := NewBroker(BackendLandlock, cfg, func(Request) (Rights, error) {
				return Rights{Network: true, Writes: []string{filepath.Dir(remote)}}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			go b.Serve()
			cl := NewClient(end)
			defer cl.Close()
			out, _ := os.CreateTemp(t.TempDir(), "out")
			devnull, _ := os.Open(os.DevNull)
			defer devnull.Close()
			resp, err := cl.Run(Request{Args: args, Dir: project, Env: env, Network: true}, devnull, out, out)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out.Name())
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the smuggled program ran (status %d): %s %s", resp.Status, resp.Err, got)
			}
			if c.refuse == "" {
				if resp.Status != 0 {
					t.Fatalf("push refused or failed: status %d: %s\n%s", resp.Status, resp.Err, got)
				}
				return
			}
			if resp.Status != 126 || !strings.Contains(resp.Err, c.refuse) {
				t.Fatalf("want a refusal naming %q, got status %d: %s\n%s", c.refuse, resp.Status, resp.Err, got)
			}
		})
	}
}

// TestBrokerGitConfigWhateverTheApproval: the privileged side writes the
// project's protected .git/config only as gitsafe.ConfigWrite says, even
// when its check approves everything (a rule or a human that said yes to
// the words, an interpreter that lies about them): never a key that runs
// a program, never another file through -f, GIT_CONFIG or GIT_DIR, never
// --add include.path, --rename-section or --edit; an approved set writes
// that key, in place (the inode stays: a read-only bind mount of it in the
// session's namespace stays attached).
func TestBrokerGitConfigWhateverTheApproval(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	project := t.TempDir()
	outside := testenv.Outside(t) // /tmp is writable in the sandbox
	gitEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	cmd := exec.Command("git", "init", "-q", "-b", "main", project)
	cmd.Env = gitEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cfgPath := filepath.Join(project, ".git", "config")
	cfg := NewConfig(project, t.TempDir(), "", nil)
	if !slices.Contains(cfg.Protected, cfgPath) {
		t.Fatalf("%s is not protected: %v", cfgPath, cfg.Protected)
	}
	b, end, err := NewBroker(BackendLandlock, cfg, func(Request) (Rights, error) { return Rights{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	// ConfigWritten runs on the broker's goroutine before it answers;
	// the answer travels over a socket, which -race cannot see order
	// anything, so the list is read under a lock
	var mu sync.Mutex
	var writtenList []string
	b.ConfigWritten = func(p string, _ []byte) { mu.Lock(); writtenList = append(writtenList, p); mu.Unlock() }
	written := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(writtenList) }
	go b.Serve()
	cl := NewClient(end)
	defer cl.Close()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	run := func(env []string, args ...string) (Response, string) {
		t.Helper()
		out, _ := os.CreateTemp(t.TempDir(), "out")
		defer out.Close()
		resp, err := cl.Run(Request{Args: args, Dir: project, Env: append(append([]string{}, gitEnv...), env...)}, devnull, out, out)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out.Name())
		return resp, string(got)
	}
	var before syscall.Stat_t
	syscall.Stat(cfgPath, &before)
	orig, _ := os.ReadFile(cfgPath)
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"git", "config", "core.fsmonitor", "touch " + outside + "/pwn"}},
		{nil, []string{"git", "config", "--local", "core.sshCommand", "touch " + outside + "/pwn"}},
		{nil, []string{"git", "config", "alias.st", "!touch " + outside + "/pwn"}},
		{nil, []string{"git", "config", "--add", "include.path", outside + "/inc"}},
		{nil, []string{"git", "config", "include.path", outside + "/inc"}},
		{nil, []string{"git", "config", "--rename-section", "core", "x"}},
		{nil, []string{"git", "config", "--remove-section", "core"}},
		{[]string{"EDITOR=touch " + outside + "/pwn", "GIT_EDITOR=touch " + outside + "/pwn"}, []string{"git", "config", "--edit"}},
		{nil, []string{"git", "-c", "include.path=" + outside + "/inc", "config", "user.name", "X"}},
		{nil, []string{"git", "remote", "add", "x", "ext::touch " + outside + "/pwn"}},
	} {
		resp, out := run(c.env, c.args...)
		if resp.Status != 126 || !strings.Contains(resp.Err, "privileged side") {
			t.Errorf("%q: status %d %q %s, want the privileged side's refusal", c.args, resp.Status, resp.Err, out)
		}
	}
	if now, _ := os.ReadFile(cfgPath); string(now) != string(orig) {
		t.Fatalf("attack succeeded: .git/config changed:\n%s", now)
	}
	// another file: not the privileged side's write; git runs confined,
	// where the outside file is not writable
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"git", "config", "-f", outside + "/f", "user.name", "X"}},
		{[]string{"GIT_CONFIG=" + outside + "/f"}, []string{"git", "config", "user.name", "X"}},
		{[]string{"GIT_DIR=" + outside + "/g"}, []string{"git", "config", "user.name", "X"}},
	} {
		run(c.env, c.args...)
	}
	for _, p := range []string{"pwn", "inc", "f", "g"} {
		if _, err := os.Lstat(filepath.Join(outside, p)); err == nil {
			t.Errorf("attack succeeded: %s written outside", p)
		}
	}
	if w := written(); len(w) != 0 {
		t.Errorf("ConfigWritten told of %v", w)
	}
	// the approved write itself
	if resp, out := run(nil, "git", "config", "user.name", "Alice"); resp.Status != 0 || resp.Err != "" {
		t.Fatalf("approved write: status %d %q %s", resp.Status, resp.Err, out)
	}
	cmd = exec.Command("git", "-C", project, "config", "--local", "user.name")
	cmd.Env = gitEnv
	if out, _ := cmd.Output(); string(out) != "Alice\n" {
		t.Errorf("user.name = %q", out)
	}
	var after syscall.Stat_t
	syscall.Stat(cfgPath, &after)
	if after.Ino != before.Ino {
		t.Errorf("the config file was replaced, not written in place")
	}
	if w := written(); !slices.Equal(w, []string{cfgPath}) {
		t.Errorf("ConfigWritten told of %v, want %s", w, cfgPath)
	}
}

// TestAttackConfigWritePlantedDuringApproval: at the container level the
// session can write .git/config (Integrity restores it). A process the
// session left running plants a key that runs a program after the restore
// made before the approval (while a human reads the prompt): the
// privileged side's approved write must not be made from the planted file,
// and what the session's Integrity keeps afterwards must be the approved
// change alone, not whatever the file holds when the write is accepted.
func TestAttackConfigWritePlantedDuringApproval(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	project := t.TempDir()
	gitEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	cmd := exec.Command("git", "init", "-q", "-b", "main", project)
	cmd.Env = gitEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cfgPath := filepath.Join(project, ".git", "config")
	cfg := NewConfig(project, t.TempDir(), "", nil)
	guard, err := Snapshot([]string{cfgPath})
	if err != nil {
		t.Fatal(err)
	}
	plant := "[core]\n\tfsmonitor = touch pwn\n"
	for _, when := range []string{"during the approval", "after the write"} {
		t.Run(when, func(t *testing.T) {
			// the broker's goroutine and this one share guard: ordered by
			// the socket, which -race cannot see, so under a lock
			var mu sync.Mutex
			check := func(Request) (Rights, error) {
				mu.Lock()
				defer mu.Unlock()
				guard.Restore() // the session's restore before an approved command
				if when == "during the approval" {
					f, _ := os.OpenFile(cfgPath, os.O_WRONLY|os.O_APPEND, 0)
					f.WriteString(plant)
					f.Close()
				}
				return Rights{}, nil
			}
			b, end, err := NewBroker(BackendLandlock, cfg, check)
			if err != nil {
				t.Fatal(err)
			}
			b.ConfigBase = func(p string) ([]byte, bool) { mu.Lock(); defer mu.Unlock(); return guard.Recorded(p) }
			b.ConfigWritten = func(p string, data []byte) {
				mu.Lock()
				defer mu.Unlock()
				if when == "after the write" {
					f, _ := os.OpenFile(cfgPath, os.O_WRONLY|os.O_APPEND, 0)
					f.WriteString(plant)
					f.Close()
				}
				guard.Accept(p, data)
			}
			go b.Serve()
			cl := NewClient(end)
			defer cl.Close()
			devnull, _ := os.Open(os.DevNull)
			defer devnull.Close()
			cl.Run(Request{Args: []string{"git", "config", "user.name", "Alice " + when}, Dir: project, Env: gitEnv}, devnull, devnull, devnull)
			mu.Lock()
			guard.Restore() // the session's restore at its end
			mu.Unlock()
			got, _ := os.ReadFile(cfgPath)
			if strings.Contains(string(got), "fsmonitor") {
				t.Errorf("attack succeeded: the planted key is kept after the session's restore:\n%s", got)
			}
		})
	}
}
