package interp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp/jail"
	"github.com/guardsh/guardsh/interp/jail/jailtest"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// jailWorld is jailtest.World, the attack layout of the jail tests, for
// the shell.
type jailWorld struct {
	base, app, evil, outside, secret string
	tw                               *jailtest.World
}

const jailSecret = jailtest.Secret

func newJailWorld(t *testing.T) *jailWorld {
	t.Helper()
	jw := jailtest.New(t)
	return &jailWorld{base: jw.Base, app: jw.App, evil: jw.Evil, outside: jw.Outside, secret: jw.Secret, tw: jw}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (w *jailWorld) intact(t *testing.T) {
	t.Helper()
	if b, err := os.ReadFile(w.secret); err != nil || string(b) != jailSecret {
		t.Fatalf("outside file changed: %q %v", b, err)
	}
	if b, err := os.ReadFile(w.evil + "/x.txt"); err != nil || string(b) != "evil\n" {
		t.Fatalf("sibling file changed: %q %v", b, err)
	}
}

// strictAccess stands in for the policy: inside is allowed, everything
// outside is refused (reads would be an ask, which no gate approves here).
func strictAccess(log *[]guardsh.Access, mu *sync.Mutex) func(guardsh.Access) guardsh.Verdict {
	return func(a guardsh.Access) guardsh.Verdict {
		if mu != nil {
			mu.Lock()
			*log = append(*log, a)
			mu.Unlock()
		}
		if a.Inside || a.Resolved == "/dev/null" {
			return guardsh.Verdict{Decision: guardsh.Allow, Rule: "test.inside"}
		}
		what := "write.outside"
		if !a.Write {
			what = "read.outside"
		}
		return guardsh.Verdict{Decision: guardsh.Deny, Rule: what, Reason: a.Resolved + " is outside the project", Hint: "work inside the project"}
	}
}

// runJailed runs script in a runner with a JailFS on w.app.
func runJailed(t *testing.T, w *jailWorld, classify func(guardsh.Access) guardsh.Verdict, script string) (status int, stdout, stderr string, fs *JailFS) {
	t.Helper()
	fs, err := NewJailFS(w.app)
	mustOK(t, err)
	t.Cleanup(func() { fs.Close() })
	fs.Classify = classify
	var out, errb bytes.Buffer
	env := append(os.Environ(), "SECRET="+w.secret, "EVIL="+w.evil, "OUTSIDE="+w.outside, "HOME="+w.base)
	// Bypass mode runs every command, so the attacks reach the jail; the
	// access decisions come from classify.
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Project: w.app, Dir: w.app, Env: env, Stdout: &out, Stderr: &errb, FS: fs, Sandbox: "off (test)"})
	mustOK(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st := r.Run(ctx, strings.NewReader(script), "test")
	return st, out.String(), errb.String(), fs
}

