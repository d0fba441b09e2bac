package interp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/interp"
)

// fakeGate answers every ask with answer and remembers the requests.
type fakeGate struct {
	mu     sync.Mutex
	answer GateAnswer
	reqs   []GateRequest
}

// newLineGate asks on out and reads answers (one per line) from in.
func newLineGate(in io.Reader, out io.Writer) *TerminalGate {
	return &TerminalGate{in: in, out: out, fd: -1, rd: bufio.NewReader(in)}
}

func (f *fakeGate) Approve(ctx context.Context, req GateRequest) GateAnswer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.answer
}

// askPolicy (auto mode) asks before "touch" and before "ls -d fetchy",
// which it grants the network when approved.
func askPolicy() *guardsh.Policy {
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	p.Rules = []guardsh.Rule{
		{ID: "test.touch", Decision: guardsh.Ask, Prefix: []string{"touch"}, Reason: "touching files needs approval"},
		{ID: "test.fetch", Decision: guardsh.Ask, Prefix: []string{"ls", "-d", "fetchy"}, Reason: "fetching needs approval", Network: true},
	}
	return p
}

func runGated(t *testing.T, cfg Config, src string) (status int, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	if cfg.Stderr == nil {
		cfg.Stderr = &errb
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Run(context.Background(), strings.NewReader(src), "test")
	return st, errb.String()
}

func testEnv(t *testing.T, home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestGateAnswers(t *testing.T) {
	tests := []struct {
		name       string
		gate       Gate // nil: no gate
		wantRun    bool
		wantStatus int
		wantErr    []string
		wantStored bool
		builtin    bool // default mode's built-in ask instead of the configured one
	}{
		{name: "allow once", gate: &fakeGate{answer: GateAllowOnce}, wantRun: true},
		{name: "allow session", gate: &fakeGate{answer: GateAllowSession}, wantRun: true, wantStored: true},
		{name: "human denies", gate: &fakeGate{answer: GateDeny}, wantStatus: 126,
			wantErr: []string{"guardsh: denied [test.touch]: touching files needs approval", "A human refused it"}},
		{name: "gate finds nobody", gate: &fakeGate{answer: GateNoHuman}, wantStatus: 126, builtin: true,
			wantErr: []string{"needs approval [mode.default]", "A human can allow it", "[[rule]]", `prefix = ["touch", "*"]`}},
		{name: "no gate", wantStatus: 126, builtin: true,
			wantErr: []string{"guardsh: needs approval [mode.default]: default mode asks", "No human could be asked (no terminal)",
				"config.toml", "[[rule]]", `id = "user.touch"`, `decision = "allow"`, `prefix = ["touch", "*"]`}},
		{name: "no gate, configured ask", wantStatus: 126,
			wantErr: []string{"guardsh: needs approval [test.touch]: touching files needs approval", "A configured rule asks for it every time"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pol := askPolicy()
			if tt.builtin {
				pol = guardsh.NewPolicy(guardsh.ModeDefault)
			}
			st, stderr := runGated(t, Config{Policy: pol, Dir: dir, Env: testEnv(t, dir), Gate: tt.gate}, "touch ./marker")
			if tt.wantStored {
				// A configured ask rule asks every time; session approvals
				// answer the built-in asks (default mode asks for touch).
				pol = guardsh.NewPolicy(guardsh.ModeDefault)
				st, stderr = runGated(t, Config{Policy: pol, Dir: dir, Env: testEnv(t, dir), Gate: tt.gate}, "touch ./marker")
			}
			if got := exists(filepath.Join(dir, "marker")); got != tt.wantRun {
				t.Errorf("ran = %v, want %v (stderr %q)", got, tt.wantRun, stderr)
			}
			if st != tt.wantStatus {
				t.Errorf("status = %d, want %d", st, tt.wantStatus)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if got := len(pol.Session) > 0; got != tt.wantStored {
				t.Fatalf("session rules = %+v", pol.Session)
			}
			if tt.wantStored {
				r := pol.Session[0]
				if r.Decision != guardsh.Allow || strings.Join(r.Prefix, " ") != "touch ./marker $" || r.Source != "session" || r.ID != "session.touch-marker" {
					t.Errorf("stored rule = %+v", r)
				}
				// The same command does not go to the gate again.
				fg := tt.gate.(*fakeGate)
				fg.answer = GateDeny
				n := len(fg.reqs)
				os.Remove(filepath.Join(dir, "marker"))
				runGated(t, Config{Policy: pol, Dir: dir, Env: testEnv(t, dir), Gate: fg}, "touch ./marker")
				if !exists(filepath.Join(dir, "marker")) || len(fg.reqs) != n {
					t.Errorf("session approval not used: %d gate requests", len(fg.reqs)-n)
				}
			}
			if fg, ok := tt.gate.(*fakeGate); ok && len(fg.reqs) > 0 {
				req := fg.reqs[0]
				if req.Command.Args[0] != "touch" || req.Verdict.Decision != guardsh.Ask || req.Verdict.Rule == "" || req.Command.Dir != dir {
					t.Errorf("request = %+v", req)
				}
			}
		})
	}
}

func TestGateConfiguredAskOffersNoSessionApproval(t *testing.T) {
	dir := t.TempDir()
	pol := askPolicy()
	fg := &fakeGate{answer: GateAllowSession}
	st, stderr := runGated(t, Config{Policy: pol, Dir: dir, Env: testEnv(t, dir), Gate: fg}, "touch ./a")
	if st != 0 || !exists(filepath.Join(dir, "a")) {
		t.Fatalf("status %d, stderr %q", st, stderr)
	}
	if len(pol.Session) != 0 || len(fg.reqs) != 1 || len(fg.reqs[0].Session.Prefix) != 0 {
		t.Errorf("session rules %+v, request %+v", pol.Session, fg.reqs)
	}
	st, stderr = runGated(t, Config{Policy: pol, Dir: dir, Env: testEnv(t, dir)}, "touch ./b")
	if st != 126 || !strings.Contains(stderr, "A configured rule asks for it every time") || strings.Contains(stderr, "[[rule]]") {
		t.Errorf("no gate: status %d, stderr %q", st, stderr)
	}
	var out bytes.Buffer
	g := newLineGate(strings.NewReader("s\no\n"), &out)
	if a := g.Approve(context.Background(), GateRequest{Command: guardsh.Command{Args: []string{"x"}}}); a != GateAllowOnce {
		t.Errorf("answer %v", a)
	}
	if strings.Contains(out.String(), "[s]") || !strings.Contains(out.String(), "asks every time") {
		t.Errorf("prompt %q", out.String())
	}
}

func TestTerminalGatePTY(t *testing.T) {
	tests := []struct {
		name  string
		keys  string // "" = close the terminal (EOF)
		want  GateAnswer
		shows []string
	}{
		{name: "once", keys: "o", want: GateAllowOnce, shows: []string{"approve? [test.rule] reason", "$ git push origin main", "wants: network", "[o] allow once", "(git push)"}},
		{name: "session", keys: "s", want: GateAllowSession, shows: []string{"stored for this session: allow git push"}},
		{name: "deny", keys: "d", want: GateDeny},
		{name: "ctrl-c", keys: "\x03", want: GateDeny},
		{name: "junk then once", keys: "x\ro", want: GateAllowOnce, shows: []string{"please answer"}},
		{name: "eof", keys: "", want: GateNoHuman},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			master, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			defer master.Close()
			defer tty.Close()
			g := NewTerminalGate(tty)
			var out bytes.Buffer
			done := make(chan struct{})
			if tt.keys == "" {
				master.Close() // hang up: the gate's reads fail, no human
				close(done)
			} else {
				go func() { io.Copy(&out, master); close(done) }()
				go func() {
					time.Sleep(50 * time.Millisecond)
					master.Write([]byte(tt.keys))
				}()
			}
			req := GateRequest{
				Command: guardsh.Command{Args: []string{"git", "push", "origin", "main"}, Dir: "/p"},
				Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: "test.rule", Reason: "reason.", Effects: guardsh.Effects{Network: true}},
				Session: guardsh.Rule{Prefix: []string{"git", "push"}},
			}
			got := g.Approve(context.Background(), req)
			if got != tt.want {
				t.Errorf("answer = %v, want %v", got, tt.want)
			}
			tty.Close()
			master.Close()
			<-done
			for _, s := range tt.shows {
				if !strings.Contains(out.String(), s) {
					t.Errorf("terminal shows %q, lacks %q", out.String(), s)
				}
			}
		})
	}
}

