//go:build linux || darwin

package sandbox

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An escalated command that writes more than a pipe holds, piped into a
// command that asks for its rating later (mygen | { sleep 1; grep x; }),
// must not hang the pipeline: the channel is not held while the escalated
// command runs. (It was: the rating waited for the channel, the escalated
// command for its reader, forever; the same for two escalated commands in
// one pipeline.)
func TestBrokerRunDoesNotBlockOtherRequests(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	b, clientEnd, err := NewBroker(BackendLandlock, NewConfig(t.TempDir(), t.TempDir(), "", nil), func(Request) (Rights, error) { return Rights{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	var advised atomic.Int32
	b.Advise = func(AdviseRequest) Advice { advised.Add(1); return Advice{Percent: 1, Model: "m"} }
	go b.Serve()
	c := NewClient(clientEnd)
	defer c.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	ran := make(chan Response, 2)
	errs, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string, stdin, stdout *os.File) {
		resp, err := c.Run(Request{Args: []string{"sh", "-c", script}, Dir: "/", Env: []string{"PATH=/usr/bin:/bin"}}, stdin, stdout, errs)
		if err != nil {
			resp.Err = err.Error()
		}
		ran <- resp
	}
	go run("i=0; while [ $i -lt 4000 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done", devnull, pw)
	time.Sleep(300 * time.Millisecond) // the writer fills the pipe and blocks
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if a, err := c.Advise(ctx, AdviseRequest{Args: []string{"grep", "x"}, Dir: "/"}); err != nil || a.Percent != 1 {
		t.Fatalf("rating while an escalated command runs: %+v, %v (the channel was held)", a, err)
	}
	// A second escalated command, the reader, runs too.
	go run("wc -l", pr, devnull)
	pw.Close()
	for range 2 {
		select {
		case r := <-ran:
			if r.Status != 0 || r.Err != "" {
				out, _ := os.ReadFile(errs.Name())
				t.Errorf("run: %+v; stderr %q", r, out)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("escalated commands of one pipeline hang")
		}
	}
}

// A hostile interpreter's malformed messages (garbage JSON, deep nesting,
// wrong field types, a size over the limit, no reply channel) never crash
// the privileged side: Serve returns or goes on, it does not panic.
func TestBrokerSurvivesGarbage(t *testing.T) {
	bodies := []string{
		`{`, `null`, `[]`, `"x"`, `{"kind":"advise"}`, `{"kind":"advise","args":[1,2]}`,
		`{"kind":"advise","args":["rm"],"dir":null,"trunc_size":"x"}`,
		strings.Repeat(`[`, 100000), `{"args":["x"],"env":{"a":1}}`, "\xff\xfe\x00",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		bodies = append(bodies, string(b))
	}
	for i, body := range bodies {
		b, clientEnd, err := NewBroker("none", Config{}, func(Request) (Rights, error) { return Rights{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		b.Advise = func(AdviseRequest) Advice { return Advice{} }
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("body %d: Serve panicked: %v", i, r)
				}
			}()
			b.Serve()
		}()
		msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
		clientEnd.Write(append(msg, body...))
		if i%7 == 0 { // a size over the limit, then a cut message
			clientEnd.Write([]byte{0xff, 0xff, 0xff, 0xff, '{'})
		}
		clientEnd.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("body %d: Serve did not return after the interpreter closed its end", i)
		}
	}
	_ = io.EOF
}
