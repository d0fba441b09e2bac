package interp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestRuntimeInputReaders: at run time, commands whose verdict depends on
// their standard input (xargs makes it arguments, sqlite3 and ed run it)
// are judged with it: a credential file named on stdin asks (and, with no
// human, does not run) as cat FILE does; the same commands on harmless
// input run and see all of it. Before, the runner judged `xargs cat` with
// unknown input and the real xargs printed ~/.ssh keys; python3 reading
// its program from a here-string was not read at all.
func TestRuntimeInputReaders(t *testing.T) {
	var asked []string // the rules of the asks the (refusing) human saw
	var mu sync.Mutex
	gate := gateFunc(func(_ context.Context, q GateRequest) GateAnswer {
		mu.Lock()
		asked = append(asked, q.Verdict.Rule)
		mu.Unlock()
		return GateDeny
	})
	run := func(t *testing.T, src string) (stdout, stderr string, status int) {
		mu.Lock()
		asked = nil
		mu.Unlock()
		home, _ := makeHome(t)
		proj := t.TempDir()
		var outb, errb bytes.Buffer
		r, err := New(Config{
			Policy: guardsh.NewPolicy(guardsh.ModeAuto), Project: proj, Dir: proj,
			Env:   []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + proj},
			Stdin: strings.NewReader(""), Stdout: &outb, Stderr: &errb, Sandbox: "off (test)", Gate: gate,
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		status = r.Run(ctx, strings.NewReader(src), "t")
		return outb.String(), errb.String(), status
	}
	need := func(t *testing.T, prog string) {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	attacks := []struct{ src, prog string }{
		{`xargs cat <<< ~/.ssh/id_ed25519`, "xargs"},
		{`echo ~/.ssh/id_ed25519 | xargs cat`, "xargs"},
		{`printf '%s\n' "$HOME/.ssh/id_ed25519" | xargs -I{} cat {}`, "xargs"},
		{`cd ~ && echo .ssh/id_ed25519 | xargs od -c`, "xargs"},
		{`sqlite3 :memory: <<< ".read $HOME/.ssh/id_ed25519"`, "sqlite3"},
		{`git diff --no-index /dev/null ~/.ssh/id_ed25519`, "git"},
		{`od -c ~/.ssh/id_ed25519`, "od"},
		{`perl -pe 1 ~/.ssh/id_ed25519`, "perl"},
		// the program itself on standard input
		{`/usr/bin/python3 <<< "print(open('$HOME/.ssh/id_ed25519').read())"`, "/usr/bin/python3"},
		{`echo "print(open('$HOME/.ssh/id_ed25519').read())" | /usr/bin/python3 -`, "/usr/bin/python3"},
	}
	for _, a := range attacks {
		t.Run(a.src, func(t *testing.T) {
			need(t, a.prog)
			out, errs, status := run(t, a.src)
			if strings.Contains(out, "keep") || strings.Contains(out, "k   e   e   p") || status != 126 || !strings.Contains(errs, "read.credentials") {
				t.Fatalf("status %d, the key reached stdout or the refusal has no rule:\nstdout: %q\nstderr: %s", status, out, errs)
			}
		})
	}
	// the name after 64 KiB of padding, or after the runner stopped
	// waiting: the command runs on what came before, and the input stops
	// at the chunk that names the key
	late := []string{
		`(seq 1 20000; echo ~/.ssh/id_ed25519; seq 1 10) | xargs cat 2>/dev/null`,
		`(seq 1 20000; echo ~/.ssh/id_ed25519) | xargs -n 5000 cat 2>/dev/null`,
		`(sleep 3; echo ~/.ssh/id_ed25519) | xargs cat`,
	}
	for _, src := range late {
		t.Run(src, func(t *testing.T) {
			need(t, "xargs")
			out, errs, _ := run(t, src)
			mu.Lock()
			defer mu.Unlock()
			// the refusal is asked of the human (and audited) while the
			// command runs; its message on stderr may come after the
			// command ended
			if strings.Contains(out, "keep") || !slices.Contains(asked, "read.credentials") {
				t.Fatalf("the key reached stdout, or no ask [read.credentials] (asked %q):\nstdout: %.300q\nstderr: %s", asked, out, errs)
			}
		})
	}
	controls := []struct{ src, want, prog string }{
		{`xargs echo ok <<< hi`, "ok hi\n", "xargs"},
		{`printf 'a\nb\n' | xargs -n1 echo got`, "got a\ngot b\n", "xargs"},
		{`seq 1 20000 | xargs echo | wc -w`, "20000\n", "seq"},         // more than the read-ahead: nothing lost
		{`seq 1 40000 | xargs -n 3000 echo | wc -w`, "40000\n", "seq"}, // several checked chunks
		{`sqlite3 :memory: <<< 'select 40+2;'`, "42\n", "sqlite3"},
		{`echo 'print(1+1)' | /usr/bin/python3`, "2\n", "/usr/bin/python3"},
		{`perl <<< 'print 42, "\n"'`, "42\n", "perl"},
	}
	for _, c := range controls {
		t.Run(c.src, func(t *testing.T) {
			need(t, c.prog)
			out, errs, status := run(t, c.src)
			if status != 0 || strings.TrimLeft(out, " ") != c.want {
				t.Fatalf("status %d, stdout %q, want %q\nstderr: %s", status, out, c.want, errs)
			}
		})
	}
}

// gateFunc is a Gate made of a function.
type gateFunc func(context.Context, GateRequest) GateAnswer

func (f gateFunc) Approve(ctx context.Context, q GateRequest) GateAnswer { return f(ctx, q) }
