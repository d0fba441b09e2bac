package agentloop

import (
	"context"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
)

// TestModeEditsAgent: in edits mode the file tools change the project
// without reaching the gate, while every shell command asks (the human at
// the gate refuses ls, and the model is told; approves the test command, cat here).
func TestModeEditsAgent(t *testing.T) {
	p := newProject(t, "gofix", false)
	gate := &scriptGate{answers: map[string][]interp.GateAnswer{"cat": {interp.GateAllowOnce}}}
	p.gate = gate
	f := newFake(t,
		calls(call("read_file", `{"path": "calc.go"}`)),
		calls(editFix),
		calls(call("write_file", `{"path": "notes.txt", "content": "fixed\n"}`)).with(expectTool("edit_file", "edited calc.go")),
		calls(call("run_shell", `{"command": "ls"}`)).with(expectTool("write_file", "created notes.txt")),
		calls(call("run_shell", `{"command": "cat calc.go"}`)).with(expectTool("run_shell", "rule mode.default")),
		calls(call("finish", `{"summary": "done"}`)).with(expectTool("run_shell", "exit status: 0")),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeEdits, func(c *Config) { c.TestCmd = "cat calc.go" })
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	var asked []string
	for _, r := range gate.seen {
		asked = append(asked, strings.Join(r.Command.Args, " "))
	}
	if strings.Join(asked, ",") != "ls,cat calc.go" {
		t.Errorf("gate asked about %q, want only the shell command", asked)
	}
	if !strings.Contains(p.read(t, "calc.go"), "for i := 0;") {
		t.Error("calc.go not edited")
	}
}
