package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// auditLines decodes every line of b as an audit record.
func auditLines(t *testing.T, b []byte) []Record {
	t.Helper()
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a record: %v: %.100s", err, sc.Text())
		}
		recs = append(recs, r)
	}
	return recs
}

// TestAuditCountsPure: builtins without effects are counted per name and
// written as one counts record when the session ends, not a line each.
func TestAuditCountsPure(t *testing.T) {
	var buf lockedBuffer
	a := New(&buf, "s")
	a.SetEnvScrubbed([]string{"GITHUB_TOKEN"})
	for range 100000 {
		a.CountPure("[", "/p", guardsh.ModeAuto, "landlock")
	}
	a.CountPure("echo", "/p", guardsh.ModeAuto, "landlock")
	if buf.Len() != 0 {
		t.Fatalf("counted commands written at once: %.200s", buf.String())
	}
	a.Flush()
	recs := auditLines(t, buf.Bytes())
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1 counts record:\n%s", len(recs), buf.String())
	}
	r := recs[0]
	if r.Event != EventCounts || r.Counts["["] != 100000 || r.Counts["echo"] != 1 || r.Session != "s" || r.Mode != guardsh.ModeAuto || r.Project != "/p" {
		t.Errorf("counts record: %+v", r)
	}
	if len(r.EnvScrubbed) != 1 {
		t.Errorf("the session's first record (a counts record) lost env_scrubbed: %+v", r)
	}
	a.Flush()
	if n := len(auditLines(t, buf.Bytes())); n != 1 {
		t.Errorf("a second Flush with nothing new wrote another record (%d)", n)
	}
	// Names are bounded: a script cannot grow the record without end.
	var b2 lockedBuffer
	a2 := New(&b2, "s")
	for i := range 5000 {
		a2.CountPure(fmt.Sprintf("f%d%s", i, strings.Repeat("x", 100)), "/p", guardsh.ModeAuto, "")
	}
	a2.Flush()
	if b2.Len() > 128<<10 {
		t.Errorf("counts record of 5,000 odd names is %d bytes", b2.Len())
	}
}

// TestAuditSessionCap: a session that writes past its cap keeps every
// distinct refusal and ask, drops allowed commands and repeats, and says
// how many it dropped; the file stays near twice the cap.
func TestAuditSessionCap(t *testing.T) {
	var buf lockedBuffer
	a := New(&buf, "s")
	const capBytes = 64 << 10
	a.SetLimits(guardsh.AuditLimits{SessionBytes: capBytes})
	deny := func(argv ...string) {
		a.Decide(&Record{Argv: argv, Decision: "deny", Rule: "rm.recursive-home", Reason: "r"})
	}
	deny("rm", "-rf", "/home/u") // before the cap
	for i := range 20000 {
		id := a.Decide(&Record{Argv: []string{"/bin/true", fmt.Sprint(i)}, Decision: "allow", Rule: "read.only", Reason: "read-only command"})
		a.Exit(id, 0, 0)
		if i%1000 == 999 {
			deny("rm", "-rf", "/home/u")                    // a repeat
			deny("rm", "-rf", fmt.Sprintf("/home/u/%d", i)) // distinct
		}
	}
	a.Decide(&Record{Argv: []string{"git", "push"}, Decision: "ask", Rule: "git.push", Gate: "no-terminal"})
	a.Flush()
	if n := buf.Len(); n > 2*capBytes+8<<10 {
		t.Errorf("the log holds %d bytes, cap %d", n, capBytes)
	}
	recs := auditLines(t, buf.Bytes())
	var limits, denies, asks int
	var last Record
	for _, r := range recs {
		switch {
		case r.Event == EventLimit:
			limits++
		case r.Decision == "deny":
			denies++
		case r.Decision == "ask":
			asks++
		}
		if r.Event == EventCounts {
			last = r
		}
	}
	if limits != 1 {
		t.Errorf("%d limit records, want 1", limits)
	}
	if denies != 21 || asks != 1 {
		t.Errorf("%d distinct refusals and %d asks written, want 21 and 1", denies, asks)
	}
	if last.Dropped == nil || last.Dropped.Allow == 0 || last.Dropped.Exit == 0 || last.Dropped.Repeats != 20 {
		t.Errorf("counts record: %+v", last.Dropped)
	}
}

// TestAuditSessionCapHard: past twice the cap even distinct refusals are
// only counted, and the counts say so.
func TestAuditSessionCapHard(t *testing.T) {
	var buf lockedBuffer
	a := New(&buf, "s")
	a.SetLimits(guardsh.AuditLimits{SessionBytes: 16 << 10})
	for i := range 5000 {
		a.Decide(&Record{Argv: []string{"rm", "-rf", fmt.Sprintf("/x/%d", i)}, Decision: "deny", Rule: "rm.root"})
	}
	a.Flush()
	if n := buf.Len(); n > 40<<10 {
		t.Errorf("%d bytes for a 16 KiB cap", n)
	}
	recs := auditLines(t, buf.Bytes())
	last := recs[len(recs)-1]
	if last.Event != EventCounts || last.Dropped == nil || last.Dropped.Deny == 0 {
		t.Fatalf("last record %+v", last)
	}
	written := 0
	for _, r := range recs {
		if r.Decision == "deny" {
			written++
		}
	}
	if uint64(written)+last.Dropped.Deny != 5000 {
		t.Errorf("%d written + %d counted refusals, want 5000", written, last.Dropped.Deny)
	}
}

// TestAuditRotate: a log larger than FileBytes is rotated when a session
// opens it, Keep old files at most, and sessions opening it at once rotate
// it once.
func TestAuditRotate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	lim := guardsh.AuditLimits{FileBytes: 1 << 10, Keep: 2}
	for round := range 4 {
		if err := os.WriteFile(path, bytes.Repeat([]byte(fmt.Sprintf("%d", round)), 2<<10), 0o600); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := OpenFile(path, lim)
				if err != nil {
					t.Error(err)
					return
				}
				f.Close()
			}()
		}
		wg.Wait()
		if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
			t.Fatalf("round %d: the log was not rotated: %v %v", round, fi, err)
		}
		if b, err := os.ReadFile(path + ".1"); err != nil || b[0] != byte('0'+round) {
			t.Fatalf("round %d: audit.jsonl.1 is not the rotated file (%v)", round, err)
		}
	}
	if b, err := os.ReadFile(path + ".2"); err != nil || b[0] != '2' {
		t.Errorf("audit.jsonl.2 is not the round before's (%v)", err)
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Errorf("more than Keep rotated files")
	}
	// A small file is left alone.
	os.WriteFile(path, []byte("{}\n"), 0o600)
	f, err := OpenFile(path, lim)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "{}\n" {
		t.Errorf("a small log was rotated")
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a Log writes to it: a
// session's counts timer (CountsEvery) may write from its own goroutine
// while a slow test is still looking at what was written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Len is the number of bytes written so far.
func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

// Bytes is a copy of what was written so far.
func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// String is what was written so far.
func (l *lockedBuffer) String() string { return string(l.Bytes()) }
