package interp

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
	a := NewAuditLog(&buf, "s1")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				id := a.Decide(&guardsh.AuditRecord{Argv: []string{"echo", strings.Repeat("x", j)}, Decision: "allow", Sandbox: "off"})
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
		var r guardsh.AuditRecord
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
	a := NewAuditLog(failWriter{}, "")
	a.Decide(&guardsh.AuditRecord{Argv: []string{"ls"}})
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
	a, err := OpenAuditLog(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	rec := guardsh.AuditRecord{Cwd: "/home/u/p", Project: "/home/u/p", Argv: []string{"go", "test", "./..."}, Via: "shell",
		Mode: guardsh.ModeAuto, Decision: "allow", Rule: "dev.routine", Reason: "routine development command", Sandbox: "landlock+seccomp (abi 7)"}
	for b.Loop() {
		r := rec
		id := a.Decide(&r)
		a.Exit(id, 0, time.Millisecond)
	}
}
