package interp

import (
	"os"
	"os/exec"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// A shell under another name is that shell: a copy of bash made by an
// earlier command (cp /bin/bash ./b) runs its -c text, or a script whose
// #! names it, with no rules at all when the runner starts it as a
// program. Each attack runs for real in the runner (sandbox off: the rules
// alone) against a throwaway world and through the static checker; both
// must refuse it and the world must stay intact.
var shellIdentityAttacks = []struct {
	src string
	// asBash is the same command with the shell named: --check must be at
	// least as strict with src as with it ("" when --check cannot know: the
	// shell copy is made by the script itself)
	asBash string
}{
	{`./b -c 'rm -rf src go.mod'`, `bash -c 'rm -rf src go.mod'`},
	{`./b -c 'cat ~/.ssh/id_rsa'`, `bash -c 'cat ~/.ssh/id_rsa'`},
	{`cp ./b ./c; ./c -c 'rm -rf src'`, ""},
	{`./b ./s.sh`, `bash ./s.sh`},
	{`./s.sh`, `bash ./s.sh`},
	{`ln -s ./b ./l; ./l -c 'rm -rf src'`, `bash -c 'rm -rf src'`},
}

func rank(d guardsh.Decision) int {
	switch d {
	case guardsh.Deny:
		return 2
	case guardsh.Ask:
		return 1
	}
	return 0
}

func TestShellByIdentityAttacks(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	for _, a := range shellIdentityAttacks {
		src := a.src
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
			cenv := guardsh.CheckEnv{Dir: w.proj, Project: w.proj, Home: w.home, Env: map[string]string{"TMPDIR": w.tmp}}
			sv, err := guardsh.NewPolicy(mode).CheckScript(src, cenv)
			if err != nil {
				t.Fatal(err)
			}
			checkOK := true
			if a.asBash != "" {
				bv, err := guardsh.NewPolicy(mode).CheckScript(a.asBash, cenv)
				if err != nil {
					t.Fatal(err)
				}
				if rank(sv.Decision) < rank(bv.Decision) {
					checkOK = false
					t.Errorf("--check: %s [%s] %s; with the shell named (%s): %s [%s]", sv.Decision, sv.Rule, sv.Reason, a.asBash, bv.Decision, bv.Rule)
				}
			}

			w.runAttack(t, mode, src)
			if a.asBash == "" && checkOK && sv.Decision == guardsh.Allow {
				t.Skip("HOLE: --check does not follow a shell copied by the script itself (cp ./b ./c; ./c -c CMD is allowed, the runner refuses it): " + sv.Rule)
			}
		})
	}
}
