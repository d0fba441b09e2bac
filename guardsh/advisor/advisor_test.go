package advisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

func newAdvisor(t testing.TB, host string, timeout time.Duration) *Advisor {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{Model: "tiny:1b", Host: u, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func cmd(dir string, args ...string) guardsh.Command {
	return guardsh.Command{Args: args, Dir: dir, Project: "/proj"}
}

func TestRate(t *testing.T) {
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		return advisortest.Rating(85, "truncates the database file\n to zero")
	})
	a := newAdvisor(t, srv.URL, time.Second)
	r, err := a.Rate(context.Background(), cmd("/proj/db", "truncate", "-s", "0", "prod.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Percent != 85 || r.Reason != "truncates the database file to zero" || r.Model != "tiny:1b" || r.Cached {
		t.Errorf("rating = %+v", r)
	}
	if r.PromptTokens == 0 || r.EvalTokens == 0 || r.Latency <= 0 {
		t.Errorf("no tokens or latency: %+v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.Model != "tiny:1b" || req.Stream == nil || *req.Stream {
		t.Errorf("model %q stream %v: want tiny:1b, false", req.Model, req.Stream)
	}
	var format map[string]any
	if err := json.Unmarshal(req.Format, &format); err != nil || format["type"] != "object" {
		t.Errorf("format = %s", req.Format)
	}
	if req.Options["temperature"] != float64(0) {
		t.Errorf("options = %v", req.Options)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "irreversibly destroys data") {
		t.Errorf("messages = %+v", req.Messages)
	}
	user := req.Messages[1].Content
	for _, want := range []string{`argv: ["truncate","-s","0","prod.sqlite"]`, `working directory: "/proj/db"`, `project root: "/proj"`} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt %q lacks %q", user, want)
		}
	}
}

// A failure is an error whose text says why, never a rating.
func TestRateFailures(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	replies := map[string]advisortest.Reply{
		"garbage":      {Content: "Sure! I think this is fine."},
		"empty":        {Content: ""},
		"negative":     advisortest.Rating(-1, "?"),
		"nopercent":    {Content: `{"reason": "x"}`},
		"notnumber":    {Content: `{"percent": "high", "reason": "x"}`},
		"null":         {Content: `{"percent": null, "reason": "x"}`},
		"server-error": {Status: 500, Body: `{"error":"llama runner process has terminated: signal: killed"}`},
		"unknown":      advisortest.ModelNotFound("tiny:1b"),
		"slow":         {Hold: hold},
	}
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply { return replies[argv[0]] })
	tests := []struct {
		cmd  string
		want string
	}{
		{"garbage", `model "tiny:1b": answer is not the JSON asked for ({"percent": 0-100, "reason": ...}): "Sure! I think this is fine."`},
		{"empty", `answer is not the JSON asked for`},
		{"negative", `answer's percent -1 is outside 0-100`},
		{"nopercent", `answer is not the JSON asked for`},
		{"notnumber", `answer's percent high is not a number`},
		{"null", `answer is not the JSON asked for`},
		{"server-error", `Ollama at ` + srv.URL + ` answered 500: llama runner process has terminated: signal: killed`},
		{"unknown", `model "tiny:1b" not found at ` + srv.URL + ` (pull it: ollama pull tiny:1b)`},
		{"slow", `no answer from model "tiny:1b" at ` + srv.URL + ` within 300ms`},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := newAdvisor(t, srv.URL, 300*time.Millisecond)
			r, err := a.Rate(context.Background(), cmd("/p", tt.cmd, "x"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Rate = %+v, %v; want error containing %q", r, err, tt.want)
			}
		})
	}
}

// A rating stated in a form not asked for (a fraction, a string, more
// than 100) still counts: treating it as "no opinion" let a command the
// model rated 85.5 % or 150 % run.
func TestRateOddPercents(t *testing.T) {
	replies := map[string]string{
		"float":   `{"percent": 85.5, "reason": "x"}`,
		"string":  `{"percent": "85", "reason": "x"}`,
		"sign":    `{"percent": "85%", "reason": "x"}`,
		"over":    `{"percent": 150, "reason": "x"}`,
		"exp":     `{"percent": 1e2, "reason": "x"}`,
		"low":     `{"percent": 0.4, "reason": "x"}`,
		"extra":   `{"percent": 90, "reason": "x", "percent_safe": 0, "note": {"a": [1]}}`,
		"integer": `{"percent": 71, "reason": "x"}`,
	}
	want := map[string]int{"float": 86, "string": 85, "sign": 85, "over": 100, "exp": 100, "low": 0, "extra": 90, "integer": 71}
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		return advisortest.Reply{Content: replies[argv[0]]}
	})
	a := newAdvisor(t, srv.URL, time.Second)
	for name, pct := range want {
		r, err := a.Rate(context.Background(), cmd("/p", name, "x"))
		if err != nil || r.Percent != pct {
			t.Errorf("%s: rating %+v, %v; want %d%%", name, r, err, pct)
		}
	}
}

func TestRateNoServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	a := newAdvisor(t, "http://"+addr, time.Second)
	_, err = a.Rate(context.Background(), cmd("/p", "ls"))
	want := "no Ollama server at http://" + addr + " (connection refused; start it: ollama serve)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// After a timeout, requests of read-only commands fail at once for a
// while instead of each waiting out the timeout (a loop over a hung
// server); writing ones are still sent (request_test.go).
func TestRateTimeoutCoolsOff(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Reply{Hold: hold} })
	a := newAdvisor(t, srv.URL, 200*time.Millisecond)
	if _, err := a.Rate(context.Background(), cmd("/p", "a")); err == nil {
		t.Fatal("no error")
	}
	hits := srv.Hits()
	_, err := a.Ask(context.Background(), Request{Command: cmd("/p", "b")})
	if err == nil || !strings.Contains(err.Error(), "within 200ms") || !strings.Contains(err.Error(), "not asking again for") {
		t.Fatalf("err = %v", err)
	}
	// Failing at once means not asking the server (a clock would measure
	// the machine's load as well).
	if n := srv.Hits() - hits; n != 0 {
		t.Errorf("second rating sent %d request(s): it waited instead of failing at once", n)
	}
	if srv.Hits() != 1 {
		t.Errorf("%d requests, want 1", srv.Hits())
	}
}

// One rating never stands for another command: a wrapper, git's -C or
// another size of the truncated file is another prompt, asked again.
// (Keyed on the normalised argv, env -C /tmp/scratch rm -rf build, rated
// harmless, let rm -rf build in the project run unrated.)
func TestRateCacheNotPoisoned(t *testing.T) {
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		if strings.Contains(advisortest.UserText(req), "scratch") || strings.Contains(advisortest.UserText(req), "(3 bytes)") {
			return advisortest.Rating(0, "scratch")
		}
		return advisortest.Rating(100, "project")
	})
	a := newAdvisor(t, srv.URL, time.Second)
	ctx := context.Background()
	pairs := [][2]Request{
		{{Command: cmd("/p", "env", "-C", "/tmp/scratch", "rm", "-rf", "build")}, {Command: cmd("/p", "rm", "-rf", "build")}},
		{{Command: cmd("/p", "git", "-C", "/tmp/scratch", "clean", "-fdx")}, {Command: cmd("/p", "git", "clean", "-fdx")}},
		{{Command: cmd("/p", "sudo", "-u", "scratch", "rm", "-rf", "/srv/db")}, {Command: cmd("/p", "rm", "-rf", "/srv/db")}},
		{{Command: cmd("/p", "/tmp/scratch/rm", "-rf", "db")}, {Command: cmd("/p", "rm", "-rf", "db")}},
		{{Command: cmd("/p"), Truncates: "/p/db", TruncSize: 3}, {Command: cmd("/p"), Truncates: "/p/db", TruncSize: 3 << 30}},
	}
	for _, p := range pairs {
		if r, err := a.Ask(ctx, p[0]); err != nil || r.Percent != 0 {
			t.Fatalf("%v: %+v %v", p[0].Args, r, err)
		}
		if r, err := a.Ask(ctx, p[1]); err != nil || r.Cached || r.Percent != 100 {
			t.Errorf("%v after %v: %+v %v; want its own rating, 100", p[1].Args, p[0].Args, r, err)
		}
	}
}

