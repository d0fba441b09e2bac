package audit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// FuzzRoundTrip: a record written by the session's writer (Log: encoder
// and file side by side) reads back as the same record with encoding/json,
// the summary's fast decoder agrees with encoding/json on every line, and
// the summary counts the decision under its rule.
//
//	go test -fuzz FuzzRoundTrip ./audit
func FuzzRoundTrip(f *testing.F) {
	f.Add("rm", "-rf /", "rm.root", "deny", "no-terminal", 3, 1.5, true)
	f.Add("echo", "a\"b\\c\x00\n", "", "allow", "", 0, 0.0, false)
	f.Add("\xff\xfe", "é\u2028😀", "git.push", "ask", "once", 1, 1e-7, true)
	f.Fuzz(func(t *testing.T, prog, arg, rule, decision, gate string, status int, ms float64, net bool) {
		var buf bytes.Buffer
		l := New(&buf, "s")
		in := Record{Cwd: "/p", Project: "/p", Argv: []string{prog, arg}, Via: "shell", Mode: guardsh.ModeAuto,
			Decision: decision, Rule: rule, Reason: arg, Gate: gate,
			Effects: guardsh.Effects{Writes: []string{arg}, Network: net}, Sandbox: "off (test)"}
		id := l.Decide(&in)
		l.Exit(id, status, time.Duration(ms*float64(time.Millisecond)))
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimRight(buf.Bytes(), "\n"), []byte("\n"))
		if len(lines) != 2 {
			t.Fatalf("%d lines, want a decide and an exit record:\n%s", len(lines), buf.Bytes())
		}
		for _, line := range lines {
			fastAgrees(t, line)
		}
		var out Record
		if err := json.Unmarshal(lines[0], &out); err != nil {
			t.Fatalf("decide record does not decode: %v\n%s", err, lines[0])
		}
		// the writer replaces invalid UTF-8 as encoding/json does
		want := in
		want.Argv = []string{valid(prog), valid(arg)}
		want.Reason, want.Decision = valid(arg), valid(decision)
		want.Rule, want.Gate = valid(rule), valid(gate)
		want.Effects.Writes = []string{want.Reason}
		want.Time, want.Event, want.ID, want.Session = out.Time, EventDecide, id, "s"
		if !reflect.DeepEqual(out, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", out, want)
		}
		var exit Record
		if err := json.Unmarshal(lines[1], &exit); err != nil || exit.Event != EventExit || exit.ID != id || exit.Status == nil || *exit.Status != status {
			t.Fatalf("exit record %s (%v)", lines[1], err)
		}
		sum, err := Summarize(bytes.NewReader(buf.Bytes()), SummaryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Records != 2 || sum.Decisions != 1 || sum.Sessions != 1 || sum.Malformed.Count != 0 {
			t.Fatalf("summary: %d records, %d decisions, %d sessions, %d malformed; want 2, 1, 1, 0", sum.Records, sum.Decisions, sum.Sessions, sum.Malformed.Count)
		}
		if len(sum.Rules) != 1 || sum.Rules[0].Rule != want.Rule || sum.Rules[0].Count != 1 {
			t.Fatalf("summary rules %+v, want one of %q", sum.Rules, want.Rule)
		}
	})
}

// valid is s as encoding/json writes it: each byte of invalid UTF-8
// replaced by U+FFFD.
func valid(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // range yields utf8.RuneError for each invalid byte
	}
	return b.String()
}
