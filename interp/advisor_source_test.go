package interp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
	"mvdan.cc/sh/v3/syntax"
)

// promptLog records the advisor's user messages of a fake server.
type promptLog struct {
	mu sync.Mutex
	p  []string
}

func (l *promptLog) add(req *api.ChatRequest) string {
	s := advisortest.UserText(req)
	l.mu.Lock()
	l.p = append(l.p, s)
	l.mu.Unlock()
	return s
}

func (l *promptLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.p)
}

// Attack A1: the shell's own truncation of an existing file by a
// redirection is rated; the model (here rating every truncation 100%)
// refuses it, the file is intact, the script goes on.
func TestAdvisorRatesTruncatingRedirection(t *testing.T) {
	var log promptLog
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		if strings.HasPrefix(log.add(req), "shell redirection: truncates existing file") {
			return advisortest.Rating(100, "empties the database")
		}
		return advisortest.Rating(0, "harmless")
	})
	for _, src := range []string{
		": > data.db",
		"printf '' > data.db",
		"exec 3>data.db",
		"cat /dev/null > data.db",
		"echo x &> data.db",
		"echo x >| data.db",
		"f=data.db; : > \"$f\"",
		"bash -c ': > data.db'",
		"eval ': > data.db'",
		"(: > data.db)",
		"ln -s data.db link; : > link",
		"mkdir -p sub && cd sub && : > ../data.db",
	} {
		t.Run(src, func(t *testing.T) {
			s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, 5*time.Second, nil)
			s.run(context.Background(), src+"\necho after")
			if got, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(got) != "precious" {
				t.Fatalf("data.db = %q: truncated", got)
			}
			want := "guardsh: refused [advisor.destructive]: the advisor rated this redirection 100% likely to irreversibly destroy data: it truncates existing file " +
				filepath.Join(s.dir, "data.db") + " (8 bytes): Narrow the target or run it yourself if this is intentional."
			if !strings.Contains(s.stderr.String(), want) {
				t.Errorf("stderr = %q, want %q", s.stderr.String(), want)
			}
			if !strings.Contains(s.stdout.String(), "after") {
				t.Errorf("stdout = %q: the script stopped", s.stdout.String())
			}
			var rec *audit.Record
			for _, r := range s.records(t) {
				if r.Via == "redirect" {
					rec = &r
				}
			}
			if rec == nil || rec.Decision != "deny" || rec.Rule != RuleAdvisorDestructive || rec.Advisor == nil ||
				rec.Advisor.Percent == nil || *rec.Advisor.Percent != 100 || !slices.Contains(rec.Effects.Writes, filepath.Join(s.dir, "data.db")) {
				t.Errorf("audit record %+v in:\n%s", rec, s.audit.String())
			}
		})
	}
	// The model sees the statement as written.
	ps := log.all()
	if !slices.ContainsFunc(ps, func(p string) bool {
		return strings.Contains(p, "statement as written (the pipeline or list it belongs to), as a JSON string:\n\"cat /dev/null >data.db\"\n")
	}) {
		t.Errorf("no prompt with the statement as written in %q", ps)
	}
}

// Not rated: appending, a new file, an empty file, the session's temp dir;
// a rating below the threshold lets the truncation happen.
func TestAdvisorTruncationNotRated(t *testing.T) {
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(100, "x") })
	s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, 5*time.Second, nil)
	tmp := filepath.Join(s.dir, "tmp")
	os.Mkdir(tmp, 0o755)
	os.WriteFile(filepath.Join(tmp, "scratch"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(s.dir, "empty.db"), nil, 0o644)
	s.run(context.Background(), "TMPDIR="+tmp+"\necho more >> data.db; : > new.db; : > empty.db; : > $TMPDIR/scratch; echo x > /dev/null")
	if srv.Hits() != 0 {
		t.Errorf("%d requests, want none: %q", srv.Hits(), srv.Argvs())
	}
	if got, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(got) != "preciousmore\n" {
		t.Errorf("data.db = %q", got)
	}

	low := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(20, "a log") })
	s = newAdvisedSession(t, guardsh.ModeAuto, low.URL, 5*time.Second, nil)
	if st := s.run(context.Background(), ": > data.db; : > data.db"); st != 0 {
		t.Errorf("status %d", st)
	}
	if fi, _ := os.Stat(filepath.Join(s.dir, "data.db")); fi.Size() != 0 || low.Hits() != 1 {
		t.Errorf("size %d, %d requests: want truncated after one rating", fi.Size(), low.Hits())
	}
}

