package interp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// TestUserHomeProtected: with HOME pointed elsewhere (guardsh-agent's clean
// environment), Config.UserHome is the home the policy protects: reading
// its credentials asks, for a command and for a redirection alike.
func TestUserHomeProtected(t *testing.T) {
	base := t.TempDir()
	user, runHome, proj := filepath.Join(base, "user"), filepath.Join(base, "runhome"), filepath.Join(base, "proj")
	for _, d := range []string{filepath.Join(user, ".aws"), runHome, proj} {
		os.MkdirAll(d, 0o755)
	}
	key := filepath.Join(user, ".aws", "credentials")
	os.WriteFile(key, []byte("PRIVATE KEY"), 0o600)
	jfs, err := NewJailFS(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer jfs.Close()
	var out, errb bytes.Buffer
	r, err := New(Config{FS: jfs, Dir: proj, Project: proj, Env: []string{"HOME=" + runHome, "PATH=" + os.Getenv("PATH")},
		Policy: guardsh.NewPolicy(guardsh.ModeAuto), UserHome: user, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), strings.NewReader("cat "+key+"; read x < "+key+"; echo \"[$x]\""), "t")
	if strings.Contains(out.String(), "PRIVATE") || strings.Count(errb.String(), "[read.credentials]") < 2 {
		t.Errorf("the user's key was read with HOME elsewhere:\nstdout %s\nstderr %s", out.String(), errb.String())
	}
}
