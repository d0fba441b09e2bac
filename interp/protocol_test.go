package interp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/interp"
)

// lockedBuf is a writer the runner's goroutines share (pipeline members,
// os/exec's copies), read after the run.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// auditedRun runs src in bypass mode with an audit log and returns, per
// argv[0], how many decide records and how many of those got their exit
// record.
func auditedRun(t *testing.T, src string) (decided, exited map[string]int, stderr string) {
	t.Helper()
	dir := t.TempDir()
	var log, out, errb lockedBuf
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Dir: dir, Project: dir,
		Env:   []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + dir},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sandbox: "off (test)",
		Audit: audit.New(&log, "s")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.Run(ctx, strings.NewReader(src), "t")
	names := map[uint64]string{}
	decided, exited = map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(log.b.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec audit.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		switch rec.Event {
		case audit.EventDecide:
			if len(rec.Argv) > 0 {
				names[rec.ID] = rec.Argv[0]
				decided[rec.Argv[0]]++
			}
		case audit.EventExit:
			if n, ok := names[rec.ID]; ok {
				exited[n]++
			}
		}
	}
	return decided, exited, errb.String()
}

// TestHandoffInputKeepsExitRecord: a command whose standard input the call
// handler read first (xargs) still gets its exit record: the decision made
// in the call handler reaches the exec handler although the argv it hands
// on is a new one.
func TestHandoffInputKeepsExitRecord(t *testing.T) {
	decided, exited, stderr := auditedRun(t, "printf 'a\\nb\\n' | xargs echo >/dev/null; echo x | xargs -n1 true")
	if decided["xargs"] != 2 || exited["xargs"] != 2 {
		t.Errorf("xargs: %d decided, %d exit records, want 2 and 2 (stderr %q)", decided["xargs"], exited["xargs"], stderr)
	}
}

// TestHandoffLongSession: the state a decision hands to the exec handler
// is never dropped to make room. A command decided while thousands of
// others were decided and never executed (function calls, "command -v",
// another pipeline member's) still finds its decision; the entries of
// argvs nobody holds any more go away by themselves.
func TestHandoffLongSession(t *testing.T) {
	var h handoff
	x := []string{"git", "status"}
	p := &pendingCmd{id: 1}
	h.track(x, p)
	h.markRecheck(x)
	for i := range 10000 {
		h.track([]string{fmt.Sprintf("f%d", i)}, &pendingCmd{id: uint64(i + 2)})
	}
	if got := h.takePending(x); got != p {
		t.Fatalf("the decision of %q was lost after 10,000 others (got %v)", x, got)
	}
	if !h.takeRecheck(x) {
		t.Fatalf("the recheck mark of %q was lost after 10,000 others", x)
	}
	// the 10,000 argvs are garbage: their entries are forgotten
	deadline := time.Now().Add(10 * time.Second)
	for h.size() > 100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := h.size(); n > 100 {
		t.Errorf("%d entries of unreachable argvs are still held", n)
	}
	runtime.KeepAlive(x)
}

// TestHandoffTwoRunners: two runners in one process, concurrently, each
// with its own audit log: one floods its table with function calls (never
// executed, so never taken), the other runs programs; every program's
// decision finds its exit record, and neither runner's table holds the
// other's entries.
func TestHandoffTwoRunners(t *testing.T) {
	var wg sync.WaitGroup
	var floodDecided, progDecided, progExited map[string]int
	var floodErr, progErr string
	wg.Add(2)
	go func() {
		defer wg.Done()
		floodDecided, _, floodErr = auditedRun(t, "f() { :; }; for i in $(seq 6000); do f; done")
	}()
	go func() {
		defer wg.Done()
		progDecided, progExited, progErr = auditedRun(t, "for i in $(seq 60); do /bin/true; done; f() { :; }; { for i in $(seq 5000); do f; done; } | { for i in $(seq 40); do /bin/true; done; }")
	}()
	wg.Wait()
	if floodDecided["f"] != 6000 {
		t.Errorf("flood: %d decisions of f, want 6000 (stderr %q)", floodDecided["f"], floodErr)
	}
	if progDecided["/bin/true"] != 100 || progExited["/bin/true"] != 100 {
		t.Errorf("/bin/true: %d decided, %d exit records, want 100 and 100 (stderr %q)", progDecided["/bin/true"], progExited["/bin/true"], progErr)
	}
}

