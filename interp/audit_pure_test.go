package interp

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestNotePureSameBytes: the pure builtins' fast record path writes what
// Note writes for the same record (the time aside), as the cached parts
// change and when the buffer is nearly full.
func TestNotePureSameBytes(t *testing.T) {
	type call struct {
		cwd, project string
		argv         []string
		mode         guardsh.Mode
		rule, reason string
		sandbox      string
	}
	base := call{"/p", "/p", []string{"[", "1", "-lt", "2", "]"}, guardsh.ModeAuto, "shell.builtin", "shell builtin without side effects", "landlock+seccomp (abi 7)"}
	with := func(f func(c *call)) call { c := base; c.argv = append([]string(nil), base.argv...); f(&c); return c }
	calls := []call{
		base,
		base,
		with(func(c *call) { c.cwd = "/p/sub dir" }),
		with(func(c *call) { c.argv = []string{"echo", "a\"b\\c", "<&>", "\x01\t\n", "é\u2028", "\xff"} }),
		with(func(c *call) { c.argv = nil }),
		with(func(c *call) { c.argv = []string{""} }),
		with(func(c *call) { c.cwd, c.project = "", "" }),
		with(func(c *call) { c.mode = guardsh.ModePlan }),
		with(func(c *call) { c.sandbox = "" }),
		with(func(c *call) { c.rule, c.reason = "user.echo", "configured \"rule\"" }),
		with(func(c *call) { c.project = "/other" }),
		base,
	}
	for _, n := range []int{1, 60} { // 60 rounds: the buffer fills and flushes
		var fast, slow bytes.Buffer
		fl, sl := NewAuditLog(&fast, "sess"), NewAuditLog(&slow, "sess")
		for range n {
			for _, c := range calls {
				idF := fl.notePure(c.cwd, c.project, c.argv, c.mode, c.rule, c.reason, c.sandbox)
				idS := sl.Note(&guardsh.AuditRecord{Cwd: c.cwd, Project: c.project, Argv: c.argv, Via: "shell", Mode: c.mode,
					Decision: "allow", Rule: c.rule, Reason: c.reason, Sandbox: c.sandbox})
				if idF != idS {
					t.Fatalf("ids %d and %d", idF, idS)
				}
			}
		}
		fl.Flush()
		sl.Flush()
		times := regexp.MustCompile(`^\{"time":"[^"]*"`)
		fastLines, slowLines := strings.Split(fast.String(), "\n"), strings.Split(slow.String(), "\n")
		if len(fastLines) != len(slowLines) || len(fastLines) != n*len(calls)+1 {
			t.Fatalf("%d and %d lines, want %d", len(fastLines), len(slowLines), n*len(calls)+1)
		}
		for i := range fastLines {
			f, s := times.ReplaceAllString(fastLines[i], `{"time":""`), times.ReplaceAllString(slowLines[i], `{"time":""`)
			if f != s {
				t.Fatalf("line %d:\nfast %s\nNote %s", i+1, fastLines[i], slowLines[i])
			}
		}
	}
}

// TestNotePureEnvScrubbed: the session's first record carries the scrubbed
// names also when it is a pure builtin's.
func TestNotePureEnvScrubbed(t *testing.T) {
	var buf bytes.Buffer
	a := NewAuditLog(&buf, "s")
	a.SetEnvScrubbed([]string{"AWS_SECRET_ACCESS_KEY"})
	a.notePure("/p", "/p", []string{"true"}, guardsh.ModeAuto, "shell.builtin", "r", "")
	a.notePure("/p", "/p", []string{"true"}, guardsh.ModeAuto, "shell.builtin", "r", "")
	a.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"env_scrubbed":["AWS_SECRET_ACCESS_KEY"]`) || strings.Contains(lines[1], "env_scrubbed") {
		t.Fatalf("records:\n%s", buf.String())
	}
}

// TestAuditTimeFormat: the cached time formatting equals auditTime's.
func TestAuditTimeFormat(t *testing.T) {
	var e pureEnc
	rng := rand.New(rand.NewPCG(1, 2))
	ts := []time.Time{time.Unix(0, 0), time.Unix(1, 0), time.Unix(1, 100), time.Unix(1, 999999999), time.Unix(1, 120000000),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 1, time.FixedZone("X", 3600)), time.Now()}
	for range 2000 {
		ts = append(ts, time.Unix(1_700_000_000+rng.Int64N(100_000_000), rng.Int64N(1e9)))
		ts = append(ts, time.Unix(1_700_000_000+rng.Int64N(3), rng.Int64N(1000)*1e6)) // trailing zeros, same second
	}
	for _, tm := range ts {
		want := tm.UTC().Format(time.RFC3339Nano)
		if got := string(e.appendTime(nil, tm)); got != want {
			t.Fatalf("%v: %s, want %s", tm, got, want)
		}
	}
}

// BenchmarkNotePure is one pure builtin's decide record; compare
// BenchmarkNote.
func BenchmarkNotePure(b *testing.B) {
	a := NewAuditLog(discardFlusher{}, "sess")
	argv := []string{"[", "12345", "-lt", "100000", "]"}
	b.ReportAllocs()
	for b.Loop() {
		a.notePure("/tmp/proj", "/tmp/proj", argv, guardsh.ModeAuto, "shell.builtin", "shell builtin without side effects", "landlock+seccomp (abi 7)")
	}
}

// BenchmarkNote is the same record through Note.
func BenchmarkNote(b *testing.B) {
	a := NewAuditLog(discardFlusher{}, "sess")
	argv := []string{"[", "12345", "-lt", "100000", "]"}
	b.ReportAllocs()
	for b.Loop() {
		a.Note(&guardsh.AuditRecord{Cwd: "/tmp/proj", Project: "/tmp/proj", Argv: argv, Via: "shell", Mode: guardsh.ModeAuto,
			Decision: "allow", Rule: "shell.builtin", Reason: "shell builtin without side effects", Sandbox: "landlock+seccomp (abi 7)"})
	}
}

type discardFlusher struct{}

func (discardFlusher) Write(p []byte) (int, error) { return len(p), nil }

// TestNotePureFlushGuarantees: a pure builtin's record waits in the buffer
// like Note's, and is written before the next Decide record, or by the
// lazy flush.
func TestNotePureFlushGuarantees(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	w := writerFn(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) })
	read := func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
	a := NewAuditLog(w, "s")
	a.notePure("/p", "/p", []string{"["}, guardsh.ModeAuto, "shell.builtin", "r", "")
	if read() != "" {
		t.Fatal("pure record written at once")
	}
	a.Decide(&guardsh.AuditRecord{Argv: []string{"rm", "x"}})
	got := read()
	if i, j := strings.Index(got, `"argv":["["]`), strings.Index(got, `"argv":["rm","x"]`); i < 0 || j < i {
		t.Fatalf("records out of order or missing:\n%s", got)
	}
	a.notePure("/p", "/p", []string{"true"}, guardsh.ModeAuto, "shell.builtin", "r", "")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(read(), `"argv":["true"]`) {
		if time.Now().After(deadline) {
			t.Fatal("pure record never flushed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
