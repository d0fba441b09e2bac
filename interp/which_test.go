package interp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestProgramsByResolution: pip and python are judged by the file they run
// on the session's PATH. A project venv's pip first on PATH is the venv's
// (allowed like .venv/bin/pip); VIRTUAL_ENV naming the venv while PATH
// runs another pip is not; a project symlink to a pip outside is what it
// points to.
func TestProgramsByResolution(t *testing.T) {
	proj := t.TempDir()
	write := func(name, body string, mode os.FileMode) {
		p := filepath.Join(proj, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".venv/pyvenv.cfg", "home = /usr/bin\n", 0o644)
	write(".venv/bin/pip", "#!/bin/sh\necho venv-pip \"$@\"\n", 0o755)
	write("other/pip", "#!/bin/sh\necho other-pip \"$@\"\n", 0o755)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "pip"), []byte("#!/bin/sh\necho outside-pip \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(proj, "links"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "pip"), filepath.Join(proj, "links", "pip")); err != nil {
		t.Fatal(err)
	}
	sys := os.Getenv("PATH")
	tests := []struct {
		path, venv string
		out        string
		refused    bool
	}{
		{proj + "/.venv/bin:" + sys, proj + "/.venv", "venv-pip install --no-index x\n", false},
		{proj + "/.venv/bin:" + sys, "", "venv-pip install --no-index x\n", false},
		{outside + ":" + sys, proj + "/.venv", "", true},
		{proj + "/links:" + sys, "", "", true},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		env := []string{"HOME=" + t.TempDir(), "PATH=" + tt.path, "TMPDIR=" + proj}
		if tt.venv != "" {
			env = append(env, "VIRTUAL_ENV="+tt.venv)
		}
		r, err := New(Config{
			Policy: guardsh.NewPolicy(guardsh.ModeAuto), Project: proj, Dir: proj, Env: env,
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sandbox: "off (test)",
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r.Run(ctx, strings.NewReader("pip install --no-index x"), "t")
		cancel()
		refused := strings.Contains(errb.String(), "[install.package]")
		if out.String() != tt.out || refused != tt.refused {
			t.Errorf("PATH=%s VIRTUAL_ENV=%q: stdout %q refused %v, want %q refused %v (stderr %q)",
				strings.SplitN(tt.path, ":", 2)[0], tt.venv, out.String(), refused, tt.out, tt.refused, errb.String())
		}
	}
}