func TestTerminalGateIgnoresTypeAhead(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	go io.Copy(io.Discard, master)
	master.Write([]byte("s")) // typed before the prompt appeared
	time.Sleep(50 * time.Millisecond)
	g := NewTerminalGate(tty)
	go func() {
		time.Sleep(100 * time.Millisecond)
		master.Write([]byte("d"))
	}()
	req := GateRequest{Command: guardsh.Command{Args: []string{"x"}}, Session: guardsh.Rule{Prefix: []string{"x"}}}
	if got := g.Approve(context.Background(), req); got != GateDeny {
		t.Errorf("answer %v: type-ahead answered the prompt", got)
	}
}

func TestTerminalGateGivesUpWhenStopped(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	go io.Copy(io.Discard, master)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := NewTerminalGate(tty).Approve(ctx, GateRequest{Command: guardsh.Command{Args: []string{"x"}}})
	if got == GateAllowOnce || got == GateAllowSession {
		t.Errorf("answer %v", got)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the prompt held a stopped shell for %v", d)
	}
}

func TestTerminalGateShowsDiffAndSanitizes(t *testing.T) {
	var out bytes.Buffer
	g := newLineGate(strings.NewReader("\n d\n"), &out)
	req := GateRequest{
		Command: guardsh.Command{Args: []string{"echo", "\x1b[2J\rfake prompt"}},
		Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: "r"},
		Diff:    "--- a/x\n+++ b/x\n+new \x1b]0;title\x07line\n",
	}
	if got := g.Approve(context.Background(), req); got != GateDeny {
		t.Fatalf("answer = %v", got)
	}
	s := out.String()
	if strings.Contains(s, "\x1b") || strings.Contains(s, "\x07") {
		t.Errorf("control characters reach the terminal: %q", s)
	}
	for _, w := range []string{"+++ b/x", `+new \x1b]0;title\x07line`, `$ echo $'\x1b[2J\rfake prompt'`} {
		if !strings.Contains(s, w) {
			t.Errorf("output %q lacks %q", s, w)
		}
	}
	if g.Approve(context.Background(), req) != GateNoHuman {
		t.Error("EOF is not GateNoHuman")
	}
}

