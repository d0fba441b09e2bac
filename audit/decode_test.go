package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// fastAgrees checks the fast path against encoding/json on one line: when
// the fast path accepts a line, encoding/json must accept it too and fill
// the same fields (the time as the same instant).
func fastAgrees(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	var d fastDecoder
	var a, b auditLine
	a.reset()
	if !d.decode(line, &a) {
		return false
	}
	b.reset()
	if err := json.Unmarshal(line, &b); err != nil {
		t.Fatalf("fast path accepted %q, encoding/json: %v", line, err)
	}
	switch {
	case a.tOK:
		bt, err := time.Parse(time.RFC3339Nano, b.Time)
		if err != nil || !bt.Equal(a.t) || bt.Location() != time.UTC && bt.Location().String() != "UTC" {
			t.Fatalf("%q: fast time %v, encoding/json %q (%v)", line, a.t, b.Time, err)
		}
	case a.Time != b.Time:
		t.Fatalf("%q: time %q vs %q", line, a.Time, b.Time)
	}
	if a.Event != b.Event || a.ID != b.ID || a.Session != b.Session || a.Decision != b.Decision ||
		a.Rule != b.Rule || a.Gate != b.Gate || a.Escalated != b.Escalated || a.DurationMS != b.DurationMS ||
		(a.Status == nil) != (b.Status == nil) || a.Status != nil && *a.Status != *b.Status {
		t.Fatalf("%q: fast %+v\nencoding/json %+v", line, a, b)
	}
	for _, f := range []struct{ x, y json.RawMessage }{
		{a.Cwd, b.Cwd}, {a.Project, b.Project}, {a.Argv, b.Argv}, {a.Via, b.Via}, {a.Mode, b.Mode},
		{a.Reason, b.Reason}, {a.Sandbox, b.Sandbox}, {a.Advisor, b.Advisor}, {a.Scrubbed, b.Scrubbed},
	} {
		if !bytes.Equal(f.x, f.y) {
			t.Fatalf("%q: raw field %q vs %q", line, f.x, f.y)
		}
	}
	return true
}

var fastSeeds = []string{
	`{"time":"2026-11-30T07:51:24.066654168Z","event":"decide","id":2,"session":"c5449bb335bc60bc","cwd":"/src/p","project":"/src/p","argv":["git","push","origin","main"],"via":"shell","mode":"auto","decision":"ask","rule":"git.push","reason":"git push publishes commits to a remote: origin main","gate":"once","escalated":true,"effects":{"network":true},"sandbox":"landlock+seccomp (abi 7)"}`,
	`{"time":"2026-11-30T07:51:25.512073001Z","event":"exit","id":2,"session":"c5449bb335bc60bc","status":0,"duration_ms":1440.2}`,
	`{"time":"2026-11-30T07:51:25Z","event":"exit","id":2,"session":"s","status":-1,"duration_ms":1e-7}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","id":1,"session":"s","argv":["a\u0000b","\ud83d\ude00","\"q\""],"decision":"allow","advisor":{"percent":20,"x":[1,{"y":null}]},"env_scrubbed":["A"]}`,
	` { "time" : "2026-11-20T08:00:00.5Z" , "event" : "decide" } `,
	`{"time":"2026-11-20T08:00:00+02:00","event":"decide"}`,
	`{"time":"2026-11-31T08:00:00Z","event":"decide"}`,
	`{"time":"2026-11-20T24:00:00Z","event":"decide"}`,
	`{"time":"2026-11-20T08:00:00.1234567890Z","event":"decide"}`,
	`{"time":"2026-11-20T08:00:00.Z","event":"decide"}`,
	`{"time":null,"event":"decide","status":null,"id":null,"escalated":null,"duration_ms":null,"cwd":null}`,
	`{"time":"2026-11-20T08:00:00Z","time":"2026-11-21T08:00:00Z","event":"a","event":"b"}`,
	`{"time":"2026-11-20T08:00:00Z","time":"bad","event":"a"}`,
	`{"TIME":"2026-11-20T08:00:00Z","Event":"decide"}`,
	`{"ſession":"x","time":"2026-11-20T08:00:00Z","event":"decide"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"d\u00e9cide","rule":"r\\u"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"décide"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","id":-1}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","id":1.0}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","id":18446744073709551616}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","status":"0"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","status":1e2}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","duration_ms":01}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","duration_ms":1e400}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","escalated":"yes"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","argv":[1,2,}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide"} x`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide",}`,
	`{"time":"2026-11-20T08:00:00Z" "event":"decide"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","x":tru}`,
	`{"time":"2026-11-20T08:00:00Z","event":"dec` + "\x01" + `ide"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","rule":"` + "\xff" + `"}`,
	`{"time":"2026-11-20T08:00:00Z","event":"decide","deep":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	"{\"\r\":[]}", `{"\u0074ime":"2026-11-20T08:00:00Z","event":"decide"}`,
	`{}`, `[]`, `null`, `"x"`, `{"a"}`, `{"a":}`, "\ufeff{}",
}

// TestAuditFastDecode: the fast path agrees with encoding/json on the
// writer's lines and on edge cases, and takes the writer's lines itself.
func TestAuditFastDecode(t *testing.T) {
	for i, s := range fastSeeds {
		fast := fastAgrees(t, []byte(s))
		if i < 5 && !fast {
			t.Errorf("the fast path gave up on a line of the writer's form: %s", s)
		}
	}
}

// FuzzAuditFastDecode: go test -fuzz FuzzAuditFastDecode ./audit
func FuzzAuditFastDecode(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fastAgrees(t, line)
	})
}
