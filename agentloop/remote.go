package agentloop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/guardsh/guardsh/guardsh"
)

// The agent's shell can live in another process: a guardsh session confined
// by the sandbox, while the agent (which must reach Ollama over the
// network) stays outside. They speak JSON lines: the agent sends requests,
// the session answers with output frames and a final status.

// shellRequest is one line from the agent to the session.
type shellRequest struct {
	ID      int    `json:"id,omitempty"`
	Command string `json:"command,omitempty"`
	Cancel  int    `json:"cancel,omitempty"` // stop the running request with this ID
}

// shellFrame is one line from the session to the agent.
type shellFrame struct {
	Ready   bool   `json:"ready,omitempty"`   // first line: the session is up
	Sandbox string `json:"sandbox,omitempty"` // with Ready: how it is confined
	ID      int    `json:"id,omitempty"`
	FD      int    `json:"fd,omitempty"` // 1 stdout, 2 stderr
	Data    string `json:"data,omitempty"`
	Done    bool   `json:"done,omitempty"`
	Status  int    `json:"status"`
	Cwd     string `json:"cwd,omitempty"`
}

// SessionRunner is what a session process serves: *interp.Runner.
type SessionRunner interface {
	RunCommand(ctx context.Context, src string, stdout, stderr io.Writer) int
	Cwd() string
}

// ServeShell serves requests from r on runner, writing frames to w, until r
// ends. Commands run one at a time; a cancel line stops the running one.
func ServeShell(r io.Reader, w io.Writer, runner SessionRunner, sandboxDesc string) error {
	var wmu sync.Mutex
	enc := json.NewEncoder(w)
	send := func(f shellFrame) error {
		wmu.Lock()
		defer wmu.Unlock()
		return enc.Encode(f)
	}
	if err := send(shellFrame{Ready: true, Sandbox: sandboxDesc, Cwd: runner.Cwd()}); err != nil {
		return err
	}
	reqs := make(chan shellRequest)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var q shellRequest
			if json.Unmarshal(sc.Bytes(), &q) == nil {
				reqs <- q
			}
		}
		readErr <- sc.Err()
		close(reqs)
	}()
	type running struct {
		id     int
		cancel context.CancelFunc
		done   chan struct{}
	}
	var cur *running
	for q := range reqs {
		switch {
		case q.Cancel != 0:
			if cur != nil && cur.id == q.Cancel {
				cur.cancel()
			}
		case q.ID != 0:
			if cur != nil {
				<-cur.done
			}
			ctx, cancel := context.WithCancel(context.Background())
			cur = &running{id: q.ID, cancel: cancel, done: make(chan struct{})}
			go func(q shellRequest, rn *running) {
				defer close(rn.done)
				defer cancel()
				out := &frameWriter{id: q.ID, fd: 1, send: send}
				errw := &frameWriter{id: q.ID, fd: 2, send: send}
				st := runner.RunCommand(ctx, q.Command, out, errw)
				send(shellFrame{ID: q.ID, Done: true, Status: st, Cwd: runner.Cwd()})
			}(q, cur)
		}
	}
	if cur != nil {
		cur.cancel()
		<-cur.done
	}
	return <-readErr
}

type frameWriter struct {
	id, fd int
	send   func(shellFrame) error
}

func (f *frameWriter) Write(p []byte) (int, error) {
	if err := f.send(shellFrame{ID: f.id, FD: f.fd, Data: string(p)}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RemoteShell is the agent's side of a session in another process.
type RemoteShell struct {
	// Access decides the file tools' accesses in the agent's process (the
	// policy and gate there).
	Access func(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict
	// Sandbox is how the session says it is confined.
	Sandbox string

	mu   sync.Mutex
	enc  *json.Encoder
	wmu  sync.Mutex
	dec  *json.Decoder
	id   int
	cwd  string
	dead error
}

// NewRemoteShell waits for the session's ready line on r; w takes requests.
func NewRemoteShell(w io.Writer, r io.Reader, access func(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict) (*RemoteShell, error) {
	s := &RemoteShell{Access: access, enc: json.NewEncoder(w), dec: json.NewDecoder(r)}
	var f shellFrame
	if err := s.dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("the shell session did not start: %v", err)
	}
	if !f.Ready {
		return nil, errors.New("the shell session did not start: no ready line")
	}
	s.cwd, s.Sandbox = f.Cwd, f.Sandbox
	return s, nil
}

func (s *RemoteShell) send(q shellRequest) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.enc.Encode(q)
}

// RunCommand implements Shell.
func (s *RemoteShell) RunCommand(ctx context.Context, src string, stdout, stderr io.Writer) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		fmt.Fprintf(stderr, "guardsh-agent: the shell session is gone (%v); nothing ran\n", s.dead)
		return 126
	}
	s.id++
	id := s.id
	if err := s.send(shellRequest{ID: id, Command: src}); err != nil {
		s.dead = err
		fmt.Fprintf(stderr, "guardsh-agent: the shell session is gone (%v); nothing ran\n", err)
		return 126
	}
	stop := context.AfterFunc(ctx, func() { s.send(shellRequest{Cancel: id}) })
	defer stop()
	for {
		var f shellFrame
		if err := s.dec.Decode(&f); err != nil {
			s.dead = err
			fmt.Fprintf(stderr, "guardsh-agent: the shell session ended during the command: %v\n", err)
			return 126
		}
		if f.ID != id {
			continue // a late frame of a cancelled command
		}
		switch {
		case f.Done:
			s.cwd = f.Cwd
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return 124
			}
			if ctx.Err() != nil {
				return 130
			}
			return f.Status
		case f.FD == 1:
			io.WriteString(stdout, f.Data)
		case f.FD == 2:
			io.WriteString(stderr, f.Data)
		}
	}
}

// Dead reports why the session is gone, nil while it is up.
func (s *RemoteShell) Dead() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// Cwd implements Shell.
func (s *RemoteShell) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// DecideAccess implements Shell.
func (s *RemoteShell) DecideAccess(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict {
	return s.Access(ctx, a, tool, diff)
}