// TestShellJailAttacks: redirections, source, $(<file) and globs cannot
// reach outside the project through any of the usual tricks.
func TestShellJailAttacks(t *testing.T) {
	tests := []struct {
		name, script string
		rule         string // in stderr
	}{
		{"absolute path", `echo PWNED > "$SECRET"`, "write.outside"},
		{"append absolute", `echo PWNED >> "$SECRET"`, "write.outside"},
		{"dot dot chain", `echo PWNED > ../outside/secret.txt`, "write.outside"},
		{"long dot dot chain", `echo PWNED > sub/../../../../..$SECRET`, "write.outside"},
		{"symlinked dir", `echo PWNED > linkdir/secret.txt`, "write.outside"},
		{"symlink final", `echo PWNED > linkfile`, "write.outside"},
		{"absolute symlink", `echo PWNED >> abslink`, "write.outside"},
		{"hard link", `echo PWNED > hard`, jail.RuleHardlink},
		{"hard link append", `echo PWNED >> hard`, jail.RuleHardlink},
		{"sibling prefix", `echo PWNED > "$EVIL/x.txt"`, "write.outside"},
		{"sibling via dot dot", `echo PWNED > ../app-evil/x.txt`, "write.outside"},
		{"cd outside then relative", `cd ../outside; echo PWNED > secret.txt`, "write.outside"},
		{"cd via symlink then relative", `cd linkdir; echo PWNED > secret.txt`, "write.outside"},
		{"literal tilde", `echo PWNED > "~/x"`, jail.RuleTilde},
		{"read outside", `read x < "$SECRET"; echo "$x"`, "read.outside"},
		{"read via link", `echo "$(<linkfile)"`, "read.outside"},
		{"source outside", `source linkdir/secret.txt`, "read.outside"},
		{"noclobber-less >|", `echo PWNED >| linkfile`, "write.outside"},
		{"nested shell", `bash -c 'echo PWNED > linkfile'`, "write.outside"},
		{"eval", `eval 'echo PWNED > "$SECRET"'`, "write.outside"},
		{"function", `f() { echo PWNED > linkfile; }; f`, "write.outside"},
		{"subshell", `( echo PWNED > linkfile )`, "write.outside"},
		{"glob outside", `echo "$OUTSIDE"/*`, "read.outside"},
		{"glob via link", `echo linkdir/*`, "read.outside"},
		{"tmpdir lookalike", `echo PWNED > "$TMPDIR/sh-interp-1"; ln -s "$SECRET" "$TMPDIR/sh-interp-2"; echo PWNED > "$TMPDIR/sh-interp-2"`, "write.outside"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newJailWorld(t)
			tmp := t.TempDir()
			script := "export TMPDIR=" + tmp + "\n" + tc.script
			_, out, errs, _ := runJailed(t, w, strictAccess(nil, nil), script)
			w.intact(t)
			if strings.Contains(out, "SECRET") || strings.Contains(out, "secret.txt") {
				t.Errorf("secret leaked to stdout: %q", out)
			}
			if !strings.Contains(errs, "guardsh: denied ["+tc.rule+"]") {
				t.Errorf("stderr lacks the refusal %s:\n%s", tc.rule, errs)
			}
		})
	}
}

// TestShellEmptyPath: a redirection to an empty name opens nothing and
// fails as in bash (": No such file or directory", status 1), not as a
// refusal: no file has an empty name.
func TestShellEmptyPath(t *testing.T) {
	w := newJailWorld(t)
	st, out, errs, _ := runJailed(t, w, strictAccess(nil, nil), `x=; echo PWNED > "$x"; echo "status=$?"; cat < ""`)
	w.intact(t)
	if want := "guardsh: line 1: : No such file or directory\nguardsh: line 1: : No such file or directory\n"; errs != want || out != "status=1\n" || st != 1 {
		t.Errorf("status %d, stdout %q, stderr:\n%s\nwant\n%s", st, out, errs, want)
	}
}

// TestShellJailMessage: a refused redirection prints one line naming the
// rule, the path, the reason and the hint, and fails like a redirection.
func TestShellJailMessage(t *testing.T) {
	w := newJailWorld(t)
	st, _, errs, _ := runJailed(t, w, strictAccess(nil, nil), `echo x > linkfile; echo "status=$?" >&2`)
	want := "guardsh: denied [write.outside]: linkfile: " + w.secret + " is outside the project. Work inside the project\nstatus=1\n"
	if errs != want || st != 0 {
		t.Errorf("status %d, stderr:\n%s\nwant\n%s", st, errs, want)
	}
}

// TestShellJailAccessFacts: the policy is told the resolved truth.
func TestShellJailAccessFacts(t *testing.T) {
	w := newJailWorld(t)
	var log []guardsh.Access
	var mu sync.Mutex
	runJailed(t, w, strictAccess(&log, &mu), `echo x > linkdir/secret.txt; cat < inlink; echo s*`)
	if len(log) < 3 {
		t.Fatalf("accesses: %+v", log)
	}
	a := log[0]
	if a.Path != "linkdir/secret.txt" || a.Resolved != w.secret || a.Inside || a.Link != w.app+"/linkdir" ||
		!a.Write || a.Via != "redirect" || a.Project != w.app || a.Dir != w.app || a.Home != w.base {
		t.Errorf("write access = %+v", a)
	}
	if b := log[1]; b.Write || !b.Inside || b.Resolved != w.app+"/in.txt" || b.Link != "" {
		t.Errorf("read access = %+v", b)
	}
	if c := log[2]; c.Via != "glob" || c.Resolved != w.app || c.Write {
		t.Errorf("glob access = %+v", c)
	}
}

