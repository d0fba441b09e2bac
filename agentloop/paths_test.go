package agentloop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/ollama/ollama/api"
)

// TestSymlinkedRoot: with the project given through a symlink (macOS's
// /tmp -> /private/tmp), absolute paths spelled through that symlink reach
// the project for reading and writing; a symlink inside the project that
// points outside is still refused for writing (and asks for reading).
func TestSymlinkedRoot(t *testing.T) {
	p := newProject(t, "gofix", false)
	outside := filepath.Join(p.home, "outside") // not /tmp, which reads allow
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside data\n"), 0o644)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(p.root, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(p.root, "out")); err != nil {
		t.Fatal(err)
	}
	abs := func(rel string) string { return filepath.Join(link, rel) }
	f := newFake(t,
		calls(call("read_file", `{"path": "`+abs("calc.go")+`"}`)),
		calls(call("write_file", `{"path": "`+abs("notes/new.txt")+`", "content": "written through the link\n"}`)).with(expectTool("read_file", "func Sum")),
		calls(call("edit_file", `{"path": "`+abs("calc.go")+`", "old_string": "adds up", "new_string": "sums"}`)).with(expectTool("write_file", "created notes/new.txt")),
		calls(call("write_file", `{"path": "`+abs("out/evil.txt")+`", "content": "x"}`)).with(expectTool("edit_file", "edited calc.go")),
		calls(call("write_file", `{"path": "out/evil2.txt", "content": "x"}`)).with(expectTool("write_file", "leads outside the project")),
		calls(call("read_file", `{"path": "out/secret.txt"}`)).with(expectTool("write_file", "leads outside the project")),
		calls(call("run_shell", `{"command": "true"}`)).with(expectTool("read_file", "needs approval [read.outside-project]")),
		calls(call("finish", `{"summary": "done"}`)),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(c *Config) { c.Workdir = link; c.TestCmd = "true" })
	if err != nil {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	if got := p.read(t, "notes/new.txt"); got != "written through the link\n" {
		t.Errorf("notes/new.txt = %q", got)
	}
	if !strings.Contains(p.read(t, "calc.go"), "// Sum sums the numbers.") {
		t.Error("calc.go not edited through the link")
	}
	for _, n := range []string{"evil.txt", "evil2.txt"} {
		if _, err := os.Lstat(filepath.Join(outside, n)); err == nil {
			t.Errorf("%s written outside the project through the symlink out", n)
		}
	}
}

// TestReadOutsideAsks: read_file of a file outside the project asks at the
// gate (rule read.outside-project), the one approval point: approved, the
// model gets the content; refused, it gets the refusal, and nothing is
// read. Without a human it is refused as every ask is.
func TestReadOutsideAsks(t *testing.T) {
	p := newProject(t, "gofix", false)
	dir := p.home // not /tmp, which reads allow
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the outside notes\n"), 0o644)
	other := filepath.Join(dir, "notes.txt")
	gate := &scriptGate{answers: map[string][]interp.GateAnswer{"read_file": {interp.GateAllowOnce, interp.GateDeny}}}
	p.gate = gate
	f := newFake(t,
		calls(call("read_file", `{"path": "`+other+`"}`)),
		calls(call("read_file", `{"path": "`+other+`"}`)).with(expectTool("read_file", "the outside notes")),
		calls(call("write_file", `{"path": "`+other+`", "content": "x"}`)).with(func(t *testing.T, req *api.ChatRequest) {
			if r := lastToolResult(req, "read_file"); strings.Contains(r, "the outside notes") || !strings.Contains(r, "REFUSED") {
				t.Errorf("refused outside read: %s", r)
			}
		}),
		calls(call("finish", `{"summary": "done"}`)).with(expectTool("write_file", "leads outside the project")),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, nil)
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	if len(gate.seen) != 2 {
		t.Fatalf("gate asked %d times, want 2 (the write outside never reaches it): %+v", len(gate.seen), gate.seen)
	}
	for _, r := range gate.seen {
		if r.Verdict.Rule != "read.outside-project" || r.Command.Args[0] != "read_file" {
			t.Errorf("gate request: %s [%s]", r.Command.Args, r.Verdict.Rule)
		}
	}
	if b, _ := os.ReadFile(other); string(b) != "the outside notes\n" {
		t.Errorf("the outside file changed: %q", b)
	}
}
