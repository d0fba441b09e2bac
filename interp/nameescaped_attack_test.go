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

// TestAttackNameEscapedWithExpansion: in sandboxed auto mode a command
// whose name is written with a backslash asks (cmd.unknown) in the runner
// as in the checker, also when the name holds an expansion that bash
// removes (\frob${e}nicate, \fro$(echo)bnicate: bash runs frobnicate). The
// runner remembered only names made of literal parts, so these ran.
func TestAttackNameEscapedWithExpansion(t *testing.T) {
	proj := t.TempDir()
	bin := filepath.Join(proj, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "frobnicate"), []byte("#!/bin/sh\necho RAN\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		src string
		ran bool
	}{
		{"frobnicate", true},
		{`\frobnicate`, false},
		{`\frobnicate${e}`, false},
		{`e=; \fro${e}bnicate`, false},
		{`\fro$(echo)bnicate`, false},
		{`fro\bnicate"$e"`, false},
		// the name a wrapper runs, written with a backslash: bash runs
		// frobnicate through command, env, exec, timeout
		{`command \frobnicate`, false},
		{`env \frobnicate`, false},
		{`timeout 5 fro\bnicate`, false},
		{`command \fro${e}bnicate`, false},
		{`frobnicate \.`, true},
		{`exec \frobnicate`, false},
	} {
		p := guardsh.NewPolicy(guardsh.ModeAuto)
		p.Sandboxed = true
		var out, errb bytes.Buffer
		r, err := New(Config{
			Policy:  p,
			Project: proj,
			Dir:     proj,
			Env:     []string{"HOME=" + t.TempDir(), "PATH=" + bin + ":" + os.Getenv("PATH"), "TMPDIR=" + proj},
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
		if ran := strings.Contains(out.String(), "RAN"); ran != tt.ran {
			t.Errorf("%q: ran %v, want %v (stderr %q)", tt.src, ran, tt.ran, errb.String())
		}
		if !tt.ran && !strings.Contains(errb.String(), "[cmd.unknown]") {
			t.Errorf("%q: want a cmd.unknown refusal, stderr %q", tt.src, errb.String())
		}
		// the checker agrees
		if v, _ := p.CheckScript(tt.src, guardsh.CheckEnv{Project: proj, Dir: proj, Home: proj}); (v.Decision == guardsh.Allow) != tt.ran {
			t.Errorf("%q: checker %s [%s], runner ran %v", tt.src, v.Decision, v.Rule, tt.ran)
		}
	}
}