// TestShellJailBashCompat: inside the project, symlinks that stay inside
// behave as in bash.
func TestShellJailBashCompat(t *testing.T) {
	script := `
echo one > inlink
cat inlink
echo two >> inlink
cat < in.txt
echo a > inlinkdir/f
cd inlinkdir
cat < f
cd ..
echo "$(<sub/f)"
echo 'echo sourced' > sub/s.sh
source inlinkdir/s.sh
echo i*
echo sub/*
{ echo no > in.txt/; } 2>/dev/null || echo trailing-slash-refused
{ echo no > newdir/; } 2>/dev/null || echo trailing-slash-create-refused
echo nothing > /dev/null
echo to-stderr > /dev/stderr
echo to-stdout > /dev/stdout
: > in.txt
cat in.txt
echo end
`
	w := newJailWorld(t)
	want := "one\none\ntwo\na\na\nsourced\nin.txt inlink inlinkdir\nsub/f sub/s.sh\ntrailing-slash-refused\ntrailing-slash-create-refused\nto-stdout\nend\n"
	st, out, errs, _ := runJailed(t, w, strictAccess(nil, nil), script)
	if st != 0 || out != want || errs != "to-stderr\n" {
		t.Errorf("status %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", st, out, want, errs)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		// the same script in bash, in a copy of the layout
		w2 := newJailWorld(t)
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = w2.app
		var bo, be bytes.Buffer
		cmd.Stdout, cmd.Stderr = &bo, &be
		cmd.Run()
		if bo.String() != out {
			t.Errorf("bash says:\n%s\nguardsh says:\n%s", bo.String(), out)
		}
	}
}

// TestShellJailRace swaps a name between a file inside and a symlink to the
// outside file while the shell writes to it in a loop.
func TestShellJailRace(t *testing.T) {
	w := newJailWorld(t)
	stopRace := w.tw.Race(false)
	st, _, errs, _ := runJailed(t, w, strictAccess(nil, nil), `
i=0
while [ $i -lt 1500 ]; do
  echo PWNED > race
  echo PWNED >> race
  echo PWNED > rdir/secret.txt
  i=$((i+1))
done 2>/dev/null
echo done`)
	stopRace()
	w.intact(t)
	if st != 0 {
		t.Errorf("status %d: %s", st, errs)
	}
}

// TestShellJailProcSubst: process substitution still works, its FIFOs live
// in the private directory, child processes see the real TMPDIR, and the
// interpreter's FIFO bypass cannot be pointed at a file of the shell's
// choosing through $TMPDIR.
func TestShellJailProcSubst(t *testing.T) {
	w := newJailWorld(t)
	tmp := t.TempDir()
	st, out, errs, fs := runJailed(t, w, strictAccess(nil, nil), `
export TMPDIR=`+tmp+`
cat < <(echo from-procsubst)
while read l; do echo "got $l"; done < <(printf 'a\nb\n')
echo <(true)
printenv TMPDIR
bash -c 'cat < <(echo nested)'
`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if st != 0 || len(lines) != 6 || lines[0] != "from-procsubst" || lines[1] != "got a" || lines[2] != "got b" || lines[5] != "nested" {
		t.Fatalf("status %d, stdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	if filepath.Dir(lines[3]) != fs.FIFODir() {
		t.Errorf("FIFO %s not in the private dir %s", lines[3], fs.FIFODir())
	}
	if lines[4] != tmp {
		t.Errorf("child TMPDIR = %s, want %s", lines[4], tmp)
	}
	// In-process access to the private directory is refused.
	_, _, errs, _ = runJailed(t, w, strictAccess(nil, nil), `d=$(dirname <(true)); echo x > "$d/other"; cat < "$d/other"`)
	if strings.Count(errs, "guardsh: denied ["+jail.RulePrivate+"]") != 2 {
		t.Errorf("private dir not refused:\n%s", errs)
	}
}

// TestShellJailFIFO: a FIFO in the project behaves as in bash (the reader
// waits for the writer), and a cancelled shell does not stay stuck on it.
func TestShellJailFIFO(t *testing.T) {
	w := newJailWorld(t)
	st, out, errs, _ := runJailed(t, w, strictAccess(nil, nil), `
mkfifo p
echo through-fifo > p &
cat < p
wait`)
	if st != 0 || out != "through-fifo\n" {
		t.Fatalf("status %d, out %q, err %q", st, out, errs)
	}
	// no writer ever comes: cancelling the context ends the wait
	fs, err := NewJailFS(w.app)
	mustOK(t, err)
	defer fs.Close()
	fs.Classify = strictAccess(nil, nil)
	var o, e bytes.Buffer
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Project: w.app, Dir: w.app, Stdout: &o, Stderr: &e, FS: fs})
	mustOK(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- r.Run(ctx, strings.NewReader("cat < p"), "t") }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("shell stuck on a FIFO after its context ended")
	}
}