// TestHandoffRecheckAfterFlood: a name a script may define as a function is
// allowed as a call and decided again if it reaches the exec handler, also
// after thousands of function calls marked the same way, and also when the
// calls run concurrently in another pipeline member.
func TestHandoffRecheckAfterFlood(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	bin := proj + "/bin"
	os.MkdirAll(bin, 0o755)
	// frob is a program nobody knows (cmd.unknown: asked, and refused with
	// nobody to ask); it leaves a trace if it runs
	os.WriteFile(bin+"/frob", []byte("#!/bin/sh\necho ran >> "+proj+"/ran\n"), 0o755)
	src := `if false; then frob() { :; }; fi; f() { :; }
for i in $(seq 5000); do f; done; frob
{ for i in $(seq 5000); do f; done; } | { for i in $(seq 30); do frob; done; }`
	var out, errb lockedBuf
	r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeAuto), Project: proj, Dir: proj,
		Env:   []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH"), "TMPDIR=" + proj},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sandbox: "off (test)"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.Run(ctx, strings.NewReader(src), "t")
	if b, err := os.ReadFile(proj + "/ran"); err == nil {
		t.Errorf("frob ran %d times undecided", strings.Count(string(b), "ran"))
	}
	if n := strings.Count(errb.String(), "[cmd.unknown]"); n != 31 {
		t.Errorf("%d refusals, want 31; stderr %q", n, errb.String())
	}
}

// TestHandoffInputEscalates: an approved command with network rights whose
// input was read before deciding (xargs) runs through Config.Escalate,
// with its own argv and the whole of its input.
func TestHandoffInputEscalates(t *testing.T) {
	dir := t.TempDir()
	var got []string
	var gotIn string
	esc := func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error {
		got = append([]string{}, args...)
		b, _ := io.ReadAll(hc.Stdin)
		gotIn = string(b)
		return interp.ExitStatus(7)
	}
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	p.Rules = []guardsh.Rule{{ID: "test.xfetch", Decision: guardsh.Ask, Prefix: []string{"xargs", "echo"}, Reason: "fetching needs approval", Network: true}}
	st, stderr := runGated(t, Config{Policy: p, Dir: dir, Env: testEnv(t, dir), Gate: &fakeGate{answer: GateAllowOnce}, Escalate: esc},
		"printf 'a\\nb\\n' | xargs echo fetched")
	if st != 7 || strings.Join(got, " ") != "xargs echo fetched" || gotIn != "a\nb\n" {
		t.Errorf("status %d, escalated %q with input %q, stderr %q", st, got, gotIn, stderr)
	}
}

type panicGate struct{}

func (panicGate) Approve(context.Context, GateRequest) GateAnswer { panic("gate exploded") }

// TestHandlerPanicInPipeline: a panic in guardsh's handlers (here a gate
// that panics while a pipeline member is decided, and an escalation that
// panics in the exec handler) ends that command with a bash-style error
// and status 2, not the process with a Go stack trace: pipeline members
// run in goroutines that RunFile's recover does not reach.
func TestHandlerPanicInPipeline(t *testing.T) {
	dir := t.TempDir()
	esc := func(context.Context, interp.HandlerContext, []string, guardsh.Verdict) error {
		panic("escalation exploded")
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"gate", Config{Policy: askPolicy(), Dir: dir, Env: testEnv(t, dir), Gate: panicGate{}}},
		{"escalate", Config{Policy: askPolicy(), Dir: dir, Env: testEnv(t, dir), Gate: &fakeGate{answer: GateAllowOnce}, Escalate: esc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// locked: os/exec's copies and the handlers write them at once
			var out, errs lockedBuf
			tc.cfg.Stdout, tc.cfg.Stderr = &out, &errs
			st, _ := runGated(t, tc.cfg, "ls -d fetchy | cat; echo \"st=${PIPESTATUS[0]}\"; ls -d fetchy; echo \"st=$?\"")
			stderr := errs.String()
			if st != 0 || out.String() != "st=2\nst=2\n" || strings.Count(stderr, "unsupported by the interpreter") != 2 || strings.Contains(stderr, "goroutine") {
				t.Errorf("status %d, stdout %q, stderr %q", st, out.String(), stderr)
			}
		})
	}
}

// size is the number of entries (tests).
func (h *handoff) size() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.m)
}
