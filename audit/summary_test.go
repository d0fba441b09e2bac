package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// t0 is the time of the synthetic logs' first record.
var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// rec returns one audit line for a synthetic log, encoded as the shell
// encodes Record (encoding/json gives the same keys and omissions).
func rec(t *testing.T, min int, r Record) string {
	t.Helper()
	if r.Time == "" {
		r.Time = t0.Add(time.Duration(min) * time.Minute).Format(time.RFC3339Nano)
	}
	if r.Event == "" {
		r.Event = EventDecide
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func status(n int) *int { return &n }

// TestAuditOutcome: every decision and gate an audit record can hold maps
// to one outcome, and the refused ones are those that did not run.
func TestAuditOutcome(t *testing.T) {
	for _, tc := range []struct {
		decision, gate, rule string
		want                 Outcome
		refused              bool
	}{
		{"allow", "", "read.only", OutcomeAllowed, false},
		{"allow", "", auditAdvisorRule, OutcomeRefusedAdvisor, true},
		{"deny", "", auditAdvisorRule, OutcomeRefusedAdvisor, true},
		{"deny", "", "rm.recursive-home", OutcomeDeniedByRule, true},
		{"ask", "once", "git.push", OutcomeApprovedOnce, false},
		{"ask", "session", "git.push", OutcomeApprovedSession, false},
		{"ask", "session-rule", "write.outside", OutcomeApprovedEarlier, false},
		{"ask", "denied", "git.push", OutcomeRefusedByHuman, true},
		{"ask", "no-terminal", "git.push", OutcomeNoTerminal, true},
		{"ask", "", "git.push", OutcomeAskedElsewhere, false},
		{"ask", "maybe", "git.push", OutcomeOther, false},
		{"perhaps", "", "x", OutcomeOther, false},
		{"", "", "", OutcomeOther, false},
	} {
		got := outcomeOf(tc.decision, tc.gate, tc.rule)
		if got != tc.want || got.Refused() != tc.refused {
			t.Errorf("outcomeOf(%q, %q, %q) = %s (refused %v), want %s (refused %v)",
				tc.decision, tc.gate, tc.rule, got, got.Refused(), tc.want, tc.refused)
		}
		if got.Label() == "" || got.Short() == "" {
			t.Errorf("%s: no label", got)
		}
	}
}

func TestAuditSandboxState(t *testing.T) {
	for desc, want := range map[string]string{
		"landlock+seccomp (abi 7)":                  "on",
		"bwrap+seccomp":                             "on",
		"guardsh -c (rewritten by the hook)":        "on",
		"off (--no-sandbox)":                        "off",
		"off (GUARDSH_SANDBOX=off)":                 "off",
		"claude runs it (not sandboxed by guardsh)": "off",
		"": "unknown",
	} {
		if got := SandboxState(desc); got != want {
			t.Errorf("SandboxState(%q) = %q, want %q", desc, got, want)
		}
	}
}

// TestSummarizeAudit summarises a synthetic log of three sessions (one
// sandboxed, one with the sandbox off, one from the hook) and checks every
// count against the records written.
func TestSummarizeAudit(t *testing.T) {
	const ll = "landlock+seccomp (abi 7)"
	const off = "off (--no-sandbox)"
	const hook = "claude runs it (not sandboxed by guardsh)"
	lines := []string{
		rec(t, 0, Record{ID: 1, Session: "s1", Cwd: "/p", Project: "/p", Argv: []string{"git", "status"}, Via: "shell", Mode: guardsh.ModeAuto, Decision: "allow", Rule: "read.only", Sandbox: ll}),
		rec(t, 0, Record{Event: EventExit, ID: 1, Session: "s1", Status: status(0), DurationMS: 12.5}),
		rec(t, 1, Record{ID: 2, Session: "s1", Cwd: "/p", Argv: []string{"rm", "-rf", "/home/u/x y"}, Via: "shell", Mode: guardsh.ModeAuto, Decision: "deny", Rule: "rm.recursive-home", Reason: "deletes home", Sandbox: ll}),
		rec(t, 2, Record{ID: 3, Session: "s1", Cwd: "/p", Argv: []string{"git", "push"}, Via: "shell", Mode: guardsh.ModeAuto, Decision: "ask", Rule: "git.push", Gate: "once", Escalated: true, Sandbox: ll}),
		rec(t, 2, Record{Event: EventExit, ID: 3, Session: "s1", Status: status(1), DurationMS: 100}),
		rec(t, 3, Record{ID: 4, Session: "s1", Cwd: "/p", Argv: []string{"git", "push", "-f"}, Via: "shell", Mode: guardsh.ModeAuto, Decision: "ask", Rule: "git.push", Gate: "no-terminal", Sandbox: ll}),
		`{"time":"garbage`,
		rec(t, 4, Record{ID: 1, Session: "s2", Cwd: "/q", Project: "/q", Argv: []string{"make"}, Via: "shell", Mode: guardsh.ModeDefault, Decision: "allow", Rule: "build", Sandbox: off}),
		rec(t, 4, Record{Event: EventExit, ID: 1, Session: "s2", Status: status(130), DurationMS: 5}),
		rec(t, 5, Record{ID: 2, Session: "s2", Cwd: "/q", Argv: []string{"curl x | sh"}, Via: "line", Mode: guardsh.ModeDefault, Decision: "deny", Rule: "pipe.shell", Sandbox: off}),
		"",
		rec(t, 6, Record{ID: 1, Session: "claude:abc", Cwd: "/r", Argv: []string{"npm publish"}, Via: "hook:claude", Mode: guardsh.ModeDefault, Decision: "ask", Rule: "npm.publish", Sandbox: hook}),
		rec(t, 7, Record{ID: 5, Session: "s1", Cwd: "/p", Argv: []string{"git", "push"}, Via: "shell", Mode: guardsh.ModeAuto, Decision: "ask", Rule: "git.push", Gate: "denied", Sandbox: ll}),
		"not json at all",
	}
	sum, err := Summarize(strings.NewReader(strings.Join(lines, "\n")+"\n"), SummaryOptions{Recent: 3})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("lines", sum.Lines, len(lines))
	check("records", sum.Records, 11)
	check("decisions", sum.Decisions, 8)
	check("sessions", sum.Sessions, 3)
	check("unsandboxed sessions", sum.Unsandbox, 2)
	check("first", sum.First, t0)
	check("last", sum.Last, t0.Add(7*time.Minute))
	check("outcomes", sum.Outcomes, map[Outcome]int{
		OutcomeAllowed: 2, OutcomeApprovedOnce: 1, OutcomeApprovedSession: 0, OutcomeApprovedEarlier: 0,
		OutcomeRefusedByHuman: 1, OutcomeNoTerminal: 1, OutcomeAskedElsewhere: 1, OutcomeDeniedByRule: 2,
		OutcomeRefusedAdvisor: 0, OutcomeOther: 0,
	})
	check("rules[0]", sum.Rules[0], RuleCount{Rule: "git.push", Decision: "ask", Count: 3,
		Outcomes: map[Outcome]int{OutcomeApprovedOnce: 1, OutcomeNoTerminal: 1, OutcomeRefusedByHuman: 1}})
	check("rules", len(sum.Rules), 6)
	check("refusals", sum.Refusals, 4)
	var cmds []string
	for _, e := range sum.RecentRefusals {
		cmds = append(cmds, e.Command)
	}
	// The latest 3 of 4, oldest first; argv quoted, a line check's source as written.
	check("recent refusals", cmds, []string{"git push -f", "curl x | sh", "git push"})
	check("recent refusal[0] outcome", sum.RecentRefusals[0].Outcome, OutcomeNoTerminal)
	check("recent refusal[0] cwd", sum.RecentRefusals[0].Cwd, "/p")
	check("escalations", sum.Escalations, 1)
	check("escalated command", sum.RecentEscal[0].Command, "git push")
	check("exits", sum.Exits, ExitSummary{Count: 3, OK: 1, Failed: 1, Signalled: 1, DurationMS: 117.5})
	check("malformed count", sum.Malformed.Count, 2)
	check("malformed lines", []int{sum.Malformed.First[0].Line, sum.Malformed.First[1].Line}, []int{7, 14})
	check("sandboxes", sum.Sandboxes, []SandboxCount{
		{Sandbox: ll, State: "on", Sessions: 1, Records: 5},
		{Sandbox: off, State: "off", Sessions: 1, Records: 2},
		{Sandbox: hook, State: "off", Sessions: 1, Records: 1},
	})
	s1 := sum.SessionList[0]
	check("session s1", s1, SessionSummary{Session: "s1", First: t0, Last: t0.Add(7 * time.Minute),
		Decisions: 5, Refused: 3, Escalated: 1, Failed: 1, Mode: "auto", Via: "shell", Project: "/p",
		Sandbox: []string{ll}, State: "on"})
	check("session s2 state", sum.SessionList[1].State, "off")
	check("session hook", sum.SessionList[2].Session, "claude:abc")

	// The JSON encoding has the documented top-level keys.
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "first", "last", "lines", "records", "before", "decisions", "sessions",
		"unsandboxed_sessions", "other_events", "outcomes", "rules", "refusals", "recent_refusals", "escalations",
		"recent_escalations", "exits", "advisor", "sandboxes", "session_list", "malformed"} {
		if _, ok := top[k]; !ok {
			t.Errorf("JSON summary has no %q", k)
		}
	}
	if _, ok := top["since"]; ok {
		t.Errorf("JSON summary without --since has a since: %s", top["since"])
	}
}

// TestSummarizeAuditSince: records before the window are skipped and
// counted; the window's sessions only.
func TestSummarizeAuditSince(t *testing.T) {
	var lines []string
	for i := 0; i < 10; i++ {
		lines = append(lines, rec(t, i*60, Record{ID: 1, Session: fmt.Sprintf("s%d", i), Decision: "allow", Rule: "read.only", Sandbox: "x"}))
	}
	for _, tc := range []struct {
		since              time.Time
		records, before, s int
	}{
		{time.Time{}, 10, 0, 10},
		{t0, 10, 0, 10},
		{t0.Add(time.Nanosecond), 9, 1, 9},
		{t0.Add(7 * time.Hour), 3, 7, 3},
		{t0.Add(100 * time.Hour), 0, 10, 0},
	} {
		sum, err := Summarize(strings.NewReader(strings.Join(lines, "\n")), SummaryOptions{Since: tc.since})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Records != tc.records || sum.Before != tc.before || sum.Sessions != tc.s || sum.Decisions != tc.records {
			t.Errorf("since %v: records %d before %d sessions %d decisions %d, want %d %d %d %d",
				tc.since, sum.Records, sum.Before, sum.Sessions, sum.Decisions, tc.records, tc.before, tc.s, tc.records)
		}
	}
}

// TestSummarizeAuditMalformed: each kind of unreadable line is counted with
// its line number and a reason; the lines around it still count.
func TestSummarizeAuditMalformed(t *testing.T) {
	good := rec(t, 0, Record{ID: 1, Session: "s", Decision: "allow", Rule: "r"})
	for _, tc := range []struct {
		name, line, why string
	}{
		{"not JSON", "hello", "not JSON"},
		{"truncated", good[:len(good)/2], "not JSON"},
		{"array", `[1,2]`, "field"},
		{"no time", `{"event":"decide","id":1,"session":"s"}`, "no time or event"},
		{"no event", `{"time":"2026-11-20T08:00:00Z","id":1}`, "no time or event"},
		{"bad time", `{"time":"yesterday","event":"decide"}`, "bad time"},
		{"id not a number", `{"time":"2026-11-20T08:00:00Z","event":"decide","id":"1"}`, `field "id"`},
		{"status not a number", `{"time":"2026-11-20T08:00:00Z","event":"exit","id":1,"status":"0"}`, `field "status"`},
		{"NUL", "\x00\x00", "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Summarize(strings.NewReader(good+"\n"+tc.line+"\n"+good+"\n"), SummaryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Malformed.Count != 1 || sum.Decisions != 2 {
				t.Fatalf("malformed %d decisions %d, want 1 and 2", sum.Malformed.Count, sum.Decisions)
			}
			m := sum.Malformed.First[0]
			if m.Line != 2 || !strings.Contains(m.Error, tc.why) {
				t.Errorf("malformed line %d %q, want line 2 with %q", m.Line, m.Error, tc.why)
			}
		})
	}
}

