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

// Run-time attack tests: the real runner, the sandbox off, the rules alone.
// Each attack runs for real against a throwaway HOME (t.TempDir()) holding
// marker files; HOME must be intact afterwards in every mode, bypass
// included, and also when a gate approves every ask (the attacks must be
// denials, not questions).

// homeAttacks are catastrophic deletes of home in disguise: denied in every
// mode.
var homeAttacks = []string{
	// the contract's disguises (guardsh/policy_test.go TestContract)
	`X=~; rm -rf $X`,
	`eval "rm -rf ~"`,
	`f(){ rm -rf "$1"; }; f ~`,
	`c=rm; $c -rf ~`,
	`bash -c "rm -rf ~"`,
	`find ~ -delete`,
	`echo ~ | xargs rm -rf`,
	// spellings and flags
	`rm -rf $HOME`,
	`rm -rf ~/`,
	`rm -r -f -- ~`,
	`rm --recursive --force ~`,
	`rm -R --force "$HOME"`,
	`\rm -rf ~`,
	`/bin/rm -rf ~`,
	`rm -rf ~/*`,
	`rm -fr "$HOME"/*`,
	`cd ~ && rm -rf *`,
	`cd; rm -rf .`,
	`cd ~; rm -rf ./`,
	// wrappers
	`env rm -rf ~`,
	`command rm -rf ~`,
	`(exec rm -rf ~)`,
	`timeout 5 rm -rf ~`,
	`nice -n 5 rm -rf ~`,
	`nohup rm -rf ~ 2>/dev/null`,
	`xargs rm -rf <<< ~`,
	`find ~ -exec rm -rf {} +`,
	`find ~ -mindepth 1 -delete`,
	`sudo rm -rf ~`,
	// nested shells, scripts, eval, source
	`sh -c 'rm -rf ~'`,
	`dash -c 'rm -rf "$HOME"'`,
	`sh -c 'sh -c "rm -rf ~"'`,
	`env -i HOME="$HOME" /bin/sh -c 'rm -rf "$HOME"'`,
	`printf 'rm -rf ~' | sh`,
	`bash <<< 'rm -rf ~'`,
	`bash -s <<< 'rm -rf ~'`,
	`echo 'rm -rf ~' > s.sh; sh s.sh`,
	`echo 'rm -rf ~' > s.sh; bash ./s.sh`,
	`echo 'rm -rf ~' > s.sh; . ./s.sh`,
	`source /dev/stdin <<< 'rm -rf ~'`,
	`trap 'rm -rf ~' EXIT`,
	`rm -rf ~ & wait`,
	// values only known at run time
	`a=r; b=m; $a$b -rf ~`,
	`$(echo rm) -rf ~`,
	`"$(printf '\x72\x6d')" -rf ~`,
	`read -r x <<< ~; rm -rf "$x"`,
	`x=$(cd ~ && pwd); rm -rf "$x"`,
	`set -- ~; rm -rf "$@"`,
	`arr=(~); rm -rf "${arr[@]}"`,
	`p=$HOME/; rm -rf "${p%/}"`,
	`declare -n r=HOME; rm -rf "$r"`,
	`IFS=:; x="rm:-rf:$HOME"; $x`,
	`printf -v cmd %s rm; $cmd -rf ~`,
	`chmod -R 000 ~`,
}

// inlineAttacks delete home from interpreter code: the rules ask (a human
// must approve), so HOME stays intact in every mode but bypass when nobody
// approves.
var inlineAttacks = []string{
	`python3 -c "import shutil,os; shutil.rmtree(os.path.expanduser('~'))"`,
	`perl -e 'use File::Path; rmtree($ENV{HOME})'`,
	`python3 - <<'EOF'
import shutil, os
shutil.rmtree(os.environ["HOME"])
EOF`,
}

// fedAttacks feed code that deletes home to an interpreter through stdin:
// no argv shows it, the line check must (denied in every mode).
var fedAttacks = []string{
	`python3 <<'EOF'
import shutil, os
shutil.rmtree(os.environ["HOME"])
EOF`,
	`echo 'import shutil,os; shutil.rmtree(os.environ["HOME"])' | python3`,
	`python3 - <<< 'import shutil,os; shutil.rmtree(os.environ["HOME"])'`,
	`printf '%s\n' 'rm -rf ~' | bash`,
}

