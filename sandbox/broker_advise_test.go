//go:build linux || darwin

package sandbox

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBrokerAdvise: an advise request is answered by the broker's Advise;
// a client that gives up waiting (Ctrl-C) leaves the channel in step: the
// late answer is discarded, and the next request gets its own answer.
func TestBrokerAdvise(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	b, clientEnd, err := NewBroker("none", Config{}, func(Request) (Rights, error) {
		return Rights{}, errors.New("guardsh: refused by the test")
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Advise = func(q AdviseRequest) Advice {
		args, dir := q.Args, q.Dir
		calls.Add(1)
		if args[0] == "slow" {
			<-release
		}
		return Advice{Percent: len(args[0]), Reason: strings.Join(args, " ") + " in " + dir, Model: "m", LatencyMS: 1.5}
	}
	done := make(chan error, 1)
	go func() { done <- b.Serve() }()
	c := NewClient(clientEnd)

	a, err := c.Advise(context.Background(), AdviseRequest{Args: []string{"rm", "-rf", "x"}, Dir: "/p"})
	if err != nil || a.Percent != 2 || a.Reason != "rm -rf x in /p" || a.Model != "m" || a.LatencyMS != 1.5 {
		t.Fatalf("Advise = %+v, %v", a, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for calls.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.Advise(ctx, AdviseRequest{Args: []string{"slow"}, Dir: "/p"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Advise: %v", err)
	}
	if _, err := c.Advise(ctx, AdviseRequest{Args: []string{"never-sent"}, Dir: "/p"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Advise with a cancelled ctx: %v", err)
	}
	close(release)
	a, err = c.Advise(context.Background(), AdviseRequest{Args: []string{"dd", "of=/dev/sda"}, Dir: "/q"})
	if err != nil || a.Reason != "dd of=/dev/sda in /q" {
		t.Fatalf("after a cancelled request: %+v, %v (channel out of step)", a, err)
	}
	// A run request still works on the same channel afterwards.
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	resp, err := c.Run(Request{Args: []string{"true"}, Dir: "/"}, devnull, devnull, devnull)
	if err != nil || resp.Status != 126 || resp.Err != "guardsh: refused by the test" {
		t.Fatalf("Run after advise = %+v, %v", resp, err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d advise calls, want 3", n)
	}
	c.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// Without an Advise function, and for malformed requests, the broker
// answers with an error instead of running anything.
func TestBrokerAdviseRefusals(t *testing.T) {
	b, clientEnd, err := NewBroker("none", Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go b.Serve()
	c := NewClient(clientEnd)
	defer c.Close()
	a, err := c.Advise(context.Background(), AdviseRequest{Args: []string{"ls"}, Dir: "/"})
	if err != nil || a.Err != "the privileged side has no advisor configured" {
		t.Fatalf("no Advise: %+v, %v", a, err)
	}
	if _, err := c.Advise(context.Background(), AdviseRequest{Args: nil, Dir: "/"}); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("empty argv: %v", err)
	}
	// An unknown kind is not a run request.
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	resp, err := c.Run(Request{Kind: "other", Args: []string{"true"}}, devnull, devnull, devnull)
	if err != nil || resp.Status != 126 || !slices.Contains([]string{"guardsh: broker: malformed request"}, resp.Err) {
		t.Fatalf("unknown kind: %+v, %v", resp, err)
	}
}
