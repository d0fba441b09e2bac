package agentloop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
)

// swapGate approves every file change, after running swap (while the
// edit waits at the gate: between the check and the write).
type swapGate struct{ swap func() }

func (g *swapGate) Approve(ctx context.Context, req interp.GateRequest) interp.GateAnswer {
	if g.swap != nil && req.Command.Args[0] == "edit_file" {
		g.swap()
		g.swap = nil
	}
	return interp.GateAllowOnce
}

// TestAttackEditSwappedForSymlink: a multi-edit whose file is replaced by
// a symlink to a file outside the project while it waits at the gate must
// not write through the link: the outside file keeps its content.
func TestAttackEditSwappedForSymlink(t *testing.T) {
	p := newProject(t, "gofix", false)
	outside := filepath.Join(p.home, "victim.txt")
	os.WriteFile(outside, []byte("package calc\n// Sum adds up the numbers.\nfor i := 1;\n"), 0o644)
	calc := filepath.Join(p.root, "calc.go")
	g := &swapGate{swap: func() {
		os.Remove(calc)
		os.Symlink(outside, calc)
	}}
	p.gate = g
	f := newFake(t,
		calls(call("read_file", `{"path": "calc.go"}`)),
		calls(call("edit_file", `{"path": "calc.go", "edits": [{"old_string": "adds up", "new_string": "PWNED"}, {"old_string": "for i := 1;", "new_string": "for i := 0;"}]}`)),
		calls(call("finish", `{"summary": "done"}`)),
	)
	p.run(t, context.Background(), f, guardsh.ModeDefault, func(c *Config) { c.TestCmd = "" })
	if g.swap != nil {
		t.Fatal("the edit never reached the gate: nothing was swapped")
	}
	if b, _ := os.ReadFile(outside); strings.Contains(string(b), "PWNED") {
		t.Errorf("the edit wrote through a symlink swapped in at the gate: %s", b)
	}
}

// TestAttackUndoThroughSwappedLinks: outside git, undo of what shell
// commands changed must not restore or remove anything outside the
// project when, after the run, a changed file or its directory was
// replaced by a symlink to outside.
func TestAttackUndoThroughSwappedLinks(t *testing.T) {
	p := newProject(t, "gofix", false)
	os.MkdirAll(filepath.Join(p.root, "sub"), 0o755)
	os.WriteFile(filepath.Join(p.root, "sub", "a.txt"), []byte("original a\n"), 0o644)
	os.WriteFile(filepath.Join(p.root, "top.txt"), []byte("original top\n"), 0o644)
	f := newFake(t,
		calls(call("run_shell", `{"command": "echo changed > sub/a.txt && echo made > sub/b.txt && echo changed > top.txt && echo made > new.txt"}`)),
		calls(call("run_shell", `{"command": "true"}`)),
		calls(call("finish", `{"summary": "done"}`)),
	)
	if res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(c *Config) { c.TestCmd = "true" }); err != nil || !res.Finished {
		t.Fatalf("run: %v\n%s", err, out)
	}
	victims := filepath.Join(p.home, "victims")
	os.MkdirAll(victims, 0o755)
	for _, n := range []string{"a.txt", "b.txt", "top.txt", "new.txt"} {
		os.WriteFile(filepath.Join(victims, n), []byte("outside "+n+"\n"), 0o644)
	}
	// After the run: sub becomes a link to the victims' directory, top.txt
	// and new.txt links to victims.
	os.RemoveAll(filepath.Join(p.root, "sub"))
	os.Symlink(victims, filepath.Join(p.root, "sub"))
	for _, n := range []string{"top.txt", "new.txt"} {
		os.Remove(filepath.Join(p.root, n))
		os.Symlink(filepath.Join(victims, n), filepath.Join(p.root, n))
	}
	Undo(p.root) // may refuse; must not touch the victims
	for _, n := range []string{"a.txt", "b.txt", "top.txt", "new.txt"} {
		if b, err := os.ReadFile(filepath.Join(victims, n)); err != nil || string(b) != "outside "+n+"\n" {
			t.Errorf("undo changed %s outside the project: %q, %v", n, b, err)
		}
	}
}
