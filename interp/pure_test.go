package interp

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

func pureRunner(t *testing.T, p *guardsh.Policy, audit *audit.Log) (*Runner, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	r, err := New(Config{Dir: dir, Project: dir, Env: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")},
		Policy: p, Audit: audit, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	return r, &out
}

// TestPureCacheFollowsPolicy: the runner's cached verdicts of pure builtins
// change as soon as a configured rule, a session approval or the mode does.
func TestPureCacheFollowsPolicy(t *testing.T) {
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	r, out := pureRunner(t, p, nil)
	run := func(step, src, want string) {
		t.Helper()
		out.Reset()
		r.Run(context.Background(), strings.NewReader(src), "t")
		if !strings.Contains(out.String(), want) {
			t.Fatalf("%s: %q printed %q, want %q", step, src, out.String(), want)
		}
	}
	denyEcho := guardsh.Rule{ID: "user.no-boom", Decision: guardsh.Deny, Prefix: []string{"echo", "boom"}, Reason: "no boom"}
	run("no rules", "echo boom", "boom")
	if _, ok := r.pureVerdict("echo"); !ok {
		t.Fatal("echo is not cached as pure without rules")
	}
	p.Rules = []guardsh.Rule{denyEcho}
	run("configured deny rule", "echo boom", "user.no-boom")
	run("configured deny rule, other args", "echo fine", "fine")
	p.Rules = nil
	run("rule removed", "echo boom", "boom")
	sessionMu.Lock()
	p.Session = append(p.Session, denyEcho) // approvals are appended
	sessionMu.Unlock()
	run("session rule", "echo boom", "user.no-boom")
	sessionMu.Lock()
	p.Session = p.Session[:0]
	sessionMu.Unlock()
	run("session rule removed", "echo boom", "boom")
	p.Mode = guardsh.Mode("future")
	if _, ok := r.pureVerdict("echo"); ok {
		t.Fatal("pure shortcut kept after a mode change")
	}
	p.Mode = guardsh.ModeAuto
	// A rule that names the verdict's rule could give it rights: no shortcut.
	p.Rules = []guardsh.Rule{{ID: "shell.builtin", Decision: guardsh.Allow, Prefix: []string{"git"}, Network: true}}
	if _, ok := r.pureVerdict("echo"); ok {
		t.Fatal("pure shortcut despite a rule with its rule id")
	}
}

// TestPureBuiltinsAudited: the shortcut counts each command per name in
// the session's counts record (the same counting the policy's own verdict
// would lead to: lazyAudit), and writes no line per command.
func TestPureBuiltinsAudited(t *testing.T) {
	var buf bytes.Buffer
	a := audit.New(&buf, "s")
	r, _ := pureRunner(t, guardsh.NewPolicy(guardsh.ModeAuto), a)
	src := `i=0; while [ $i -lt 5 ]; do i=$((i+1)); done; echo $i; test -n x; true`
	if st := r.Run(context.Background(), strings.NewReader(src), "t"); st != 0 {
		t.Fatalf("status %d", st)
	}
	a.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one counts record, got\n%s", buf.String())
	}
	var rec audit.Record
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"[": 6, "echo": 1, "test": 1, "true": 1}
	if rec.Event != audit.EventCounts || rec.Mode != guardsh.ModeAuto || rec.Project == "" || !maps.Equal(rec.Counts, want) {
		t.Errorf("counts record %s, want counts %v", lines[0], want)
	}
}

// TestTestInCallHandler: [ and test evaluated in the call handler keep
// bash's statuses and messages, and a script's own true or false function
// does not stand in for them.
func TestTestInCallHandler(t *testing.T) {
	tests := []struct{ src, want string }{
		{`[ 1 -lt 2 ]; echo $?; [ 2 -lt 1 ]; echo $?; test a = a; echo $?`, "0\n1\n0\n"},
		{`[ 1 -lt x ]; echo $?`, "guardsh: line 1: [: x: integer expression expected\n2\n"},
		{`[ 1 = 1; echo $?`, "guardsh: line 1: [: missing `]'\n2\n"},
		{`set -e; [ 1 = 2 ] || echo or; [ 1 = 2 ]; echo not reached`, "or\n"},
		{`true() { echo hijack; }; [ 1 = 1 ] && echo ok`, "ok\n"},
		{`false() { echo hijack; }; [ 1 = 2 ] || echo no`, "no\n"},
		{`! [ -e /nonexistent-guardsh ] && echo absent`, "absent\n"},
	}
	for _, tt := range tests {
		r, out := pureRunner(t, guardsh.NewPolicy(guardsh.ModeAuto), nil)
		r.Run(context.Background(), strings.NewReader(tt.src), "t")
		if out.String() != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.src, out.String(), tt.want)
		}
	}
}
