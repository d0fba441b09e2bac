package interp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"golang.org/x/sys/unix"
)

// The one approval point (docs/policy.md, "The gate"): under guardsh
// --launch every guardsh in the agent's tree asks the launcher, which owns
// the human's terminal. The launcher makes the channel before the agent
// starts: a datagram socket pair whose one end it keeps and whose other
// end the agent inherits (EnvApprovalFD). The channel carries only new
// connections: to ask, a guardsh makes a stream socket pair, sends one end
// over the channel (SCM_RIGHTS) and talks to the launcher on the other.
// The launcher never writes to the channel, so a process holding it can
// put a question to the human but never receive anyone's answer, and no
// answer can come from anywhere but the launcher's end of a connection the
// asking guardsh made itself.

// EnvApprovalFD names the file descriptor of the launcher's approval
// channel in the agent's environment.
const EnvApprovalFD = "GUARDSH_APPROVAL_FD"

// maxAsk bounds one request on the wire (a diff can be long).
const maxAsk = 1 << 20

// wireAsk is one ask as it travels to the launcher.
type wireAsk struct {
	Argv    []string `json:"argv"`
	Dir     string   `json:"dir,omitempty"`
	Rule    string   `json:"rule"`
	Reason  string   `json:"reason"`
	Hint    string   `json:"hint,omitempty"`
	Network bool     `json:"network,omitempty"`
	Install bool     `json:"install,omitempty"`
	Writes  []string `json:"writes,omitempty"`
	Diff    string   `json:"diff,omitempty"`
	Session []string `json:"session,omitempty"` // the prefix "allow for this session" would store
}

type wireAnswer struct {
	Answer string `json:"answer"` // GateAnswer.String()
}

// ChannelGate asks the launcher over its approval channel.
type ChannelGate struct {
	ch *os.File
}

// NewChannelGate asks over ch, the launcher's channel (see EnvApprovalFD).
func NewChannelGate(ch *os.File) *ChannelGate { return &ChannelGate{ch: ch} }

// IsApprovalChannel reports whether f is a datagram Unix socket, as the
// launcher's channel is.
func IsApprovalChannel(f *os.File) bool {
	fd := int(f.Fd())
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_DGRAM {
		return false
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return false
	}
	_, ok := sa.(*unix.SockaddrUnix)
	return ok
}

// Approve sends the ask and waits for the launcher's answer; the answer
// is "no human" when the launcher cannot be reached, and a deny when ctx
// ends first.
func (g *ChannelGate) Approve(ctx context.Context, req GateRequest) GateAnswer {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|sockCloexec, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return GateNoHuman
	}
	err = unix.Sendmsg(int(g.ch.Fd()), []byte{'?'}, unix.UnixRights(fds[1]), nil, 0)
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		return GateNoHuman
	}
	conn := os.NewFile(uintptr(fds[0]), "approval")
	defer conn.Close()
	v := req.Verdict
	ask := wireAsk{Argv: req.Command.Args, Dir: req.Command.Dir, Rule: v.Rule, Reason: v.Reason, Hint: v.Hint,
		Network: v.Effects.Network, Install: v.Effects.Install, Writes: v.Effects.Writes, Diff: req.Diff, Session: req.Session.Prefix}
	b, err := json.Marshal(ask)
	if err != nil || len(b) > maxAsk {
		return GateNoHuman
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return GateNoHuman
	}
	// The launcher answers when the human does; a stopped shell stops
	// waiting (the answer is then a deny, as at the terminal).
	type result struct {
		a   wireAnswer
		err error
	}
	got := make(chan result, 1)
	go func() {
		var a wireAnswer
		line, err := bufio.NewReaderSize(io.LimitReader(conn, 4096), 4096).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &a)
		}
		got <- result{a, err}
	}()
	select {
	case <-ctx.Done():
		unix.Shutdown(int(conn.Fd()), unix.SHUT_RDWR)
		return GateDeny
	case r := <-got:
		if r.err != nil {
			return GateNoHuman
		}
		switch r.a.Answer {
		case GateAllowOnce.String():
			return GateAllowOnce
		case GateAllowSession.String():
			if len(req.Session.Prefix) == 0 {
				return GateAllowOnce
			}
			return GateAllowSession
		case GateDeny.String():
			return GateDeny
		}
		return GateNoHuman
	}
}

// ApprovalServer is the launcher's end of the channel: it takes the
// connections guardsh processes send and puts each ask before Gate (the
// human's terminal; nil: nobody, every ask is answered "no human").
// "Allow for this session" answers are remembered for the launcher's
// lifetime: a later ask with the same rule and session prefix (another
// guardsh of the same agent) is answered without asking again.
type ApprovalServer struct {
	Gate Gate
	// Note, when set, is told of each ask answered from memory.
	Note func(string)

	mu      sync.Mutex
	session map[string]bool
}

// Serve reads connections from ch until it is closed.
func (s *ApprovalServer) Serve(ch *os.File) {
	fd := int(ch.Fd())
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4*8))
	for {
		_, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, msgCmsgCloexec)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			continue
		}
		for _, m := range msgs {
			fds, err := unix.ParseUnixRights(&m)
			if err != nil {
				continue
			}
			for _, f := range fds {
				unix.CloseOnExec(f)
				go s.serveConn(f)
			}
		}
	}
}

func (s *ApprovalServer) serveConn(fd int) {
	conn := os.NewFile(uintptr(fd), "approval")
	defer conn.Close()
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_STREAM {
		return
	}
	// a peer that never finishes its question holds nothing but this
	// goroutine; the bound is for the question, not for the human
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	line, err := bufio.NewReaderSize(io.LimitReader(conn, maxAsk+1), 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	var ask wireAsk
	if json.Unmarshal(line, &ask) != nil || len(ask.Argv) == 0 {
		return
	}
	req := GateRequest{
		Command: guardsh.Command{Args: ask.Argv, Dir: ask.Dir},
		Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: ask.Rule, Reason: ask.Reason, Hint: ask.Hint,
			Effects: guardsh.Effects{Network: ask.Network, Install: ask.Install, Writes: ask.Writes}},
		Session: guardsh.Rule{Prefix: ask.Session},
		Diff:    ask.Diff,
	}
	if pid := peerPID(fd); pid > 0 {
		// the process that made the connection: the asking guardsh, or
		// any other process holding the channel (it can ask, not answer)
		req.Verdict.Reason += " (asked by pid " + strconv.Itoa(pid) + ")"
	}
	key := ask.Rule + "\x00" + string(mustJSON(ask.Session)) + "\x00" + strconv.FormatBool(ask.Network) + string(mustJSON(ask.Writes))
	answer := GateNoHuman
	s.mu.Lock()
	remembered := len(ask.Session) > 0 && s.session[key]
	s.mu.Unlock()
	switch {
	case remembered:
		answer = GateAllowSession
		if s.Note != nil {
			s.Note("guardsh: allowed for this session (approved earlier): " + DisplayArgv(ask.Argv))
		}
	case s.Gate != nil:
		answer = s.Gate.Approve(context.Background(), req)
	}
	if answer == GateAllowSession {
		s.mu.Lock()
		if s.session == nil {
			s.session = map[string]bool{}
		}
		s.session[key] = true
		s.mu.Unlock()
	}
	b, _ := json.Marshal(wireAnswer{Answer: answer.String()})
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	conn.Write(append(b, '\n'))
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
