package agentloop

import (
	"context"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/ollama/ollama/api"
)

// TestMultiEdit: edit_file with several replacements applies them all in
// one write (one snapshot, undone as one); one whose old text is missing
// applies none, leaves the file as it was, and names the failing edit.
func TestMultiEdit(t *testing.T) {
	p := newProject(t, "gofix", false)
	orig := p.read(t, "calc.go")
	whole := call("edit_file", `{"path": "calc.go", "edits": [
		{"old_string": "// Sum adds up the numbers.", "new_string": "// Sum adds up all the numbers."},
		{"old_string": "for i := 1; i < len(xs); i++ {", "new_string": "for i := 0; i < len(xs); i++ {"},
		{"old_string": "total := 0", "new_string": "total := 0 // the sum so far"}]}`)
	broken := call("edit_file", `{"path": "calc.go", "edits": [
		{"old_string": "return total", "new_string": "return total + 0"},
		{"old_string": "there is no such line", "new_string": "x"}]}`)
	asString := call("edit_file", `{"path": "calc.go", "edits": "[{\"old_string\": \"return total\", \"new_string\": \"return (total)\"}]"}`)
	var afterBroken string
	f := newFake(t,
		calls(call("read_file", `{"path": "calc.go"}`)),
		calls(broken),
		calls(whole).with(func(t *testing.T, req *api.ChatRequest) {
			r := lastToolResult(req, "edit_file")
			for _, want := range []string{"edit 2 of 2", "old_string was not found in calc.go", "None of the edits was applied"} {
				if !strings.Contains(r, want) {
					t.Errorf("broken multi-edit result lacks %q:\n%s", want, r)
				}
			}
			afterBroken = p.read(t, "calc.go")
		}),
		calls(asString).with(expectTool("edit_file", "(3 edits)")),
		calls(call("run_shell", `{"command": "go test ./..."}`)).with(expectTool("edit_file", "return (total)")),
		calls(call("finish", `{"summary": "done"}`)),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, nil)
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	if afterBroken != orig {
		t.Errorf("the edit with a missing match changed calc.go:\n%s", afterBroken)
	}
	got := p.read(t, "calc.go")
	for _, want := range []string{"// Sum adds up all the numbers.", "for i := 0; i < len(xs); i++ {", "total := 0 // the sum so far", "return (total)"} {
		if !strings.Contains(got, want) {
			t.Errorf("calc.go lacks %q:\n%s", want, got)
		}
	}
	es, _ := ReadManifest(res.RunDir)
	befores := 0
	for _, e := range es {
		if e.Kind == "before" {
			befores++
		}
	}
	if befores != 2 {
		t.Errorf("%d snapshots for two edit_file calls, want 2", befores)
	}
	if _, err := Undo(p.root); err != nil || p.read(t, "calc.go") != orig {
		t.Errorf("undo: %v\n%s", err, p.read(t, "calc.go"))
	}
}

// TestEditFileSchema: the edits argument is offered as an array of
// objects, and its elements are checked.
func TestEditFileSchema(t *testing.T) {
	var spec *toolSpec
	for i := range toolSpecs {
		if toolSpecs[i].Name == "edit_file" {
			spec = &toolSpecs[i]
		}
	}
	tool := spec.api()
	prop, ok := tool.Function.Parameters.Properties.Get("edits")
	if !ok || len(prop.Type) != 1 || prop.Type[0] != "array" || prop.Items == nil {
		t.Fatalf("edits property: %+v", prop)
	}
	for _, tt := range []struct {
		args map[string]any
		err  string
	}{
		{map[string]any{"path": "a", "edits": []any{map[string]any{"old_string": "x"}}}, `lacks "new_string"`},
		{map[string]any{"path": "a", "edits": []any{"x"}}, "is not an object"},
		{map[string]any{"path": "a", "edits": []any{}}, "non-empty list"},
		{map[string]any{"path": "a", "edits": []any{map[string]any{"old_string": "x", "new_string": "y", "all": true}}}, `no field "all"`},
	} {
		if _, err := checkCall("edit_file", tt.args, toolSpecs); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("checkCall(%v) = %v, want %q", tt.args, err, tt.err)
		}
	}
}