// TestSummarizeAuditTolerant: fields this version does not know (the
// advisor's, removed secrets, a future event) are no error; the advisor's
// ratings, refusals and failures are counted.
func TestSummarizeAuditTolerant(t *testing.T) {
	lines := []string{
		`{"time":"2026-11-20T08:00:00Z","event":"decide","id":1,"session":"s","argv":["truncate","-s0","db"],"decision":"allow","rule":"write.project","advisor":{"percent":20,"reason":"truncates a file","model":"qwen3:8b","prompt_tokens":200,"eval_tokens":5,"latency_ms":300,"future":{"x":1}},"env_scrubbed":["GH_TOKEN","AWS_SECRET_ACCESS_KEY"],"sandbox":"landlock+seccomp (abi 7)"}`,
		`{"time":"2026-11-20T08:00:01Z","event":"decide","id":2,"session":"s","argv":["dd","if=/dev/zero","of=disk.img"],"decision":"deny","rule":"advisor.destructive","reason":"rated 85%","advisor":{"percent":85,"model":"qwen3:8b","prompt_tokens":210,"eval_tokens":6,"latency_ms":500}}`,
		`{"time":"2026-11-20T08:00:02Z","event":"decide","id":3,"session":"s","argv":["ls"],"decision":"allow","rule":"read.only","advisor":{"error":"advisor unavailable: connection refused","model":"qwen3:8b"}}`,
		`{"time":"2026-11-20T08:00:03Z","event":"decide","id":4,"session":"s","argv":["ls"],"decision":"allow","rule":"read.only","advisor":{"error":"timeout"}}`,
		`{"time":"2026-11-20T08:00:04Z","event":"decide","id":5,"session":"s","argv":["ls"],"decision":"allow","rule":"read.only","advisor":{"percent":"high"}}`,
		`{"time":"2026-11-20T08:00:05Z","event":"decide","id":6,"session":"s","argv":["ls"],"decision":"allow","rule":"read.only","advisor":null}`,
		`{"time":"2026-11-20T08:00:06Z","event":"decide","id":7,"session":"s","argv":["ls"],"decision":"allow","rule":"read.only","advisor":{"percent":100,"model":"qwen3:8b","cached":true,"latency_ms":300},"env_scrubbed":["IGNORED"]}`,
		`{"time":"2026-11-20T08:00:07Z","event":"checkpoint","id":0,"session":"s","whatever":{"a":[1,2,3]}}`,
	}
	sum, err := Summarize(strings.NewReader(strings.Join(lines, "\n")), SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Malformed.Count != 0 {
		t.Fatalf("malformed: %+v", sum.Malformed)
	}
	a := sum.Advisor
	var hist [11]int
	hist[2], hist[8], hist[10] = 1, 1, 1
	want := AdvisorCounts{Rated: 3, Cached: 1, Refused: 1, Unavailable: 2, Histogram: hist,
		Requests: 2, LatencyMS: 800, PromptTokens: 410, EvalTokens: 11,
		Models: []NamedCount{{"qwen3:8b", 4}},
		Errors: []NamedCount{{"advisor unavailable: connection refused", 1}, {"timeout", 1}}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("advisor = %+v\nwant %+v", a, want)
	}
	if sum.Outcomes[OutcomeRefusedAdvisor] != 1 || sum.RecentRefusals[0].Command != "dd if=/dev/zero of=disk.img" {
		t.Errorf("advisor refusal not listed: %+v", sum.RecentRefusals)
	}
	if ss := sum.SessionList[0]; !ss.Scrubbed || !reflect.DeepEqual(ss.EnvScrubbed, []string{"GH_TOKEN", "AWS_SECRET_ACCESS_KEY"}) || sum.Scrubbing != 1 {
		t.Errorf("env scrubbing: session %v %q, %d sessions", ss.Scrubbed, ss.EnvScrubbed, sum.Scrubbing)
	}
	if sum.OtherEvts != 1 || sum.Decisions != 7 {
		t.Errorf("other events %d decisions %d, want 1 and 7", sum.OtherEvts, sum.Decisions)
	}
}

// TestSummarizeAuditLongLine: a line over MaxLine is one malformed line and
// reading goes on after it; a line longer than the read buffer but under
// MaxLine is read whole.
func TestSummarizeAuditLongLine(t *testing.T) {
	big := strings.Repeat("a", 600<<10) // longer than the 256 KiB buffer
	okLong := rec(t, 0, Record{ID: 1, Session: "s", Argv: []string{"echo", big}, Decision: "deny", Rule: "r"})
	tooLong := rec(t, 0, Record{ID: 2, Session: "s", Argv: []string{"echo", big + big}, Decision: "deny", Rule: "r"})
	after := rec(t, 1, Record{ID: 3, Session: "s", Decision: "allow", Rule: "r"})
	log := okLong + "\n" + tooLong + "\n" + after // no final newline
	sum, err := Summarize(strings.NewReader(log), SummaryOptions{MaxLine: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lines != 3 || sum.Decisions != 2 || sum.Malformed.Count != 1 || sum.Malformed.First[0].Line != 2 {
		t.Fatalf("lines %d decisions %d malformed %+v", sum.Lines, sum.Decisions, sum.Malformed)
	}
	if m := sum.Malformed.First[0].Error; strings.Contains(m, "incomplete") {
		t.Errorf("a line in the middle is called the incomplete last one: %s", m)
	}
	if got := sum.RecentRefusals[0].Argv[1]; got != big {
		t.Errorf("the long line's argv was cut: %d bytes", len(got))
	}
}

// TestSummarizeAuditPartialLastLine: a last line without its newline that
// does not decode is a session writing it: said so.
func TestSummarizeAuditPartialLastLine(t *testing.T) {
	line := rec(t, 0, Record{ID: 1, Session: "s", Decision: "allow", Rule: "r"})
	for _, tc := range []struct {
		log        string
		malformed  int
		incomplete bool
	}{
		{line + "\n" + line[:30], 1, true},
		{line + "\n" + line[:30] + "\n", 1, false},
		{line + "\n" + line, 0, false},
	} {
		sum, err := Summarize(strings.NewReader(tc.log), SummaryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Malformed.Count != tc.malformed {
			t.Fatalf("%q: malformed %d, want %d", tc.log, sum.Malformed.Count, tc.malformed)
		}
		if tc.malformed > 0 && strings.Contains(sum.Malformed.First[0].Error, "incomplete") != tc.incomplete {
			t.Errorf("%q: %s", tc.log, sum.Malformed.First[0].Error)
		}
	}
}

// errReader fails after its data.
type errReader struct{ r io.Reader }

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

// TestSummarizeAuditReadError: a read error comes back with what was read
// before it.
func TestSummarizeAuditReadError(t *testing.T) {
	line := rec(t, 0, Record{ID: 1, Session: "s", Decision: "allow", Rule: "r"})
	sum, err := Summarize(errReader{strings.NewReader(line + "\n" + line + "\n")}, SummaryOptions{})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if sum.Decisions != 2 {
		t.Errorf("decisions before the error: %d, want 2", sum.Decisions)
	}
}

func TestSummarizeAuditEmpty(t *testing.T) {
	sum, err := Summarize(strings.NewReader(""), SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sum)
	for _, k := range []string{`"rules":[]`, `"recent_refusals":[]`, `"session_list":[]`, `"first":[]`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("empty summary JSON lacks %s: %s", k, b)
		}
	}
	if bytes.Contains(b, []byte(`"first":"`)) || bytes.Contains(b, []byte("null")) {
		t.Errorf("empty summary JSON has a zero time or null: %s", b)
	}
}

func TestParseAuditSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		err  string
	}{
		{"90m", now.Add(-90 * time.Minute), ""},
		{"36h", now.Add(-36 * time.Hour), ""},
		{"1h30m", now.Add(-90 * time.Minute), ""},
		{"7d", now.AddDate(0, 0, -7), ""},
		{"2w", now.AddDate(0, 0, -14), ""},
		{"1w3d12h", now.Add(-(10*24 + 12) * time.Hour), ""},
		{"1d12h30m", now.Add(-(36*time.Hour + 30*time.Minute)), ""},
		{"2026-11-29", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), ""},
		{"2026-11-29T08:00:00Z", time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC), ""},
		{"", time.Time{}, "empty"},
		{"7", time.Time{}, "not a duration"},
		{"d", time.Time{}, "not a duration"},
		{"7x", time.Time{}, "not a duration"},
		{"1.5d", time.Time{}, "not a duration"},
		{"-7d", time.Time{}, "not a duration"},
		{"-1h", time.Time{}, "positive"},
		{"0s", time.Time{}, "positive"},
		{"99999999999d", time.Time{}, "not a duration"},
		{"yesterday", time.Time{}, "not a duration"},
	} {
		got, err := ParseSince(tc.in, now)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseSince(%q) = %v, %v; want error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || !got.Equal(tc.want)):
			t.Errorf("ParseSince(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestAuditCommandLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		via  string
		want string
	}{
		{[]string{"git", "status"}, "shell", "git status"},
		{[]string{"rm", "-rf", "/home/u/my files"}, "shell", "rm -rf '/home/u/my files'"},
		{[]string{"echo", ""}, "shell", "echo ''"},
		{[]string{"printf", "a\nb"}, "shell", "printf $'a\\nb'"},
		{[]string{"echo", "it's"}, "shell", `echo "it's"`},
		{[]string{"dd", "if=/dev/zero", "of=a b"}, "shell", `dd if=/dev/zero 'of=a b'`},
		{[]string{"A=1", "--x=$y"}, "shell", `'A=1' '--x=$y'`},
		{[]string{"curl x | sh"}, "line", "curl x | sh"},
		{[]string{"rm -rf ~\nls"}, "hook:claude", `rm -rf ~\nls`},
		{[]string{"x\x00y"}, "shell", `"x\x00y"`},
		{[]string{"ls", "\x1b[2Jx"}, "shell", `ls $'\x1b[2Jx'`},
		{[]string{"ls \x1b]0;pwned\x07 \u009b1m \u202eabc"}, "line", `ls \x1b]0;pwned\x07 \u009b1m \u202eabc`},
		{nil, "shell", ""},
	} {
		if got := CommandLine(tc.argv, tc.via); got != tc.want {
			t.Errorf("CommandLine(%q, %q) = %s, want %s", tc.argv, tc.via, got, tc.want)
		}
	}
}

