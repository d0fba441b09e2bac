package agentloop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
)

// TestAdminContextLoopFile: in the admin context a human granted for a
// disk image (a regular file the test made, never a device), mkfs.ext4 on
// it is asked at the gate, approved, and runs; every audit record states the
// admin context; rm -rf / is still denied (its verdict only: nothing of it
// runs), and so is entering the admin context from a command.
func TestAdminContextLoopFile(t *testing.T) {
	mkfs, err := exec.LookPath("mkfs.ext4")
	if err != nil {
		if mkfs, err = exec.LookPath("/usr/sbin/mkfs.ext4"); err != nil {
			t.Skip("no mkfs.ext4 here")
		}
	}
	p := newProject(t, "gofix", false)
	img := filepath.Join(t.TempDir(), "loop.img")
	if err := os.WriteFile(img, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	grant, err := guardsh.NewAdminGrant([]string{img}, "--admin-device "+img)
	if err != nil {
		t.Fatal(err)
	}
	policy := guardsh.NewPolicy(guardsh.ModeAuto)
	policy.Admin = grant
	var auditBuf bytes.Buffer
	alog := audit.New(&auditBuf, "admin-test")
	alog.SetAdmin(grant.Describe())
	gate := &scriptGate{answers: map[string][]interp.GateAnswer{mkfs: {interp.GateAllowOnce}, "mkfs.ext4": {interp.GateAllowOnce}}}
	sh, err := interp.New(interp.Config{Policy: policy, Project: p.root, Dir: p.root, Env: shellEnv(t, p.home), Gate: gate, Audit: alog})
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t,
		calls(call("run_shell", `{"command": "`+mkfs+` -q -F `+img+` && echo formatted"}`)),
		calls(call("finish", `{"summary": "formatted the image"}`)).with(expectTool("run_shell", "formatted")),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(c *Config) { c.Shell = sh; c.TestCmd = "true" })
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	b, _ := os.ReadFile(img)
	if len(b) < 1082 || b[1080] != 0x53 || b[1081] != 0xEF {
		t.Fatalf("no ext4 superblock in the image: mkfs did not run")
	}
	if len(gate.seen) != 1 || gate.seen[0].Verdict.Rule != "disk.format" {
		t.Errorf("gate requests: %+v", gate.seen)
	}
	alog.Flush()
	n := 0
	sc := bufio.NewScanner(&auditBuf)
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		n++
		if !strings.Contains(r.Admin, "admin context (--admin-device "+img+")") {
			t.Errorf("audit record without the admin context: %s", sc.Text())
		}
	}
	if n == 0 {
		t.Fatal("no audit records")
	}
	// Verdicts only.
	env := guardsh.CheckEnv{Dir: p.root, Project: p.root, Home: p.home}
	for _, src := range []string{"rm -rf /", "rm -rf --no-preserve-root /", "rm -rf " + p.root, "guardsh-agent --admin-device /dev/sda task"} {
		if sv, _ := policy.CheckScript(src, env); sv.Decision != guardsh.Deny {
			t.Errorf("admin context: %q is %s [%s]", src, sv.Decision, sv.Rule)
		}
	}
}
