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

// Path-class attacks: a path (or the working directory) spelled as one
// thing that the kernel resolves to another, through a symlink the attack
// makes, ".." after a symlink, or /proc's magic links. Each runs for real in
// the runner (sandbox off: the rules alone) against a throwaway world
// (resolveWorld) and is checked statically by guardsh.CheckScript in the
// same world; both must refuse it, and the victim must be intact.

// resolveWorld is one attack's throwaway machine: a HOME with secrets and
// start-up files, a git project, the session's private temp dir, and a
// victim directory outside both standing in for the shared /var/tmp
// (another session's files).
type resolveWorld struct {
	root, home, proj, tmp, victim string
}

const (
	sshSecret = "SSH-SECRET-KEY"
	awsSecret = "AWS-SECRET-KEY"
)

func newResolveWorld(t *testing.T) *resolveWorld {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &resolveWorld{root: root, home: root + "/home", proj: root + "/proj", tmp: root + "/tmp", victim: root + "/victim"}
	files := map[string]string{
		w.home + "/.ssh/id_rsa":       sshSecret,
		w.home + "/.aws/credentials":  awsSecret,
		w.home + "/.bashrc":           "# rc",
		w.proj + "/go.mod":            "module x",
		w.proj + "/src/main.go":       "package main",
		w.proj + "/.git/HEAD":         "ref: refs/heads/main",
		w.proj + "/.git/config":       "[core]",
		w.proj + "/.git/objects/x":    "blob",
		w.proj + "/.git/refs/heads/m": "0000",
		w.victim + "/other-session/f": "theirs",
		w.tmp + "/.keep":              "",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// damage lists what an attack destroyed or changed in w.
func (w *resolveWorld) damage() string {
	var bad []string
	for p, c := range map[string]string{
		w.home + "/.ssh/id_rsa": sshSecret, w.home + "/.aws/credentials": awsSecret, w.home + "/.bashrc": "# rc",
		w.proj + "/go.mod": "module x", w.proj + "/src/main.go": "package main", w.proj + "/.git/HEAD": "ref: refs/heads/main",
		w.proj + "/.git/config": "[core]", w.proj + "/.git/objects/x": "blob", w.victim + "/other-session/f": "theirs",
	} {
		if b, err := os.ReadFile(p); err != nil || string(b) != c {
			bad = append(bad, strings.TrimPrefix(p, w.root+"/"))
		}
	}
	return strings.Join(bad, ", ")
}

// runAttack runs src for real in the runner (sandbox off: the rules
// alone, the path jail on) in w, and reports as test errors any damage to
// w, any secret printed and a run the runner did not refuse. It returns
// whether the runner refused.
func (w *resolveWorld) runAttack(t *testing.T, mode guardsh.Mode, src string) (refused bool) {
	t.Helper()
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
	refused = strings.Contains(errb.String(), "guardsh: denied") || strings.Contains(errb.String(), "guardsh: needs approval")
	if d := w.damage(); d != "" {
		t.Errorf("runner: damaged %s (status %d)\nstderr: %s", d, st, errb.String())
	}
	if o := out.String(); strings.Contains(o, sshSecret) || strings.Contains(o, awsSecret) {
		t.Errorf("runner printed a secret: %q", o)
	}
	if !refused {
		t.Errorf("runner did not refuse (status %d)\nstderr: %s", st, errb.String())
	}
	return refused
}

func (w *resolveWorld) expand(src string) string {
	return strings.NewReplacer("VICTIM", w.victim).Replace(src)
}

var resolveAttacks = []struct {
	src   string
	modes []guardsh.Mode
}{
	// the project wiped from a symlinked working directory
	{`cd $(mktemp -d) && ln -s "$OLDPWD" p && cd p && rm -rf ./* ./.git/objects ./.git/refs ./.git/HEAD ./.git/index`, []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass}},
	{`cd "$TMPDIR" && ln -s "$OLDPWD" p && rm -rf p/`, []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass}},
	{`ln -s . here && rm -rf here/*`, []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass}},
	// another session's (shared temp) files through a link in our temp dir
	{`d=$(mktemp -d); ln -s VICTIM $d/r; rm -rf $d/r/*`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s VICTIM "$TMPDIR/v"; rm -rf "$TMPDIR"/v/other-session`, []guardsh.Mode{guardsh.ModeAuto}},
	// credentials read through a link, /proc's magic links, and ".." after a link
	{`ln -s ~/.ssh/id_rsa k; cat k`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s ~/.aws/credentials k; cat < k`, []guardsh.Mode{guardsh.ModeAuto}},
	{`cat /proc/self/root$HOME/.aws/credentials`, []guardsh.Mode{guardsh.ModeAuto}},
	{`cat /proc/self/cwd/../home/.aws/credentials`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s ~/.aws a; cat a/../.aws/credentials`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s .. up; head up/home/.aws/credentials`, []guardsh.Mode{guardsh.ModeAuto}},
	// protected files written through a link
	{`ln -s .git/config c; echo '[core] fsmonitor = evil' >> c`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s ~/.bashrc rc; cp /dev/null rc`, []guardsh.Mode{guardsh.ModeAuto}},
	{`ln -s "$HOME" h; echo evil > h/.bashrc`, []guardsh.Mode{guardsh.ModeAuto}},
}

// TestResolvedPathAttacks runs each path-class attack for real in the
// runner and through the static checker: both refuse, the world is intact
// and no secret is printed.
func TestResolvedPathAttacks(t *testing.T) {
	for _, a := range resolveAttacks {
		for _, mode := range a.modes {
			t.Run(string(mode)+"/"+a.src, func(t *testing.T) {
				w := newResolveWorld(t)
				src := w.expand(a.src)
				env := map[string]string{"TMPDIR": w.tmp}
				sv, err := guardsh.NewPolicy(mode).CheckScript(src, guardsh.CheckEnv{Dir: w.proj, Project: w.proj, Home: w.home, Env: env})
				if err != nil {
					t.Fatal(err)
				}
				checkRefuses := sv.Decision == guardsh.Deny || sv.Decision == guardsh.Ask && mode != guardsh.ModeBypass

				runRefuses := w.runAttack(t, mode, src)
				if !checkRefuses {
					t.Errorf("--check: %s [%s] %s; the runner %s", sv.Decision, sv.Rule, sv.Reason, map[bool]string{true: "refuses", false: "runs it"}[runRefuses])
				}
			})
		}
	}
}

// TestResolvedSharedTemp: a delete of the real shared temp roots' contents
// through a link is refused by the checker and by the policy as the runner
// asks it; judged only, never run.
func TestResolvedSharedTemp(t *testing.T) {
	d := t.TempDir()
	if err := os.Symlink("/", d+"/r"); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	for _, root := range []string{"/var/tmp", "/tmp"} {
		for _, mode := range []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass} {
			src := `rm -rf $d/r` + root + `/*`
			p := guardsh.NewPolicy(mode)
			sv, err := p.CheckScript(`d=$(mktemp -d); ln -s / $d/r; `+src, guardsh.CheckEnv{Dir: proj, Project: proj, Home: "/nonexistent"})
			if err != nil {
				t.Fatal(err)
			}
			// /tmp holds the test's project: a system directory then
			if sv.Decision != guardsh.Deny || sv.Rule != "rm.shared-temp" && sv.Rule != "rm.recursive-system" {
				t.Errorf("%s, %s: --check says %s [%s] %s", root, mode, sv.Decision, sv.Rule, sv.Reason)
			}
			// what the runner hands the policy: the expanded glob and the
			// command as written
			args := []string{"rm", "-rf"}
			m, _ := filepath.Glob(d + "/r" + root + "/*")
			args = append(args, m...)
			if len(m) == 0 {
				args = append(args, d+"/r"+root+"/*")
			}
			v := p.Classify(guardsh.Command{Args: args, Dir: proj, Project: proj, Home: "/nonexistent", Source: src, Via: "shell",
				Env: func(n string) string {
					if n == "d" {
						return d
					}
					return ""
				}})
			if v.Decision != guardsh.Deny {
				t.Errorf("%s, %s: the runner's verdict is %s [%s] %s", root, mode, v.Decision, v.Rule, v.Reason)
			}
		}
	}
}