// TestOpenHandlerNUL: a NUL byte cannot come from shell syntax, but the
// handler refuses it all the same.
func TestOpenHandlerNUL(t *testing.T) {
	w := newJailWorld(t)
	fs, err := NewJailFS(w.app)
	mustOK(t, err)
	defer fs.Close()
	fs.Classify = strictAccess(nil, nil)
	var calls []string
	fs.Classify = func(a guardsh.Access) guardsh.Verdict {
		calls = append(calls, a.Path)
		return guardsh.Verdict{Decision: guardsh.Allow}
	}
	r, err := New(Config{Project: w.app, Dir: w.app, FS: fs, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	mustOK(t, err)
	_ = r
	for _, p := range []string{"in\x00.txt", "", "~/x"} {
		hc := interp.HandlerContext{Dir: w.app, Env: expand.ListEnviron()}
		if _, err := fs.open(context.Background(), hc, p, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			t.Errorf("%q opened", p)
		} else if _, ok := err.(*os.PathError); !ok {
			t.Errorf("%q: error %T is not an *os.PathError (mvdan would end the script)", p, err)
		}
	}
	if len(calls) != 0 {
		t.Errorf("policy asked about unusable paths: %q", calls)
	}
}

// TestShellJailPolicy: with the real policy (no Classify override) and no
// gate, what the mode says about accesses outside the project holds.
func TestShellJailPolicy(t *testing.T) {
	tests := []struct {
		mode          guardsh.Mode
		script        string
		wantOut       string
		wantErr       string // substring of stderr; "" = stderr empty
		secretChanged bool
	}{
		{guardsh.ModeAuto, `echo inside > in.txt; read x < in.txt; echo "$x"; echo gone > /dev/null`, "inside\n", "", false},
		{guardsh.ModeAuto, `echo PWNED > "$SECRET"`, "", "guardsh: needs approval [", false},
		{guardsh.ModeAuto, `echo PWNED > linkfile`, "", "guardsh: needs approval [", false},
		{guardsh.ModeAuto, `echo PWNED > hard`, "", "guardsh: denied [" + jail.RuleHardlink + "]", false},
		// (reads under the temp dirs are allowed by the policy: read a file
		// that is really outside)
		{guardsh.ModeAuto, `ln -s /etc/passwd etclink; read x < etclink; echo "$x"`, "\n", "guardsh: needs approval [", false},
		{guardsh.ModeDefault, `echo PWNED >> ../outside/secret.txt`, "", "guardsh: needs approval [", false},
		{guardsh.ModeDefault, `read x < /etc/passwd; echo "$x"`, "\n", "guardsh: needs approval [", false},
		{guardsh.ModePlan, `echo PWNED > "$SECRET"`, "", "guardsh: ", false},
	}
	for _, tc := range tests {
		t.Run(string(tc.mode)+" "+tc.script, func(t *testing.T) {
			w := newJailWorld(t)
			fs, err := NewJailFS(w.app)
			mustOK(t, err)
			defer fs.Close()
			var out, errb bytes.Buffer
			env := append(os.Environ(), "SECRET="+w.secret, "HOME="+w.base)
			r, err := New(Config{Policy: guardsh.NewPolicy(tc.mode), Project: w.app, Dir: w.app, Env: env, Stdout: &out, Stderr: &errb, FS: fs})
			mustOK(t, err)
			r.Run(context.Background(), strings.NewReader(tc.script), "t")
			if out.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantOut)
			}
			if tc.wantErr == "" && errb.Len() > 0 || tc.wantErr != "" && !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.wantErr)
			}
			w.intact(t)
		})
	}
}

