//go:build linux || darwin

package interp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/guardsh/guardsh/sandbox"
	"github.com/ollama/ollama/api"
)

// brokerSession is an advised session whose ratings come from a broker's
// advisor over the socketpair, as in a confined interpreter.
func brokerSession(t *testing.T, host string) (*advisedSession, *advisor.Advisor) {
	t.Helper()
	s := newAdvisedSession(t, guardsh.ModeBypass, "http://127.0.0.1:1", time.Second, nil)
	u, _ := url.Parse(host)
	adv, err := advisor.New(advisor.Config{Model: "tiny:1b", Host: u, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b, clientEnd, err := sandbox.NewBroker("none", sandbox.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Advise = BrokerAdvise(adv, s.dir, s.dir)
	go b.Serve()
	c := sandbox.NewClient(clientEnd)
	t.Cleanup(func() { c.Close() })
	s.r.cfg.Advisor = AdviseThrough(c, 70)
	return s, adv
}

func TestAdvisorThroughBroker(t *testing.T) {
	release := make(chan struct{})
	srv := advisortest.New(t, func(argv []string, req *api.ChatRequest) advisortest.Reply {
		if argv[0] == "slow" {
			r := advisortest.Rating(0, "x")
			r.Hold = release
			return r
		}
		return fakeRatings(argv, req)
	})
	s, adv := brokerSession(t, srv.URL)
	if st := s.run(context.Background(), "touch marker; truncate -s 0 data.db; truncate -s 0 data.db"); st != 126 {
		t.Errorf("status %d", st)
	}
	if !s.exists("marker") || strings.Count(s.stderr.String(), advisorRefusal) != 2 {
		t.Fatalf("marker %v, stderr %q", s.exists("marker"), s.stderr.String())
	}
	if srv.Hits() != 2 || adv.Requests() != 2 {
		t.Errorf("%d server hits, %d requests: a cache should answer the second truncate", srv.Hits(), adv.Requests())
	}
	var cached bool
	for _, rec := range s.records(t) {
		if rec.Advisor != nil && rec.Advisor.Cached && rec.Argv[0] == "truncate" && *rec.Advisor.Percent == 85 && rec.Advisor.Model == "tiny:1b" {
			cached = true
		}
	}
	if !cached {
		t.Errorf("no cached rating in the audit log:\n%s", s.audit.String())
	}

	// Ctrl-C while the broker's advisor thinks: not run, and the channel
	// stays in step for the next command.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Hits() < 3 {
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
	}()
	s.stderr.Reset()
	s.run(ctx, "slow x; touch marker2")
	if s.exists("marker2") {
		t.Fatal("ran after Ctrl-C")
	}
	close(release)
	s.stderr.Reset()
	if st := s.run(context.Background(), "touch marker3"); st != 0 || !s.exists("marker3") || s.stderr.Len() != 0 {
		t.Errorf("after the cancelled rating: status %d, marker3 %v, stderr %q", st, s.exists("marker3"), s.stderr.String())
	}
}

// A broker without an advisor, or one whose advisor fails: unavailable,
// visibly, and the command runs.
func TestAdvisorThroughBrokerUnavailable(t *testing.T) {
	s, _ := brokerSession(t, "http://127.0.0.1:1")
	if st := s.run(context.Background(), "touch marker"); st != 0 || !s.exists("marker") {
		t.Fatalf("status %d", st)
	}
	if want := "guardsh: advisor unavailable: no Ollama server at http://127.0.0.1:1"; !strings.HasPrefix(s.stderr.String(), want) {
		t.Errorf("stderr = %q", s.stderr.String())
	}
	f := BrokerAdvise(nil, "/p", "/h")
	if a := f(sandbox.AdviseRequest{Args: []string{"ls"}, Dir: "/p"}); a.Err != "the privileged side has no advisor configured" {
		t.Errorf("nil advisor: %+v", a)
	}
	if a := f(sandbox.AdviseRequest{Args: []string{"ls"}, Dir: "rel"}); a.Err == "" {
		t.Errorf("relative dir accepted")
	}
	u := UnavailableAdvisor("nested", 70)
	if _, err := u.Ask(context.Background(), advisor.Request{Command: guardsh.Command{Args: []string{"ls"}}}); err == nil || err.Error() != "nested" || u.Threshold() != 70 {
		t.Errorf("UnavailableAdvisor: %v", err)
	}
}

// BenchmarkAdviseThroughBroker is a confined interpreter's cost for a
// rating the privileged side has cached: "exchange" is one socketpair
// round trip to the broker, "repeat" a command the interpreter was given a
// rating for already.
func BenchmarkAdviseThroughBroker(b *testing.B) {
	srv := advisortest.New(b, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(5, "x") })
	u, _ := url.Parse(srv.URL)
	adv, _ := advisor.New(advisor.Config{Model: "m", Host: u})
	br, clientEnd, err := sandbox.NewBroker("none", sandbox.Config{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	br.Advise = BrokerAdvise(adv, "/p", "/h")
	go br.Serve()
	c := sandbox.NewClient(clientEnd)
	defer c.Close()
	a := AdviseThrough(c, 70)
	cmd := advisor.Request{Command: guardsh.Command{Args: []string{"ls", "-la"}, Dir: "/p"}}
	if _, err := a.Ask(context.Background(), cmd); err != nil {
		b.Fatal(err)
	}
	b.Run("exchange", func(b *testing.B) {
		for b.Loop() {
			if r, err := c.Advise(context.Background(), sandbox.AdviseRequest{Args: cmd.Args, Dir: cmd.Dir}); err != nil || !r.Cached {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("repeat", func(b *testing.B) {
		for b.Loop() {
			if r, err := a.Ask(context.Background(), cmd); err != nil || !r.Cached {
				b.Fatal(r, err)
			}
		}
	})
}

// Through the broker, as in a confined interpreter: the privileged side's
// model sees the statement as written (a DROP piped into a CLI) and the
// redirection that truncates an existing file, and refuses both.
func TestAdvisorThroughBrokerContext(t *testing.T) {
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		p := advisortest.UserText(req)
		if strings.Contains(p, "DROP") || strings.HasPrefix(p, "shell redirection: truncates existing file") {
			return advisortest.Rating(100, "destroys data")
		}
		return advisortest.Rating(0, "harmless")
	})
	s, _ := brokerSession(t, srv.URL)
	s.run(context.Background(), "echo 'DROP TABLE users;' | sqlite3 app.db; : > data.db; echo 'SELECT 1;' | cat")
	errs := s.stderr.String()
	if !strings.Contains(errs, "guardsh: refused [advisor.destructive]: the advisor rated this command 100%") ||
		!strings.Contains(errs, "guardsh: refused [advisor.destructive]: the advisor rated this redirection 100%") {
		t.Errorf("stderr = %q", errs)
	}
	if !s.exists("data.db") || s.stdout.String() != "SELECT 1;\n" {
		t.Errorf("data.db %v, stdout %q", s.exists("data.db"), s.stdout.String())
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(b) != "precious" {
		t.Errorf("data.db = %q", b)
	}
}
