package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

func TestAuditLogConcurrentLines(t *testing.T) {
	var buf bytes.Buffer
	a := New(&buf, "s1")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				id := a.Decide(&Record{Argv: []string{"echo", strings.Repeat("x", j)}, Decision: "allow", Sandbox: "off"})
				a.Exit(id, j%3, time.Millisecond)
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1600 {
		t.Fatalf("%d lines, want 1600", len(lines))
	}
	ids := map[uint64]int{}
	for _, l := range lines {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if r.Session != "s1" {
			t.Fatalf("session %q", r.Session)
		}
		ids[r.ID]++
	}
	if len(ids) != 800 {
		t.Errorf("%d distinct ids, want 800", len(ids))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestAuditLogErrorReportedOnce(t *testing.T) {
	a := New(failWriter{}, "")
	a.Decide(&Record{Argv: []string{"ls"}})
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Err = %v", err)
	}
	if a.Err() != nil {
		t.Error("error reported twice")
	}
	if len(a.Session()) != 16 {
		t.Errorf("session id %q", a.Session())
	}
}

func TestAuditLogPath(t *testing.T) {
	env := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return "/state"
		}
		return ""
	}
	if got := guardsh.AuditLogPath("/h", env); got != "/state/guardsh/audit.jsonl" {
		t.Errorf("got %q", got)
	}
	if got := guardsh.AuditLogPath("/h", nil); got != filepath.Join("/h", ".local/state/guardsh/audit.jsonl") {
		t.Errorf("got %q", got)
	}
	off := &guardsh.Config{AuditOff: true}
	if got := off.AuditLogPath("/h", nil); got != "" {
		t.Errorf("off: got %q", got)
	}
}

// BenchmarkAuditDecide is the cost per command of the audit log, with a
// write to a real file each time.
func BenchmarkAuditDecide(b *testing.B) {
	a, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), guardsh.AuditLimits{})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	rec := Record{Cwd: "/home/u/p", Project: "/home/u/p", Argv: []string{"go", "test", "./..."}, Via: "shell",
		Mode: guardsh.ModeAuto, Decision: "allow", Rule: "dev.routine", Reason: "routine development command", Sandbox: "landlock+seccomp (abi 7)"}
	for b.Loop() {
		r := rec
		id := a.Decide(&r)
		a.Exit(id, 0, time.Millisecond)
	}
}

func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	st := 3
	recs := []Record{
		{},
		{Time: "t", Event: "decide", ID: 7, Session: "s", Cwd: "/a b", Project: "/p", Argv: []string{"echo", "a\"b\\c", "\x00\x1f\n\r\t", "<&>", "\xff\xfe", "é\u2028\u2029😀"},
			Via: "shell", Mode: guardsh.ModeBypass, Decision: "ask", Rule: "r.x", Reason: "why", Gate: "once", Escalated: true,
			Effects: guardsh.Effects{Reads: []string{"/r"}, Writes: []string{"/w", "/x"}, Network: true, Install: true}, Sandbox: "off (test)"},
		{Event: "exit", ID: 1, Status: &st, DurationMS: 1.234},
		{Effects: guardsh.Effects{Reads: []string{}}},
		{Effects: guardsh.Effects{Network: true}},
		{Effects: guardsh.Effects{Writes: []string{"/w"}, Install: true}},
		{DurationMS: 1e-7},
	}
	for i := range recs {
		want, err := json.Marshal(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		got := appendRecord(nil, &recs[i])
		if string(got) != string(want) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func FuzzAppendRecord(f *testing.F) {
	f.Add("echo", "a\"b", 1.5, true)
	f.Fuzz(func(t *testing.T, a, b string, d float64, net bool) {
		rec := Record{Argv: []string{a, b}, Reason: b, DurationMS: d, Effects: guardsh.Effects{Network: net, Writes: []string{a}}}
		want, err := json.Marshal(&rec)
		if err != nil {
			return // NaN, Inf
		}
		if got := appendRecord(nil, &rec); string(got) != string(want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}
