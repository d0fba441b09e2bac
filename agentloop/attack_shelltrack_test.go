package agentloop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// TestAttackShellTrackingCapEscapesVerification: outside git, a shell
// command that changes a source file and, in the same call, pushes the
// project past MaxTrackedFiles turns the tracking off; its changes must
// still count for the verification gate, or finish is accepted with the
// tests never run on the changed code (the "no files changed").
// The same holds for every command after tracking went off.
func TestAttackShellTrackingCapEscapesVerification(t *testing.T) {
	if testing.Short() {
		t.Skip("creates many files")
	}
	p := newProject(t, "gofix", false)
	dir := filepath.Join(p.root, "many")
	os.MkdirAll(dir, 0o755)
	for i := range MaxTrackedFiles - 20 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644)
	}
	f := newFake(t,
		calls(goTest),
		// tracked: the scan sees 9,980 + the project's few files
		calls(call("run_shell", `{"command": "sed -i 's/for i := 1;/for i := 0;/' calc.go && for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do : > many/x$i; done"}`)),
		calls(call("finish", `{"summary": "done"}`)),
		calls(goTest).with(expectTool("finish", "finish refused")),
		calls(call("finish", `{"summary": "done"}`)),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, nil)
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	if n := len(f.requests()); n != 5 {
		t.Errorf("finish was accepted after %d model turns, with the changed calc.go never tested (want the refused finish, a test run, then finish):\n%s", n, out)
	}
}