// TestStartupReads: the shell's own start-up files are read without asking
// (as bash does); the same read in a script is decided by the policy.
func TestStartupReads(t *testing.T) {
	w := newJailWorld(t)
	fs, err := NewJailFS(w.app)
	mustOK(t, err)
	defer fs.Close()
	var out, errb bytes.Buffer
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeAuto), Project: w.app, Dir: w.app, Stdout: &out, Stderr: &errb, FS: fs})
	mustOK(t, err)
	r.Run(StartupContext(context.Background()), strings.NewReader(`read x < /etc/passwd && echo startup-read`), "t")
	r.Run(context.Background(), strings.NewReader(`read x < /etc/passwd && echo script-read`), "t")
	if out.String() != "startup-read\n" || !strings.Contains(errb.String(), "needs approval") {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
}

// TestExecFIFONoHang: running an executable FIFO fails as in bash instead
// of hanging guardsh while it looks for a shebang.
func TestExecFIFONoHang(t *testing.T) {
	w := newJailWorld(t)
	done := make(chan string, 1)
	go func() {
		_, _, errs, _ := runJailed(t, w, strictAccess(nil, nil), `mkfifo ff; chmod +x ff; ./ff; echo "status=$?" >&2`)
		done <- errs
	}()
	select {
	case errs := <-done:
		if !strings.Contains(errs, "status=126") {
			t.Errorf("stderr %q", errs)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("guardsh hung on an executable FIFO")
	}
}

// TestShellJailGateAndAudit: an access the policy asks about goes to the
// session's gate (approved: the write happens; no human: refused with the
// gate's hint), and is in the audit log.
func TestShellJailGateAndAudit(t *testing.T) {
	for _, answer := range []GateAnswer{GateAllowOnce, GateNoHuman} {
		t.Run(answer.String(), func(t *testing.T) {
			w := newJailWorld(t)
			mustOK(t, os.Remove(w.app+"/hard")) // else the secret has two links
			fs, err := NewJailFS(w.app)
			mustOK(t, err)
			defer fs.Close()
			gate := &fakeGate{answer: answer}
			var auditBuf, out, errb bytes.Buffer
			audit := audit.New(&auditBuf, "test")
			env := append(os.Environ(), "SECRET="+w.secret, "HOME="+w.base)
			r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeAuto), Gate: gate, Audit: audit,
				Project: w.app, Dir: w.app, Env: env, Stdout: &out, Stderr: &errb, FS: fs})
			mustOK(t, err)
			r.Run(context.Background(), strings.NewReader(`echo approved > linkfile`), "t")
			audit.Flush()
			b, _ := os.ReadFile(w.secret)
			if answer == GateAllowOnce && string(b) != "approved\n" {
				t.Errorf("approved write did not happen: %q, stderr %q", b, errb.String())
			}
			if answer == GateNoHuman {
				w.intact(t)
				if !strings.Contains(errb.String(), "needs approval [") || !strings.Contains(errb.String(), "human") {
					t.Errorf("stderr %q", errb.String())
				}
			}
			if len(gate.reqs) != 1 || !strings.Contains(strings.Join(gate.reqs[0].Command.Args, " "), "redirect write "+w.secret) {
				t.Errorf("gate requests: %+v", gate.reqs)
			}
			if !strings.Contains(auditBuf.String(), `"via":"redirect"`) || !strings.Contains(auditBuf.String(), `"gate":"`+answer.String()+`"`) {
				t.Errorf("audit log:\n%s", auditBuf.String())
			}
		})
	}
}

// TestDevStdin: /dev/stdin is the shell's own input, not a copy that reads
// ahead: what one command leaves unread is there for the next, as in bash.
func TestDevStdin(t *testing.T) {
	w := newJailWorld(t)
	fs, err := NewJailFS(w.app)
	mustOK(t, err)
	defer fs.Close()
	pr, pw, err := os.Pipe()
	mustOK(t, err)
	pw.WriteString("l1\nl2\n")
	pw.Close()
	defer pr.Close()
	var out bytes.Buffer
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Project: w.app, Dir: w.app, Stdin: pr, Stdout: &out, Stderr: &out, FS: fs})
	mustOK(t, err)
	r.Run(context.Background(), strings.NewReader(`read a < /dev/stdin; read b; echo "$a $b" > /dev/stdout`), "t")
	if out.String() != "l1 l2\n" {
		t.Errorf("got %q", out.String())
	}
}
