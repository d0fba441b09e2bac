package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/sandbox"
)

// TestContainerSurvivor: at the container level (no PID namespace) a
// process a command detaches (setsid, parent gone) outlives the session;
// it must not be able to plant a config key after the restore that ends
// the session, for the user's next git to run.
func TestContainerSurvivor(t *testing.T) {
	prefix := containerLike(t)
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock")
	}
	f := newFixture(t)
	env := f.env("", "GUARDSH_MODE=auto")
	env = append(env[:0:0], env...)
	for i, e := range env {
		if strings.HasPrefix(e, "GUARDSH_SANDBOX=") {
			env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	// The survivor waits for the session to end (its parent's parent, the
	// interpreter, is gone), then plants and says so in the project.
	plant := "import os, time\n" +
		"if os.fork(): os._exit(0)\n" +
		"os.setsid()\n" +
		"if os.fork(): os._exit(0)\n" +
		"time.sleep(1.5)\n" +
		"open('.git/config', 'a').write('[core]\\n\\tfsmonitor = touch ' + os.environ['OUT'] + '/fsmonitor\\n')\n" +
		"open('survivor-done', 'w').write('x')\n"
	os.WriteFile(filepath.Join(f.project, "survivor.py"), []byte(plant), 0o644)
	argv := append(append(append([]string{}, prefix...), f.bin), "-c", "python3 survivor.py; echo started")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = f.project, env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "started") {
		t.Fatalf("session: %v %s", err, out)
	}
	// Wait for the survivor to say it planted (it never does if the
	// session's end stopped it).
	for i := 0; i < 50; i++ {
		if _, err := os.Lstat(filepath.Join(f.project, "survivor-done")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b, _ := os.ReadFile(filepath.Join(f.project, ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("a process that outlived the session planted a config key after the final restore:\n%s", b)
	}
}
