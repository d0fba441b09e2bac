package interp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// A shell under another name is that shell: a copy of bash made by an
// earlier command (cp /bin/bash ./b) runs its -c text, or a script whose
// #! names it, with no rules at all when the runner starts it as a
// program. Each attack runs for real in the runner (sandbox off: the rules
// alone) against a throwaway world and through the static checker; both
// must refuse it and the world must stay intact.
var shellIdentityAttacks = []string{
	`./b -c 'rm -rf src go.mod'`,
	`./b -c 'cat ~/.ssh/id_rsa'`,
	`cp ./b ./c; ./c -c 'rm -rf src'`,
	`./b ./s.sh`,
	`./s.sh`,
	`ln -s ./b ./l; ./l -c 'rm -rf src'`,
}

func TestShellByIdentityAttacks(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	for _, src := range shellIdentityAttacks {
		t.Run(src, func(t *testing.T) {
			w := newResolveWorld(t)
			body, err := os.ReadFile(bash)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(w.proj+"/b", body, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(w.proj+"/s.sh", []byte("#!"+w.proj+"/b\nrm -rf src\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			mode := guardsh.ModeAuto
			sv, err := guardsh.NewPolicy(mode).CheckScript(src, guardsh.CheckEnv{Dir: w.proj, Project: w.proj, Home: w.home, Env: map[string]string{"TMPDIR": w.tmp}})
			if err != nil {
				t.Fatal(err)
			}
			checkRefuses := sv.Decision != guardsh.Allow

			var out, errb bytes.Buffer
			jfs, err := NewJailFS(w.proj)
			if err != nil {
				t.Fatal(err)
			}
			defer jfs.Close()
			r, err := New(Config{Policy: guardsh.NewPolicy(mode), Project: w.proj, Dir: w.proj, FS: jfs,
				Env:   []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + w.tmp},
				Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sandbox: "off (test)"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			st := r.Run(ctx, strings.NewReader(src), "attack")
			runRefuses := strings.Contains(errb.String(), "guardsh: denied") || strings.Contains(errb.String(), "guardsh: needs approval")
			if d := w.damage(); d != "" {
				t.Errorf("runner: damaged %s (status %d)\nstderr: %s", d, st, errb.String())
			}
			if o := out.String(); strings.Contains(o, sshSecret) {
				t.Errorf("runner printed a secret: %q", o)
			}
			if !runRefuses {
				t.Errorf("runner did not refuse (status %d)\nstderr: %s", st, errb.String())
			}
			if !checkRefuses {
				t.Errorf("--check: %s [%s] %s", sv.Decision, sv.Rule, sv.Reason)
			}
		})
	}
}