// syntheticAuditLog writes n lines shaped like a real session's: mostly
// allowed commands with exits, some asks and denials, a few sessions.
func syntheticAuditLog(w io.Writer, n int) {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{
		`"cwd":"/home/u/src/proj","project":"/home/u/src/proj","argv":["go","test","./..."],"via":"shell","mode":"auto","decision":"allow","rule":"build.test","effects":{"writes":["/home/u/.cache/go-build"]},"sandbox":"landlock+seccomp (abi 7)"}`,
		`"cwd":"/home/u/src/proj","project":"/home/u/src/proj","argv":["cat","README.md"],"via":"shell","mode":"auto","decision":"allow","rule":"read.only","effects":{"reads":["/home/u/src/proj/README.md"]},"sandbox":"landlock+seccomp (abi 7)"}`,
		`"cwd":"/home/u/src/proj","project":"/home/u/src/proj","argv":["git","push","origin","main"],"via":"shell","mode":"auto","decision":"ask","rule":"git.push","reason":"git push publishes commits to a remote: origin main","gate":"no-terminal","effects":{"network":true},"sandbox":"landlock+seccomp (abi 7)"}`,
		`"cwd":"/home/u/src/proj","project":"/home/u/src/proj","argv":["rm","-rf","/home/u"],"via":"shell","mode":"auto","decision":"deny","rule":"rm.recursive-home","reason":"rm -rf on the home directory deletes everything in it","sandbox":"off (--no-sandbox)"}`,
	}
	bw := bytes.Buffer{}
	for i := 0; i < n; i++ {
		t := start.Add(time.Duration(i) * 37 * time.Millisecond).Format(time.RFC3339Nano)
		sess := fmt.Sprintf("%016x", i/5000)
		k := i % 10
		switch {
		case k < 4:
			fmt.Fprintf(&bw, `{"time":%q,"event":"decide","id":%d,"session":%q,%s`+"\n", t, i, sess, kinds[0])
		case k < 8:
			fmt.Fprintf(&bw, `{"time":%q,"event":"exit","id":%d,"session":%q,"status":%d,"duration_ms":%d.25}`+"\n", t, i-4, sess, i%3, i%1000)
		default:
			fmt.Fprintf(&bw, `{"time":%q,"event":"decide","id":%d,"session":%q,%s`+"\n", t, i, sess, kinds[1+i%3])
		}
		if bw.Len() > 1<<20 {
			w.Write(bw.Bytes())
			bw.Reset()
		}
	}
	w.Write(bw.Bytes())
}

// BenchmarkSummarizeAudit summarises a synthetic log of 100,000 lines.
func BenchmarkSummarizeAudit(b *testing.B) {
	var buf bytes.Buffer
	syntheticAuditLog(&buf, 100000)
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sum, err := Summarize(bytes.NewReader(buf.Bytes()), SummaryOptions{})
		if err != nil || sum.Lines != 100000 || sum.Malformed.Count != 0 {
			b.Fatal(err, sum.Lines, sum.Malformed)
		}
	}
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "lines/s")
}
