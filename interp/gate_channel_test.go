//go:build unix

package interp

import (
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"golang.org/x/sys/unix"
)

// scriptedGate answers asks in order and records them.
type scriptedGate struct {
	mu      sync.Mutex
	answers []GateAnswer
	asked   []GateRequest
}

func (g *scriptedGate) Approve(_ context.Context, req GateRequest) GateAnswer {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, req)
	if len(g.answers) == 0 {
		return GateDeny
	}
	a := g.answers[0]
	g.answers = g.answers[1:]
	return a
}

func channelPair(t *testing.T) (server, agent *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	server, agent = os.NewFile(uintptr(fds[0]), "srv"), os.NewFile(uintptr(fds[1]), "agent")
	// The server's end stays open: ApprovalServer.Serve blocks in recvmsg
	// on it for the process's life, as the launcher's does, and closing
	// it under Serve is a data race on the descriptor (-race saw it)
	t.Cleanup(func() { agent.Close() })
	return server, agent
}

// TestChannelGate: asks travel to the launcher's gate and its answers
// come back; "allow for this session" is remembered for later asks of the
// same rule and prefix; a launcher without a terminal answers "no human".
func TestChannelGate(t *testing.T) {
	server, agent := channelPair(t)
	human := &scriptedGate{answers: []GateAnswer{GateAllowOnce, GateDeny, GateAllowSession}}
	go (&ApprovalServer{Gate: human}).Serve(server)
	if !IsApprovalChannel(agent) {
		t.Fatal("the agent's end is not recognised as a channel")
	}
	if IsApprovalChannel(os.Stdin) {
		t.Error("stdin taken for a channel")
	}
	g := NewChannelGate(agent)
	req := func(args ...string) GateRequest {
		return GateRequest{Command: guardsh.Command{Args: args, Dir: "/p"},
			Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: "write.outside-project", Reason: "writes outside"},
			Session: guardsh.Rule{Prefix: []string{args[0], "*"}}}
	}
	for i, want := range []GateAnswer{GateAllowOnce, GateDeny, GateAllowSession, GateAllowSession} {
		if got := g.Approve(context.Background(), req("touch", "x")); got != want {
			t.Errorf("ask %d: %v, want %v", i, got, want)
		}
	}
	if len(human.asked) != 3 {
		t.Errorf("the human was asked %d times, want 3 (the fourth is remembered)", len(human.asked))
	} else if a := human.asked[0]; a.Command.Args[1] != "x" || a.Command.Dir != "/p" || a.Verdict.Rule != "write.outside-project" {
		t.Errorf("the ask arrived as %+v", a)
	}

	server2, agent2 := channelPair(t)
	go (&ApprovalServer{}).Serve(server2)
	if got := NewChannelGate(agent2).Approve(context.Background(), req("touch", "y")); got != GateNoHuman {
		t.Errorf("a launcher without a terminal answered %v, want no human", got)
	}
}

// TestChannelGateHolderGetsNoAnswers (attack): a process holding the
// agent's end of the channel (any process the agent started) cannot read
// an answer meant for a guardsh, nor make one: the launcher never writes
// to the channel, and a forged "answer" sent over it is no connection.
func TestChannelGateHolderGetsNoAnswers(t *testing.T) {
	server, agent := channelPair(t)
	human := &scriptedGate{answers: []GateAnswer{GateDeny}}
	go (&ApprovalServer{Gate: human}).Serve(server)
	// the attacker sends an answer-looking datagram (no descriptor)
	unix.Sendmsg(int(agent.Fd()), []byte(`{"answer":"once"}`+"\n"), nil, nil, 0)
	if got := NewChannelGate(agent).Approve(context.Background(), GateRequest{Command: guardsh.Command{Args: []string{"rm", "-r", "/x"}},
		Verdict: guardsh.Verdict{Rule: "rm.recursive-unknown"}}); got != GateDeny {
		t.Errorf("answer %v, want the human's deny", got)
	}
	// nothing ever arrives on the agent's end
	unix.SetsockoptTimeval(int(agent.Fd()), unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200000})
	buf := make([]byte, 64)
	if n, _, err := syscall.Recvfrom(int(agent.Fd()), buf, 0); err == nil {
		t.Errorf("the channel's holder read %q", buf[:n])
	}
}

// TestChannelGateContext: a stopped shell stops waiting for the launcher.
func TestChannelGateContext(t *testing.T) {
	server, agent := channelPair(t)
	block := make(chan struct{})
	defer close(block)
	go (&ApprovalServer{Gate: gateFunc(func(context.Context, GateRequest) GateAnswer { <-block; return GateAllowOnce })}).Serve(server)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if got := NewChannelGate(agent).Approve(ctx, GateRequest{Command: guardsh.Command{Args: []string{"x"}}}); got != GateDeny {
		t.Errorf("answer %v after the context ended, want deny", got)
	}
}