// No server: the truncation goes on, visibly.
func TestAdvisorTruncationUnavailable(t *testing.T) {
	s := newAdvisedSession(t, guardsh.ModeAuto, "http://127.0.0.1:1", 5*time.Second, nil)
	s.run(context.Background(), ": > data.db")
	if fi, _ := os.Stat(filepath.Join(s.dir, "data.db")); fi.Size() != 0 {
		t.Error("not truncated")
	}
	if !strings.HasPrefix(s.stderr.String(), "guardsh: advisor unavailable: no Ollama server") {
		t.Errorf("stderr = %q", s.stderr.String())
	}
	var found bool
	for _, r := range s.records(t) {
		if r.Via == "redirect" && r.Rule == RuleRedirectTruncate && r.Advisor != nil && strings.HasPrefix(r.Advisor.Error, "advisor unavailable") {
			found = true
		}
	}
	if !found {
		t.Errorf("no redirect record with the failure in:\n%s", s.audit.String())
	}
}

// The example: a DROP piped into a database CLI. The model sees the
// statement as written, so a server that rates 100 only when the prompt
// contains DROP refuses the CLI.
func TestAdvisorSeesStatement(t *testing.T) {
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		if strings.Contains(advisortest.UserText(req), "DROP") {
			return advisortest.Rating(100, "drops a table")
		}
		return advisortest.Rating(0, "harmless")
	})
	for _, src := range []string{
		"echo 'DROP TABLE users;' | sqlite3 app.db",
		"sqlite3 app.db <<'EOF'\nDROP TABLE users;\nEOF",
		"sqlite3 app.db <<< 'DROP TABLE users'",
		"cd . && printf '%s\\n' 'DROP TABLE users;' | sqlite3 app.db",
		"bash -c \"echo 'DROP TABLE users;' | sqlite3 app.db\"",
	} {
		t.Run(src, func(t *testing.T) {
			s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
			s.run(context.Background(), src)
			if !strings.Contains(s.stderr.String(), "guardsh: refused [advisor.destructive]: the advisor rated this command 100%") {
				t.Errorf("stderr = %q", s.stderr.String())
			}
			if strings.HasPrefix(src, "bash") {
				return // refused as bash -c (its argv holds the DROP)
			}
			if rec := s.record(t, "sqlite3"); rec.Rule != RuleAdvisorDestructive {
				t.Errorf("record %+v", rec)
			}
		})
	}
	s := newAdvisedSession(t, guardsh.ModeBypass, srv.URL, 5*time.Second, nil)
	s.run(context.Background(), "echo 'SELECT 1;' | sqlite3 app.db")
	if rec := s.record(t, "sqlite3"); rec.Rule == RuleAdvisorDestructive {
		t.Errorf("a SELECT refused: %+v", rec)
	}
}

// Attack A2 through the runner: a slow rating of a read-only command does
// not switch the advisor off for a delete that follows.
func TestAdvisorCoolOffDoesNotSkipWrites(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		if slices.Contains(argv, "SLOW") {
			return advisortest.Reply{Hold: hold}
		}
		if len(argv) > 0 && argv[0] == "rm" {
			return advisortest.Rating(100, "deletes the database")
		}
		return advisortest.Rating(0, "reads")
	})
	s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, 300*time.Millisecond, nil)
	s.run(context.Background(), "ls SLOW 2>/dev/null; cat data.db; rm data.db; echo rc=$?")
	if got, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(got) != "precious" {
		t.Fatalf("data.db = %q", got)
	}
	errs := s.stderr.String()
	if !strings.Contains(errs, "not asking again for") { // cat: skipped in the cool-off
		t.Errorf("stderr = %q: want the cool-off for cat", errs)
	}
	if !strings.Contains(errs, "guardsh: refused [advisor.destructive]: the advisor rated this command 100%") {
		t.Errorf("stderr = %q: rm not refused", errs)
	}
}

// BenchmarkNoteStatements is the advisor's parse-time cost (the advisor on):
// recording the statements as written of a 100-line script.
func BenchmarkNoteStatements(b *testing.B) {
	var src strings.Builder
	for i := range 100 {
		fmt.Fprintf(&src, "cd dir%d && grep -n 'x' file%d.go | sort > out%d.txt\n", i, i, i)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src.String()), "")
	if err != nil {
		b.Fatal(err)
	}
	g := &Runner{cfg: Config{Advisor: UnavailableAdvisor("x", 70)}}
	for b.Loop() {
		g.stmts = stmtSources{}
		g.noteStatements(f)
	}
}

// Ctrl-C while the model rates a truncating redirection: the file is not
// opened (so not truncated), and the script stops.
func TestAdvisorTruncationCancelled(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Reply{Hold: hold} })
	s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, 2*time.Minute, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Hits() < 1 {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	s.run(ctx, ": > data.db; echo after")
	if got, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(got) != "precious" {
		t.Errorf("data.db = %q", got)
	}
	if strings.Contains(s.stdout.String(), "after") || time.Since(start) > time.Minute {
		t.Errorf("stdout %q after %v: the script went on or waited for the model", s.stdout.String(), time.Since(start))
	}
	var found bool
	for _, r := range s.records(t) {
		found = found || (r.Via == "redirect" && r.Rule == RuleAdvisorInterrupted)
	}
	if !found {
		t.Errorf("no advisor.interrupted record in:\n%s", s.audit.String())
	}
}
