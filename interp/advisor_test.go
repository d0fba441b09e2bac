package interp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

// advisedSession is a runner with an advisor asking host, in a fresh
// project that is also HOME.
type advisedSession struct {
	r              *Runner
	dir            string
	stdout, stderr bytes.Buffer
	audit          bytes.Buffer
}

func newAdvisedSession(t *testing.T, mode guardsh.Mode, host string, timeout time.Duration, gate Gate) *advisedSession {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.New(advisor.Config{Model: "tiny:1b", Host: u, Timeout: timeout, Threshold: 70})
	if err != nil {
		t.Fatal(err)
	}
	s := &advisedSession{dir: t.TempDir()}
	if err := os.WriteFile(filepath.Join(s.dir, "data.db"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.r, err = New(Config{Dir: s.dir, Project: s.dir, Env: []string{"HOME=" + s.dir, "PATH=" + os.Getenv("PATH")},
		Policy: guardsh.NewPolicy(mode), Audit: audit.New(&s.audit, "s"), Advisor: adv, Gate: gate,
		Stdout: &s.stdout, Stderr: &s.stderr})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *advisedSession) run(ctx context.Context, src string) int {
	st := s.r.Run(ctx, strings.NewReader(src), "t")
	s.r.cfg.Audit.Flush()
	return st
}

// records are the audit log's decide records.
func (s *advisedSession) records(t *testing.T) []audit.Record {
	t.Helper()
	var out []audit.Record
	sc := bufio.NewScanner(bytes.NewReader(s.audit.Bytes()))
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if r.Event == audit.EventDecide {
			out = append(out, r)
		}
	}
	return out
}

// record is the decide record of the command named name.
func (s *advisedSession) record(t *testing.T, name string) audit.Record {
	t.Helper()
	for _, r := range s.records(t) {
		if len(r.Argv) > 0 && r.Argv[0] == name {
			return r
		}
	}
	t.Fatalf("no decide record for %s in:\n%s", name, s.audit.String())
	return audit.Record{}
}

func (s *advisedSession) exists(name string) bool {
	_, err := os.Stat(filepath.Join(s.dir, name))
	return err == nil
}

// fakeRatings rates a command with a word truncate or dd 85% (a model
// sees the whole argv: xargs truncate ...), everything else 10%.
func fakeRatings(argv []string, _ *api.ChatRequest) advisortest.Reply {
	if slices.Contains(argv, "truncate") || slices.Contains(argv, "dd") {
		return advisortest.Rating(85, "empties the database file")
	}
	return advisortest.Rating(10, "harmless")
}

const advisorRefusal = "guardsh: refused [advisor.destructive]: the advisor rated this command 85% likely to irreversibly destroy data. Narrow the target or run it yourself if this is intentional.\n"

func TestAdvisorRefusesAtOrAboveThreshold(t *testing.T) {
	srv := advisortest.New(t, fakeRatings)
	for _, src := range []string{
		"truncate -s 0 data.db",
		"bash -c 'truncate -s 0 data.db'", // a nested shell's commands are rated too
		"sh -c \"sh -c 'truncate -s 0 data.db'\"",
		"eval 'truncate -s 0 data.db'",
		"env truncate -s 0 data.db",
		"t=truncate; $t -s 0 data.db",
		"echo data.db | xargs truncate -s 0",
		"find . -name data.db -exec truncate -s 0 {} +",
	} {
		t.Run(src, func(t *testing.T) {
			s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
			st := s.run(context.Background(), src+"\necho after $?")
			if got, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(got) != "precious" {
				t.Fatalf("data.db = %q: the command ran", got)
			}
			if !strings.Contains(s.stderr.String(), advisorRefusal) {
				t.Errorf("stderr = %q, want the advisorRefusal line", s.stderr.String())
			}
			if out := s.stdout.String(); st != 0 || !strings.Contains(out, "after ") || strings.Contains(out, "after 0") {
				t.Errorf("status %d, stdout %q: the script should go on after the advisorRefusal", st, s.stdout.String())
			}
		})
	}
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
	if st := s.run(context.Background(), "truncate -s 0 data.db"); st != 126 {
		t.Errorf("status %d, want 126", st)
	}
	if s.stderr.String() != advisorRefusal {
		t.Errorf("stderr = %q, want exactly %q", s.stderr.String(), advisorRefusal)
	}
	rec := s.record(t, "truncate")
	a := rec.Advisor
	if rec.Decision != "deny" || rec.Rule != "advisor.destructive" || a == nil || a.Percent == nil || *a.Percent != 85 ||
		a.Model != "tiny:1b" || a.Reason != "empties the database file" || a.PromptTokens == 0 || a.EvalTokens == 0 || a.LatencyMS <= 0 || a.Cached || a.Error != "" {
		t.Errorf("audit record = %+v, advisor %+v", rec, a)
	}
}

func TestAdvisorAllowsBelowThreshold(t *testing.T) {
	srv := advisortest.New(t, fakeRatings)
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
	if st := s.run(context.Background(), "touch marker"); st != 0 || !s.exists("marker") {
		t.Fatalf("status %d, marker %v, stderr %q", st, s.exists("marker"), s.stderr.String())
	}
	if s.stderr.Len() != 0 {
		t.Errorf("stderr = %q", s.stderr.String())
	}
	rec := s.record(t, "touch")
	if a := rec.Advisor; rec.Decision != "allow" || a == nil || a.Percent == nil || *a.Percent != 10 || a.Error != "" {
		t.Errorf("audit record = %+v, advisor %+v", rec, rec.Advisor)
	}
	// Threshold 70: a 70% rating refuses (at or above).
	srv70 := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(70, "x") })
	s = newAdvisedSession(t, guardsh.ModeBypass, srv70.URL, 5*time.Second, nil)
	if st := s.run(context.Background(), "touch marker"); st != 126 || s.exists("marker") {
		t.Errorf("70%%: status %d, marker %v", st, s.exists("marker"))
	}
}