func readAudit(t *testing.T, path string) []audit.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []audit.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "state", "guardsh", "audit.jsonl")
	a, err := audit.Open(logPath, guardsh.AuditLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// cat reads the log while it runs: its own decide record must be there.
	src := "echo hi; touch made; cat " + logPath + "; sh -c 'exit 3'; touch x"
	st, stderr := runGated(t, Config{Policy: askPolicy(), Dir: dir, Env: testEnv(t, dir), Audit: a, Sandbox: "off (test)",
		Gate: &fakeGate{answer: GateAllowOnce}, Stdout: &out}, src)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, stderr)
	}
	if !strings.Contains(out.String(), `"argv":["cat","`+logPath+`"]`) {
		t.Errorf("decide record not flushed before the command ran; cat saw:\n%s", out.String())
	}
	fi, _ := os.Stat(logPath)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v", fi.Mode())
	}
	recs := readAudit(t, logPath)
	decides := map[uint64]audit.Record{}
	exits := map[uint64]audit.Record{}
	for _, r := range recs {
		if r.Session != a.Session() || r.Time == "" {
			t.Errorf("record %+v: bad session/time", r)
		}
		switch r.Event {
		case audit.EventDecide:
			decides[r.ID] = r
		case audit.EventExit:
			if _, ok := decides[r.ID]; !ok {
				t.Errorf("exit record %d before its decide record", r.ID)
			}
			exits[r.ID] = r
		}
	}
	var argvs []string
	for id := uint64(1); id <= uint64(len(decides)); id++ {
		r := decides[id]
		argvs = append(argvs, strings.Join(r.Argv, " "))
		if r.Cwd != dir || r.Project != dir || r.Mode != guardsh.ModeAuto || r.Sandbox != "off (test)" || r.Rule == "" || r.Decision == "" {
			t.Errorf("decide record %+v incomplete", r)
		}
	}
	// sh -c runs in guardsh's own interpreter: its commands are decided too.
	// echo and exit are builtins without effects: counted, not recorded.
	want := []string{"touch made", "cat " + logPath, "sh -c exit 3", "touch x"}
	if strings.Join(argvs, "|") != strings.Join(want, "|") {
		t.Errorf("argv order %q, want %q", argvs, want)
	}
	if r := decides[1]; r.Decision != "ask" || r.Gate != "once" || r.Rule != "test.touch" {
		t.Errorf("touch record %+v", r)
	}
	var counts audit.Record
	for _, r := range recs {
		if r.Event == audit.EventCounts {
			counts = r
		}
	}
	if counts.Counts["echo"] != 1 || counts.Counts["exit"] != 1 {
		t.Errorf("counts record %+v, want echo and exit counted once", counts)
	}
	if e, ok := exits[3]; !ok || e.Status == nil || *e.Status != 3 || e.DurationMS <= 0 {
		t.Errorf("sh exit record = %+v", e)
	}
}

func TestEscalate(t *testing.T) {
	dir := t.TempDir()
	var got []string
	var gotV guardsh.Verdict
	esc := func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error {
		got, gotV = append([]string{}, args...), v
		return interp.ExitStatus(7)
	}
	tests := []struct {
		src      string
		escalate bool
	}{
		{"ls -d fetchy", true}, // approved ask with network rights
		{"touch y", false},     // approved, but needs nothing beyond the sandbox
		{"true", false},
	}
	for _, tt := range tests {
		got = nil
		st, stderr := runGated(t, Config{Policy: askPolicy(), Dir: dir, Env: testEnv(t, dir), Gate: &fakeGate{answer: GateAllowOnce}, Escalate: esc}, tt.src)
		if tt.escalate {
			if st != 7 || strings.Join(got, " ") != tt.src || !gotV.Effects.Network || gotV.Rule != "test.fetch" {
				t.Errorf("%q: status %d, escalated %q %+v, stderr %q", tt.src, st, got, gotV, stderr)
			}
		} else if got != nil || st != 0 {
			t.Errorf("%q: escalated %q, status %d", tt.src, got, st)
		}
	}
}