func TestRateCache(t *testing.T) {
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply {
		return advisortest.Rating(10, "reads")
	})
	a := newAdvisor(t, srv.URL, time.Second)
	ctx := context.Background()
	rate := func(c guardsh.Command) (Rating, error) { return a.Rate(ctx, c) }

	r1, err1 := rate(cmd("/p", "grep", "-r", "x", "."))
	r2, err2 := rate(cmd("/p", "grep", "-r", "x", "."))
	if err1 != nil || err2 != nil || r1.Cached || !r2.Cached || r2.Percent != 10 || r2.PromptTokens != r1.PromptTokens {
		t.Fatalf("ratings %+v %v / %+v %v", r1, err1, r2, err2)
	}
	if srv.Hits() != 1 {
		t.Fatalf("%d requests for two identical commands, want 1", srv.Hits())
	}
	// Another directory is another command.
	if r, err := rate(cmd("/q", "grep", "-r", "x", ".")); err != nil || r.Cached {
		t.Errorf("other dir: %+v %v", r, err)
	}
	if srv.Hits() != 2 {
		t.Fatalf("%d requests, want 2", srv.Hits())
	}
	// A failure is not cached: the same command asks again.
	srv2 := advisortest.New(t, func() func([]string, *api.ChatRequest) advisortest.Reply {
		k := 0
		return func([]string, *api.ChatRequest) advisortest.Reply {
			k++
			if k == 1 {
				return advisortest.Reply{Content: "garbage"}
			}
			return advisortest.Rating(20, "ok")
		}
	}())
	b := newAdvisor(t, srv2.URL, time.Second)
	if _, err := b.Rate(ctx, cmd("/p", "make")); err == nil {
		t.Fatal("garbage was a rating")
	}
	if r, err := b.Rate(ctx, cmd("/p", "make")); err != nil || r.Percent != 20 || r.Cached {
		t.Fatalf("after a failure: %+v %v (want a fresh rating)", r, err)
	}
	if srv2.Hits() != 2 {
		t.Errorf("%d requests, want 2", srv2.Hits())
	}
}

// Concurrent requests for one command (a pipeline, parallel jobs) share
// one request.
func TestRateConcurrentShareOneRequest(t *testing.T) {
	hold := make(chan struct{})
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply {
		r := advisortest.Rating(30, "x")
		r.Hold = hold
		return r
	})
	a := newAdvisor(t, srv.URL, 5*time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if r, err := a.Rate(context.Background(), cmd("/p", "cat", "f")); err != nil || r.Percent != 30 {
				errs <- fmt.Errorf("%+v %v", r, err)
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	close(hold)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if srv.Hits() != 1 {
		t.Errorf("%d requests, want 1", srv.Hits())
	}
}

// A cancelled caller gets its context's error at once; the request goes on
// and its rating is cached.
func TestRateCancelled(t *testing.T) {
	hold := make(chan struct{})
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply {
		r := advisortest.Rating(90, "x")
		r.Hold = hold
		return r
	})
	a := newAdvisor(t, srv.URL, 2*time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Hits() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err := a.Rate(ctx, cmd("/p", "dd", "of=/dev/sda"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Minute { // far below the advisor's timeout, far above any load
		t.Errorf("took %v", d)
	}
	close(hold)
	r, err := a.Rate(context.Background(), cmd("/p", "dd", "of=/dev/sda"))
	if err != nil || r.Percent != 90 || !r.Cached || srv.Hits() != 1 {
		t.Errorf("after cancel: %+v %v, %d hits", r, err, srv.Hits())
	}
}

func TestFromConfig(t *testing.T) {
	if a, err := FromConfig(guardsh.AdvisorConfig{}, nil); a != nil || err != nil {
		t.Errorf("off: %v %v", a, err)
	}
	a, err := FromConfig(guardsh.AdvisorConfig{Enabled: true, Model: "m", Threshold: 40}, func(k string) string {
		if k == "OLLAMA_HOST" {
			return "box:1"
		}
		return ""
	})
	if err != nil || a.Threshold() != 40 || a.cfg.Host.String() != "http://box:1" || a.cfg.Timeout != 10*time.Second || a.Model() != "m" {
		t.Errorf("FromConfig = %+v, %v", a, err)
	}
}

// BenchmarkRate measures what the advisor adds per command against the
// fake server on 127.0.0.1 (the model's own time is not included):
// "uncached" is one full request, "cached" a repeated command.
func BenchmarkRate(b *testing.B) {
	srv := advisortest.New(b, func([]string, *api.ChatRequest) advisortest.Reply {
		return advisortest.Rating(5, "lists files")
	})
	ctx := context.Background()
	b.Run("uncached", func(b *testing.B) {
		a := newAdvisor(b, srv.URL, 5*time.Second) // a fresh cache each run
		i := 0
		for b.Loop() {
			i++
			if _, err := a.Rate(ctx, cmd("/p", "ls", strconv.Itoa(i))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		a := newAdvisor(b, srv.URL, 5*time.Second)
		c := cmd("/p", "ls", "-la")
		a.Rate(ctx, c)
		for b.Loop() {
			if _, err := a.Rate(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