// yesGate approves every ask for this session: a careless human.
type yesGate struct{}

func (yesGate) Approve(context.Context, GateRequest) GateAnswer { return GateAllowOnce }

// makeHome builds a throwaway home with markers and returns a check that
// they are all still there.
func makeHome(t *testing.T) (home string, intact func() string) {
	t.Helper()
	home = t.TempDir()
	if root := os.Getenv("GUARDSH_TEST_HOME_ROOT"); root != "" {
		// For diagnosis: a home outside /tmp.
		d, err := os.MkdirTemp(root, "home-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755); os.RemoveAll(d) })
		home = d
	}
	files := []string{"marker.txt", "sub/keep.txt", ".ssh/id_ed25519", ".bashrc"}
	for _, f := range files {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("keep "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home, func() string {
		fi, err := os.Stat(home)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
			return "home itself changed"
		}
		var gone []string
		for _, f := range files {
			if b, err := os.ReadFile(filepath.Join(home, f)); err != nil || string(b) != "keep "+f {
				gone = append(gone, f)
			}
		}
		if len(gone) > 0 {
			return "lost " + strings.Join(gone, ", ")
		}
		return ""
	}
}

func runAttack(t *testing.T, mode guardsh.Mode, gate Gate, src string) (lost, stderr string, status int) {
	t.Helper()
	home, intact := makeHome(t)
	defer os.Chmod(home, 0o755) // chmod -R 000 must not break cleanup
	proj := t.TempDir()
	var errb, outb bytes.Buffer
	r, err := New(Config{
		Policy:  guardsh.NewPolicy(mode),
		Project: proj,
		Dir:     proj,
		Env:     []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + proj},
		Stdin:   strings.NewReader(""),
		Stdout:  &outb,
		Stderr:  &errb,
		Gate:    gate,
		Sandbox: "off (test)",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	status = r.Run(ctx, strings.NewReader(src), "attack")
	return intact(), errb.String(), status
}

func TestGuardHomeAttacks(t *testing.T) {
	modes := []guardsh.Mode{guardsh.ModeDefault, guardsh.ModePlan, guardsh.ModeAuto, guardsh.ModeBypass}
	gates := []struct {
		name string
		gate Gate
	}{{"no-human", nil}, {"approve-all", yesGate{}}}
	for _, src := range homeAttacks {
		for _, mode := range modes {
			for _, g := range gates {
				t.Run(string(mode)+"/"+g.name+"/"+src, func(t *testing.T) {
					lost, stderr, status := runAttack(t, mode, g.gate, src)
					if lost != "" {
						t.Errorf("%s in %s mode (gate %s): HOME damaged (%s); status %d, stderr:\n%s", src, mode, g.name, lost, status, stderr)
					}
				})
			}
		}
	}
}

func TestGuardInlineAttacks(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, src := range inlineAttacks {
		for _, mode := range []guardsh.Mode{guardsh.ModeDefault, guardsh.ModePlan, guardsh.ModeAuto} {
			t.Run(string(mode)+"/"+src, func(t *testing.T) {
				lost, stderr, status := runAttack(t, mode, nil, src)
				if lost != "" {
					t.Errorf("%s in %s mode: HOME damaged (%s); status %d, stderr:\n%s", src, mode, lost, status, stderr)
				}
				if status == 0 {
					t.Errorf("%s in %s mode: status 0, want a refusal; stderr:\n%s", src, mode, stderr)
				}
			})
		}
	}
}

// projectAttacks delete the whole project root: denied in every mode.
var projectAttacks = []string{
	`rm -rf "$PWD"`,
	`rm -rf ./*`,
	`rm -rf *`,
	`cd .. && rm -rf "$OLDPWD"`,
	`d=$(pwd); rm -rf "$d"`,
	`find . -delete`,
	`bash -c 'rm -rf "$PWD"'`,
	`echo "$PWD" | xargs rm -rf`,
	`cd /; rm -rf "$OLDPWD"`,
	`eval 'rm -rf "$PWD"'`,
}

func TestGuardProjectAttacks(t *testing.T) {
	for _, src := range projectAttacks {
		for _, mode := range []guardsh.Mode{guardsh.ModeDefault, guardsh.ModePlan, guardsh.ModeAuto, guardsh.ModeBypass} {
			for _, g := range []struct {
				name string
				gate Gate
			}{{"no-human", nil}, {"approve-all", yesGate{}}} {
				t.Run(string(mode)+"/"+g.name+"/"+src, func(t *testing.T) {
					home, _ := makeHome(t)
					proj := t.TempDir()
					files := []string{"go.mod", "README.md", "src/main.go", "docs/index.md", ".git/HEAD"}
					for _, f := range files {
						p := filepath.Join(proj, f)
						os.MkdirAll(filepath.Dir(p), 0o755)
						if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					var errb bytes.Buffer
					r, err := New(Config{Policy: guardsh.NewPolicy(mode), Project: proj, Dir: proj, Gate: g.gate,
						Env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, Stdin: strings.NewReader(""), Stderr: &errb})
					if err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					st := r.Run(ctx, strings.NewReader(src), "attack")
					for _, f := range files {
						if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
							t.Errorf("%s in %s mode (gate %s): lost %s; status %d, stderr:\n%s", src, mode, g.name, f, st, errb.String())
						}
					}
				})
			}
		}
	}
}

// TestGuardSmallProjectGlob: in a project with only two top-level
// entries, rm -rf * reaches the policy expanded ("rm -rf go.mod src"); the
// runner also hands it the command as written (Command.Source), so it is
// still the bare glob of the project root, denied in every mode.
func TestGuardSmallProjectGlob(t *testing.T) {
	for _, src := range []string{"rm -rf *", "rm -rf ./*", `rm -rf "$PWD"/*`} {
		for _, mode := range []guardsh.Mode{guardsh.ModeDefault, guardsh.ModeAuto, guardsh.ModeBypass} {
			for _, gate := range []Gate{nil, yesGate{}} {
				home, _ := makeHome(t)
				proj := t.TempDir()
				for _, f := range []string{"go.mod", "src/main.go"} {
					os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755)
					os.WriteFile(filepath.Join(proj, f), []byte(f), 0o644)
				}
				r, err := New(Config{Policy: guardsh.NewPolicy(mode), Project: proj, Dir: proj, Gate: gate,
					Env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, Stdin: strings.NewReader("")})
				if err != nil {
					t.Fatal(err)
				}
				r.Run(context.Background(), strings.NewReader(src), "attack")
				if _, err := os.Stat(filepath.Join(proj, "go.mod")); err != nil {
					t.Errorf("%s emptied a small project in %s mode (gate %v)", src, mode, gate)
				}
			}
		}
	}
}

// TestGuardDenyMessage checks what the model reads when a disguised delete
// is refused: the rule, the reason, a hint, status 126, and the script
// going on as after any failed command.
func TestGuardDenyMessage(t *testing.T) {
	lost, stderr, status := runAttack(t, guardsh.ModeBypass, nil, `c=rm; $c -rf ~; echo after >&2`)
	if lost != "" {
		t.Fatalf("HOME damaged: %s", lost)
	}
	if !strings.Contains(stderr, "guardsh: denied [rm.recursive-home]: ") || !strings.Contains(stderr, "after") {
		t.Errorf("stderr = %q", stderr)
	}
	if status != 0 {
		t.Errorf("status %d: the script should go on after the refusal", status)
	}
	_, _, status = runAttack(t, guardsh.ModeBypass, nil, `set -e; rm -rf ~; echo not reached`)
	if status != 126 {
		t.Errorf("set -e: status %d, want 126", status)
	}
}

func TestGuardFedCodeAttacks(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, src := range fedAttacks {
		for _, mode := range []guardsh.Mode{guardsh.ModeDefault, guardsh.ModePlan, guardsh.ModeAuto, guardsh.ModeBypass} {
			for _, g := range []struct {
				name string
				gate Gate
			}{{"no-human", nil}, {"approve-all", yesGate{}}} {
				t.Run(string(mode)+"/"+g.name+"/"+src, func(t *testing.T) {
					lost, stderr, status := runAttack(t, mode, g.gate, src)
					if lost != "" {
						t.Errorf("%s in %s mode (gate %s): HOME damaged (%s); status %d, stderr:\n%s", src, mode, g.name, lost, status, stderr)
					}
				})
			}
		}
	}
}
