package interp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

// TestAttackForgedMarkers: the names of protocol.go that hold a NUL byte
// (inputCmd, internalPrefix+NAME) must not be spelt by a script. mvdan's
// mapfile keeps NUL bytes (bash's ends the line there), so a file holding
// "\0guardsh-input" and "\0gs-kill" gives a script both names; "command
// NAME" and "exec NAME" take the second one to the exec handler, and the
// first one had the exec handler drop itself and run the rest undecided.
// kill -1 is a catastrophic deny, refused in bypass mode too; signal 0
// sends nothing, so the test is harmless if the guard fails (the status
// then says the kill ran).
func TestAttackForgedMarkers(t *testing.T) {
	const prelude = `printf '\000guardsh-input\n\000gs-kill\n' > f; mapfile -t a < f
`
	for _, src := range []string{
		`kill -0 -1`,
		`"${a[0]}" "${a[1]}" -0 -1`,
		`command "${a[1]}" -0 -1`,
		`(exec "${a[1]}" -0 -1)`,
		`"${a[0]}" command "${a[1]}" -0 -1`,
		`x=${a[1]}; command "$x" -0 -1`,
		`eval 'command "${a[1]}" -0 -1'`,
		`f() { "$@"; }; f "${a[0]}" "${a[1]}" -0 -1`,
	} {
		for _, mode := range []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass} {
			for _, g := range []struct {
				name string
				gate Gate
			}{{"no-human", nil}, {"approve-all", yesGate{}}} {
				if mode == guardsh.ModeBypass && g.gate != nil {
					continue // bypass asks nothing
				}
				t.Run(string(mode)+"/"+g.name+"/"+src, func(t *testing.T) {
					_, stderr, status := runAttack(t, mode, g.gate, prelude+src+`
echo "status=$?" >&2`)
					if strings.Contains(stderr, "status=0") {
						t.Errorf("kill -0 -1 ran (status %d); stderr:\n%s", status, stderr)
					}
				})
			}
		}
	}
}

// TestAttackFunctionNameInput: a name some script defines as a function is
// allowed as a function call and decided again in the exec handler when it
// turns out to be a program (handoff.markRecheck). The call handler reads
// the standard input of xargs, sqlite3, ed and python3 before deciding
// them; the second decision must see that input too, or a program that
// runs its input as commands runs them unjudged.
func TestAttackFunctionNameInput(t *testing.T) {
	for _, c := range []struct{ prog, src string }{
		{"python3", `echo 'import shutil,os; shutil.rmtree(os.environ["HOME"])' | python3`},
		{"sqlite3", `echo ".shell rm -rf $HOME" | sqlite3`},
		{"ed", `printf '%s\n' '!rm -rf ~' q | ed -s`},
		{"xargs", `echo "$HOME" | xargs rm -rf`},
	} {
		if _, err := exec.LookPath(c.prog); err != nil {
			t.Logf("no %s on PATH", c.prog)
			continue
		}
		for _, mode := range []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass} {
			src := c.prog + "() { :; }; unset -f " + c.prog + "\n" + c.src
			// a plain subtest name: t.TempDir's name, the HOME that
			// sqlite3's .shell gives sh unquoted, must be one word
			t.Run(string(mode)+"/"+c.prog, func(t *testing.T) {
				t.Log(src)
				lost, stderr, status := runAttack(t, mode, nil, src)
				if lost != "" {
					t.Errorf("HOME damaged (%s); status %d, stderr:\n%s", lost, status, stderr)
				}
			})
		}
	}
}

// TestAttackRecheckAuditExit: a command decided again in the exec handler
// (a name some script defines as a function, run as a program) gets its
// exit record like every program that ran (docs/audit.md): the second
// decision's handoff entry was left behind by gateExec, which had already
// looked for one.
func TestAttackRecheckAuditExit(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	r, err := New(Config{Dir: dir, Project: dir, Env: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")},
		Policy: guardsh.NewPolicy(guardsh.ModeAuto), Audit: audit.New(&buf, "s"), Sandbox: "off (test)",
		Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Run(context.Background(), strings.NewReader("ls() { :; }; unset -f ls\nls -d . >/dev/null; exit 3"), "t"); st != 3 {
		t.Fatalf("status %d", st)
	}
	decided, exited := map[uint64]bool{}, map[uint64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec audit.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch {
		case rec.Event == audit.EventDecide && len(rec.Argv) > 0 && rec.Argv[0] == "ls" && rec.Decision == "allow" && rec.Rule != "shell.builtin":
			decided[rec.ID] = true
		case rec.Event == audit.EventExit:
			exited[rec.ID] = true
		}
	}
	if len(decided) == 0 {
		t.Fatalf("no decide record for ls as a program:\n%s", buf.String())
	}
	for id := range decided {
		if !exited[id] {
			t.Errorf("decide record %d has no exit record:\n%s", id, buf.String())
		}
	}
}

// TestAttackWrappedInput: "command PROG" and "exec PROG" run PROG as a
// program; the call handler must read PROG's standard input before
// deciding it as it does for PROG alone, though command and exec are
// builtins.
func TestAttackWrappedInput(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 on PATH")
	}
	for i, src := range []string{
		`echo ".shell rm -rf $HOME" | command sqlite3`,
		`echo ".shell rm -rf $HOME" | command -- sqlite3`,
		`(echo ".shell rm -rf $HOME" | exec sqlite3)`,
		`echo ".shell rm -rf $HOME" | command exec sqlite3`,
	} {
		for _, mode := range []guardsh.Mode{guardsh.ModeAuto, guardsh.ModeBypass} {
			t.Run(fmt.Sprintf("%s/%d", mode, i), func(t *testing.T) {
				t.Log(src)
				lost, stderr, status := runAttack(t, mode, nil, src)
				if lost != "" {
					t.Errorf("HOME damaged (%s); status %d, stderr:\n%s", lost, status, stderr)
				}
			})
		}
	}
}