// A rule's deny is final and never reaches the advisor; asks are not
// rated, approved or not; effect-free builtins and function calls are not
// rated (a function's commands are).
func TestAdvisorStaysOutOfRules(t *testing.T) {
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(0, "safe") })
	tests := []struct {
		name string
		mode guardsh.Mode
		gate Gate
		src  string
		want [][]string // the commands rated
	}{
		{"deny", guardsh.ModeBypass, nil, "rm -rf ~", nil},
		{"deny nested", guardsh.ModeBypass, nil, "bash -c 'rm -rf \"$HOME\"'", nil},
		{"deny after allow", guardsh.ModeBypass, nil, "touch a; rm -rf ~", [][]string{{"touch", "a"}}},
		{"ask refused", guardsh.ModeDefault, nil, "ls", nil},
		{"ask approved", guardsh.ModeDefault, yesGate{}, "ls", nil},
		{"builtins", guardsh.ModeBypass, nil, "echo hi; true; [ -n x ]; x=1; : ok", nil},
		{"function", guardsh.ModeBypass, nil, "f() { touch made; }; f", [][]string{{"touch", "made"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Argvs())
			s := newAdvisedSession(t, tt.mode, srv.URL, 5*time.Second, tt.gate)
			s.run(context.Background(), tt.src)
			got := srv.Argvs()[before:]
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("rated %q, want %q (stderr %q)", got, tt.want, s.stderr.String())
			}
			if strings.Contains(s.stderr.String(), "advisor") {
				t.Errorf("stderr = %q", s.stderr.String())
			}
		})
	}
	// The denied command's record has no advisor part.
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
	s.run(context.Background(), "rm -rf ~")
	if rec := s.record(t, "rm"); rec.Advisor != nil || rec.Decision != "deny" || rec.Rule == "advisor.destructive" {
		t.Errorf("record = %+v", rec)
	}
}

