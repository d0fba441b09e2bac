//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestBrokerEscalationEnvAttack: an approved command runs the program the
// privileged side's PATH names, not one the project put first on the
// interpreter's PATH, and without the variables that make a program run
// other code (LD_PRELOAD, GIT_SSH_COMMAND, BASH_ENV).
func TestBrokerEscalationEnvAttack(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	if _, err := lookPath("env", "/", []string{"PATH=" + os.Getenv("PATH")}); err != nil {
		t.Skip("no env program on PATH")
	}
	project := t.TempDir()
	bin := filepath.Join(project, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "env"), []byte("#!/bin/sh\necho PROJECT-ENV-RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := NewConfig(project, t.TempDir(), "", nil)
	b, end, err := NewBroker(BackendLandlock, c, func(Request) (Rights, error) { return Rights{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	go b.Serve()
	cl := NewClient(end)
	defer cl.Close()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "KEEP=1", "LD_PRELOAD=/nonexistent/evil.so",
		"GIT_SSH_COMMAND=evil", "BASH_ENV=" + project + "/x"}
	resp, err := cl.Run(Request{Args: []string{"env"}, Dir: project, Env: env}, devnull, out, out)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(out.Name())
	got := string(b2)
	if resp.Status != 0 || !strings.Contains(got, "KEEP=1\n") {
		t.Fatalf("status %d (%s), output %q: want the system env with KEEP=1", resp.Status, resp.Err, got)
	}
	for _, bad := range []string{"PROJECT-ENV-RAN", "LD_PRELOAD=", "GIT_SSH_COMMAND=", "BASH_ENV=", "PATH=" + bin} {
		if strings.Contains(got, bad) {
			t.Errorf("escalated command's output has %q:\n%s", bad, got)
		}
	}
}

// TestAttackBrokerPlantedGitOnPrivilegedPath: the privileged side's own
// PATH may name a directory a session can write (HOME under /tmp with
// ~/.local/bin first). A git a command planted there must not be what an
// approved `git config` (which the privileged side runs itself, unconfined)
// or any approved command runs.
func TestAttackBrokerPlantedGitOnPrivilegedPath(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	project := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	home := t.TempDir() // under /tmp: writable in the sandbox
	bin := filepath.Join(home, ".local", "bin")
	os.MkdirAll(bin, 0o755)
	marker := filepath.Join(testenv.Outside(t), "ran")
	fake := "#!/bin/sh\necho \"$(grep NoNewPrivs /proc/self/status)\" >> " + marker + "\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+filepath.Dir(realGit)+":/usr/bin:/bin")
	c := NewConfig(project, t.TempDir(), "", nil)
	c.Protected = append(c.Protected, filepath.Join(project, ".git", "config"))
	b, end, err := NewBroker(BackendLandlock, c, func(Request) (Rights, error) { return Rights{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	go b.Serve()
	cl := NewClient(end)
	defer cl.Close()
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	for _, args := range [][]string{{"git", "config", "user.name", "X"}, {"git", "status"}} {
		if _, err := cl.Run(Request{Args: args, Dir: project, Env: []string{"PATH=/usr/bin:/bin"}}, devnull, devnull, devnull); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("an approved git ran the git planted in the privileged side's PATH: %s", b)
	}
}
