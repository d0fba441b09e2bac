package interp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// slowWriter records what reaches the file, slowly, so that the background
// writer is still busy when the log wants to flush.
type slowWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	delay time.Duration
	fail  error
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return 0, w.fail
	}
	return w.buf.Write(p)
}

func (w *slowWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.buf.String() }

// TestAuditAsyncOrderAndDecide: with full buffers of pure builtins' records
// still being written in the background, a decide record is on the file
// when Decide returns, after all of them, in order.
func TestAuditAsyncOrderAndDecide(t *testing.T) {
	w := &slowWriter{delay: 30 * time.Millisecond}
	a := NewAuditLog(w, "s")
	const n = 2000 // ~600 KB of records: several buffers handed over
	for i := range n {
		if i%2 == 0 {
			a.notePure("/p", "/p", []string{"[", "x", "=", "y", "]"}, guardsh.ModeAuto, "shell.builtin", "r", "")
		} else {
			a.Note(&guardsh.AuditRecord{Argv: []string{"true"}, Decision: "allow"})
		}
	}
	id := a.Decide(&guardsh.AuditRecord{Argv: []string{"rm", "-rf", "build"}, Decision: "allow"})
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d records on file when Decide returned, want %d", len(lines), n+1)
	}
	for i, line := range lines {
		var rec guardsh.AuditRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d: %v: %q", i+1, err, line)
		}
		if rec.ID != uint64(i+1) {
			t.Fatalf("line %d has id %d: out of order", i+1, rec.ID)
		}
	}
	if !strings.Contains(lines[n], `"argv":["rm","-rf","build"]`) || id != n+1 {
		t.Fatalf("last record %s (id %d)", lines[n], id)
	}
	// The background writer ends when it has nothing left.
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.async.mu.Lock()
		running := a.async.running
		a.async.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("background writer still running")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAuditAsyncError: a failed background write is reported, once.
func TestAuditAsyncError(t *testing.T) {
	w := &slowWriter{fail: errors.New("disk full")}
	a := NewAuditLog(w, "s")
	for range 1000 {
		a.notePure("/p", "/p", []string{"true"}, guardsh.ModeAuto, "shell.builtin", "r", "")
	}
	if err := a.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush: %v", err)
	}
	if err := a.Err(); err == nil {
		t.Fatal("Err: nil")
	}
	if err := a.Err(); err != nil {
		t.Fatalf("Err twice: %v", err)
	}
}
