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

// TestSourcedFunctions: a function is a function wherever it was defined
// (a sourced file, eval, nested sourcing, a file found on PATH): calling it
// is not an unknown command, and its body's commands are judged as they
// run. Auto mode, no sandbox, nobody to ask.
func TestSourcedFunctions(t *testing.T) {
	proj := t.TempDir()
	home := t.TempDir()
	files := map[string]string{
		"lib.sh":        "myf() { echo in-myf \"$@\"; }\n",
		"lib2.sh":       "source ./lib.sh\nnested() { echo nested; myf from-nested; }\n",
		"bin/pathlib":   "frompath() { echo from-path; }\n",
		"venv/activate": "deactivate() { echo deactivated; unset -f deactivate; }\n",
		"rmlib.sh":      "rm() { command rm \"$@\"; }\n",
		"never.sh":      "if false; then frobnicate() { :; }; fi\n",
	}
	for name, body := range files {
		p := filepath.Join(proj, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "keep"), []byte("x"), 0o644)
	tests := []struct {
		src, out string
		refused  string // a rule that must refuse, "" for none
	}{
		{"source ./lib.sh; myf a", "in-myf a\n", ""},
		{". ./lib.sh; myf b", "in-myf b\n", ""},
		{"source ./lib2.sh; nested", "nested\nin-myf from-nested\n", ""},
		{`eval "g() { echo g; }"; g`, "g\n", ""},
		{"PATH=$PWD/bin:$PATH; source pathlib; frompath", "from-path\n", ""},
		{"source venv/activate; deactivate", "deactivated\n", ""},
		// the body is judged: a function named rm deletes nothing it may not
		{"source ./rmlib.sh; rm -rf ~; echo $?", "126\n", "rm.recursive-home"},
		// a name a file only might define stays a command
		{"source ./never.sh; frobnicate", "", "cmd.unknown"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		r, err := New(Config{
			Policy:  guardsh.NewPolicy(guardsh.ModeAuto),
			Project: proj,
			Dir:     proj,
			Env:     []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + proj},
			Stdin:   strings.NewReader(""),
			Stdout:  &out,
			Stderr:  &errb,
			Sandbox: "off (test)",
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r.Run(ctx, strings.NewReader(tt.src), "t")
		cancel()
		if out.String() != tt.out {
			t.Errorf("%q: stdout %q, want %q (stderr %q)", tt.src, out.String(), tt.out, errb.String())
		}
		switch {
		case tt.refused == "" && strings.Contains(errb.String(), "guardsh:"):
			t.Errorf("%q: refused: %s", tt.src, errb.String())
		case tt.refused != "" && !strings.Contains(errb.String(), "["+tt.refused+"]"):
			t.Errorf("%q: want a refusal [%s], stderr %q", tt.src, tt.refused, errb.String())
		}
		if _, err := os.Stat(filepath.Join(home, "keep")); err != nil {
			t.Fatalf("%q: home lost a file", tt.src)
		}
	}
}