// No rating (no server, timeout, garbage, unknown model): the command
// runs, and stderr and the audit record say "advisor unavailable: why".
func TestAdvisorFailsVisible(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func(argv []string, req *api.ChatRequest) advisortest.Reply {
		switch argv[len(argv)-1] {
		case "slow":
			return advisortest.Reply{Hold: hold}
		case "garbage":
			return advisortest.Reply{Content: "I cannot help with that."}
		case "range":
			return advisortest.Rating(-1, "x")
		case "unknown":
			return advisortest.ModelNotFound(req.Model)
		}
		return advisortest.Rating(0, "x")
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	tests := []struct {
		name, host, marker, want string
	}{
		{"no server", dead, "noserver", "no Ollama server at " + dead + " (connection refused; start it: ollama serve)"},
		{"timeout", srv.URL, "slow", `no answer from model "tiny:1b" at ` + srv.URL + " within 300ms"},
		{"garbage", srv.URL, "garbage", `model "tiny:1b": answer is not the JSON asked for`},
		{"out of range", srv.URL, "range", `model "tiny:1b": answer's percent -1 is outside 0-100`},
		{"unknown model", srv.URL, "unknown", `model "tiny:1b" not found at ` + srv.URL + " (pull it: ollama pull tiny:1b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAdvisedSession(t, guardsh.ModeBypass, tt.host, 300*time.Millisecond, nil)
			if st := s.run(context.Background(), "touch "+tt.marker); st != 0 || !s.exists(tt.marker) {
				t.Fatalf("status %d, ran %v: the command must go on", st, s.exists(tt.marker))
			}
			want := "guardsh: advisor unavailable: " + tt.want
			if !strings.HasPrefix(s.stderr.String(), want) || strings.Count(s.stderr.String(), "\n") != 1 {
				t.Errorf("stderr = %q, want the line %q", s.stderr.String(), want)
			}
			rec := s.record(t, "touch")
			if a := rec.Advisor; rec.Decision != "allow" || a == nil || a.Percent != nil || !strings.HasPrefix(a.Error, "advisor unavailable: "+tt.want) {
				t.Errorf("record = %+v, advisor %+v", rec, rec.Advisor)
			}
		})
	}
}

// Ctrl-C while the advisor thinks: the command does not run.
func TestAdvisorCancellation(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply {
		r := advisortest.Rating(0, "safe")
		r.Hold = hold
		return r
	})
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 10*time.Second, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Hits() == 0 {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	done := make(chan int)
	go func() { done <- s.run(ctx, "touch marker; touch marker2") }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the runner waited for the advisor after the cancellation")
	}
	if s.exists("marker") || s.exists("marker2") {
		t.Fatal("the command ran after Ctrl-C")
	}
	rec := s.record(t, "touch")
	if a := rec.Advisor; rec.Decision != "deny" || rec.Rule != "advisor.interrupted" || a == nil || !strings.HasPrefix(a.Error, "advisor interrupted") {
		t.Errorf("record = %+v, advisor %+v", rec, rec.Advisor)
	}
}

// Ratings are cached per command as the model sees it, for the session: a
// loop asks once; a cached rating says so in the audit record. A wrapper
// makes another command (advisor.Key: a normalised key let one rating
// vouch for another command).
func TestAdvisorCache(t *testing.T) {
	srv := advisortest.New(t, fakeRatings)
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
	s.run(context.Background(), "for i in 1 2 3 4 5; do touch marker; done; timeout 5 touch marker; truncate -s 0 data.db; truncate -s 0 data.db")
	if got := srv.Argvs(); len(got) != 3 {
		t.Fatalf("%d requests (%q), want 3", len(got), got)
	}
	var cached, fresh int
	for _, rec := range s.records(t) {
		if rec.Advisor == nil {
			continue
		}
		if rec.Advisor.Cached {
			cached++
		} else {
			fresh++
		}
	}
	// touch x5, timeout (asked: another command) and its touch (cached),
	// truncate x2: 9 rated, 3 asked.
	if fresh != 3 || cached < 5 {
		t.Errorf("%d fresh, %d cached ratings in:\n%s", fresh, cached, s.audit.String())
	}
	if strings.Count(s.stderr.String(), advisorRefusal) != 2 {
		t.Errorf("stderr = %q: both truncates refused", s.stderr.String())
	}
}

// BenchmarkAdvisedCommand is what the advisor adds to one external command
// with the fake server on 127.0.0.1 (no model time): "off" without it,
// "cached" a repeated command, "uncached" a fresh request each time.
func BenchmarkAdvisedCommand(b *testing.B) {
	srv := advisortest.New(b, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(5, "x") })
	u, _ := url.Parse(srv.URL)
	for _, bc := range []struct {
		name  string
		adv   bool
		fresh bool
	}{{"off", false, false}, {"cached", true, false}, {"uncached", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			cfg := Config{Dir: dir, Project: dir, Env: []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")},
				Policy: guardsh.NewPolicy(guardsh.ModeBypass)}
			if bc.adv {
				a, _ := advisor.New(advisor.Config{Model: "m", Host: u})
				cfg.Advisor = a
			}
			r, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				src := "/bin/true x"
				if bc.fresh {
					src = "/bin/true " + strconv.Itoa(i)
				}
				if st := r.Run(context.Background(), strings.NewReader(src), "b"); st != 0 {
					b.Fatal(st)
				}
			}
		})
	}
}
