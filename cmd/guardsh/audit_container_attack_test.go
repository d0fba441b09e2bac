package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/sandbox"
)

// TestAttackContainerAuditKept: at the container level the privileged
// side restores the protected paths inside the writable roots when the
// session ends; with HOME under /tmp (writable) that includes the audit
// log in ~/.local/state/guardsh. The records the session wrote there must
// survive the restore (the log only grows), and a command that rewrites
// the earlier records is reported.
func TestAttackContainerAuditKept(t *testing.T) {
	if os.Geteuid() != 0 || sandbox.LandlockABI() < 2 {
		t.Skip("needs root and Landlock (CI)")
	}
	f := newFixture(t)
	home, err := os.MkdirTemp("/tmp", "guardsh-home-") // inside the writable /tmp
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	log := filepath.Join(home, ".local", "state", "guardsh", "audit.jsonl")
	os.MkdirAll(filepath.Dir(log), 0o700)
	os.WriteFile(log, []byte(`{"event":"earlier"}`+"\n"), 0o600)
	var env []string
	for _, e := range f.env(sandbox.BackendContainer, "GUARDSH_MODE=auto") {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "XDG_STATE_HOME=") {
			env = append(env, e)
		}
	}
	env = append(env, "HOME="+home)
	_, stderr, code := f.runArgs(t, env, "-c", "echo marker-kept")
	if code != 0 {
		t.Fatalf("session: %d %s", code, stderr)
	}
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), `"earlier"`) || !strings.Contains(string(b), `"session"`) {
		t.Errorf("the session's audit records were undone by the final restore:\n%s\nstderr: %s", b, stderr)
	}
	if strings.Contains(stderr, "audit.jsonl") {
		t.Errorf("the log's growth was reported as a change: %s", stderr)
	}
	// A command that rewrites the earlier records: said at the end.
	os.WriteFile(filepath.Join(f.project, "rewrite.py"), []byte("open("+quotePy(log)+", 'w').write('{}\\n')\n"), 0o644)
	_, stderr, _ = f.runArgs(t, env, "-c", "python3 rewrite.py")
	if !strings.Contains(stderr, "audit.jsonl") {
		t.Errorf("a rewritten audit log was not reported: %s", stderr)
	}
}

func quotePy(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
