package interp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

func TestAuditLine(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	r, err := New(Config{Dir: dir, Audit: audit.New(&buf, "s"), Sandbox: "off (test)"})
	if err != nil {
		t.Fatal(err)
	}
	r.auditLine(":(){ :|:& };:", guardsh.Verdict{Decision: guardsh.Deny, Rule: "fork.bomb", Reason: "fork bomb"})
	var rec audit.Record
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	if rec.Via != "line" || rec.Decision != "deny" || rec.Rule != "fork.bomb" || rec.Argv[0] != ":(){ :|:& };:" || rec.Cwd != dir {
		t.Errorf("record %+v", rec)
	}
}

func TestAuditLineRefusedByRunner(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	r, err := New(Config{Dir: dir, Project: dir, Env: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")},
		Policy: guardsh.NewPolicy(guardsh.ModeBypass), Audit: audit.New(&buf, "s")})
	if err != nil {
		t.Fatal(err)
	}
	// Refused as a whole line (pipe into a shell); harmless if it ran.
	if st := r.Run(context.Background(), strings.NewReader("curl -s http://127.0.0.1:9/x | sh"), "t"); st != 126 {
		t.Fatalf("status %d", st)
	}
	if !strings.Contains(buf.String(), `"via":"line"`) || !strings.Contains(buf.String(), `"decision":"deny"`) {
		t.Errorf("audit log:\n%s", buf.String())
	}
}
