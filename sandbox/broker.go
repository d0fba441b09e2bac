//go:build linux || darwin

package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/guardsh/guardsh/gitsafe"
	"github.com/guardsh/guardsh/protect"
	"golang.org/x/sys/unix"
)

// Request asks the privileged side to run one command with more than the
// session sandbox allows. It travels over the socketpair between the
// confined interpreter and the broker with the command's stdin, stdout and
// stderr attached as SCM_RIGHTS.
type Request struct {
	// Kind is "" to run the command, KindAdvise to ask the privileged
	// side's advisor for a rating of it (no files; Args and Dir, and the
	// AdviseRequest fields below).
	Kind    string   `json:"kind,omitempty"`
	Args    []string `json:"args"`
	Dir     string   `json:"dir"`
	Env     []string `json:"env"`
	Network bool     `json:"network,omitempty"`
	Writes  []string `json:"writes,omitempty"`

	// For KindAdvise (AdviseRequest).
	Statement string `json:"statement,omitempty"`
	Truncates string `json:"truncates,omitempty"`
	TruncSize int64  `json:"trunc_size,omitempty"`
	ReadOnly  bool   `json:"read_only,omitempty"`
}

// AdviseRequest is what a confined interpreter asks the privileged side's
// advisor about (advisor.Request): a command's argv and directory, the
// statement it belongs to as written, or a file a redirection is about to
// truncate.
//
// All of it is the interpreter's word, and the privileged side takes it
// as such: the advisor can only turn an allow into a refusal, and the
// interpreter enforces that refusal itself. An interpreter that lies here
// (another statement, ReadOnly for a write, so that the cool-off after a
// timeout skips it) gains nothing it could not get by not asking at all;
// what confines it is the sandbox, which the advisor never widens.
type AdviseRequest struct {
	Args      []string
	Dir       string
	Statement string // the pipeline or list as written; "" unknown
	Truncates string // an existing file a redirection truncates (absolute)
	TruncSize int64  // its size in bytes
	ReadOnly  bool   // the policy found the command read-only (the cool-off may skip it)
}

// AdviseFunc answers an advise request on the privileged side.
type AdviseFunc func(AdviseRequest) Advice

// Response is the broker's answer: the command's exit status, or why it
// did not run (Status 126 then).
type Response struct {
	Status int     `json:"status"`
	Err    string  `json:"error,omitempty"`
	Advice *Advice `json:"advice,omitempty"` // the answer to a KindAdvise request
	// Stopped says the privileged side was stopping the command line this
	// command belongs to when it ended (Broker.Stopping): the interpreter
	// stops that command line too instead of going on to its next
	// command.
	Stopped bool `json:"stopped,omitempty"`
}

// KindAdvise is the Request kind that asks for the advisor's rating: the
// confined interpreter has no network, so the privileged side asks the
// model, with its own configuration and cache.
const KindAdvise = "advise"

// Advice is the privileged side's advisor rating of one command, or Err
// saying why there is none.
type Advice struct {
	Percent      int     `json:"percent"`
	Reason       string  `json:"reason,omitempty"`
	Model        string  `json:"model,omitempty"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`
	EvalTokens   int     `json:"eval_tokens,omitempty"`
	LatencyMS    float64 `json:"latency_ms,omitempty"`
	Cached       bool    `json:"cached,omitempty"`
	Shortened    bool    `json:"shortened,omitempty"` // the model saw the command shortened (advisor.MaxCommandText)
	Err          string  `json:"error,omitempty"`
}

// maxMessage bounds one protocol message.
const maxMessage = 1 << 20

// Broker is the privileged side of a session: it serves the escalation
// requests of one confined interpreter, re-checks each with Check (its own
// policy and gate; the interpreter's word counts for nothing) and runs the
// approved ones confined by Config plus exactly the approved rights.
type Broker struct {
	Backend string
	Config  Config
	// Check decides a request: the rights to grant, or an error (shown to
	// the interpreter) when the request is refused.
	Check func(Request) (Rights, error)
	// Advise answers KindAdvise requests; nil: "no advisor" answers.
	Advise AdviseFunc
	// Stopping reports whether the privileged side is stopping the
	// interpreter's current command line (its time limit passed, it was
	// interrupted) and the processes it started: an escalated command
	// that ends meanwhile is answered Stopped. nil: never.
	Stopping func() bool
	// Handlers answer the request kinds the broker itself does not know
	// (the session proxy's streams, Client.Open); a kind without a handler
	// is refused. A handler that keeps a file dups it: the broker closes
	// the request's files when the handler returns.
	Handlers map[string]func(req Request, files []*os.File) Response
	// ConfigWritten is told of every protected git config file the
	// privileged side wrote for an approved command (configWrite) and the
	// content it wrote, with approvals held: at the container level the
	// session's Integrity accepts that content (not what the file holds
	// by then) instead of restoring the old. nil: nobody.
	ConfigWritten func(path string, data []byte)
	// ConfigBase returns the content a protected config file must have
	// when the privileged side writes it (the session's Integrity record at
	// the container level, where the session can write the file); ok false:
	// the file as it is (a read-only mount keeps it).
	ConfigBase func(path string) (data []byte, ok bool)
	conn       *os.File

	checkMu  sync.Mutex    // one Check (which may ask a human) at a time
	advising chan struct{} // at most maxAdvising Advise calls at once
}

// NewBroker makes the socketpair. The returned file is the interpreter's
// end: pass it to Start, then close it in the broker.
func NewBroker(backend string, c Config, check func(Request) (Rights, error)) (*Broker, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, err
	}
	// Both ends close-on-exec: the interpreter receives its end only as
	// the ExtraFiles descriptor 3, never as a stray copy.
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	b := &Broker{Backend: backend, Config: c, Check: check, conn: os.NewFile(uintptr(fds[0]), "guardsh-broker"),
		advising: make(chan struct{}, maxAdvising)}
	return b, os.NewFile(uintptr(fds[1]), "guardsh-broker-client"), nil
}

// Serve answers requests until the interpreter closes its end. Each
// request comes with its own reply socket (the last file passed) and is
// answered on it by a goroutine: a long escalated command holds up neither
// the next rating nor another escalated command of the same pipeline (one
// at a time, the pipeline `escalated | { sleep 1; grep x; }` hung forever:
// the writer waited for its reader, the reader's rating for the writer's
// end). Approvals (Check, which may ask a human) stay one at a time, and
// at most maxAdvising ratings are asked for at once.
func (b *Broker) Serve() error {
	defer b.conn.Close()
	for {
		var req Request
		files, err := recvMsg(b.conn, &req)
		if err != nil {
			closeAll(files)
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(files) == 0 {
			continue // no reply socket: nobody to answer
		}
		reply := files[len(files)-1]
		files = files[:len(files)-1]
		go func() {
			resp := b.handle(req, files)
			closeAll(files)
			sendMsg(reply, resp, nil)
			reply.Close()
		}()
	}
}

// maxAdvising bounds the ratings a broker asks for at once.
const maxAdvising = 8

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

func (b *Broker) handle(req Request, files []*os.File) Response {
	if req.Kind == KindAdvise && (len(req.Args) > 0 || req.Truncates != "") && len(files) == 0 {
		if b.Advise == nil {
			return Response{Status: 126, Advice: &Advice{Err: "the privileged side has no advisor configured"}}
		}
		b.advising <- struct{}{}
		a := b.Advise(AdviseRequest{Args: req.Args, Dir: req.Dir, Statement: req.Statement,
			Truncates: req.Truncates, TruncSize: req.TruncSize, ReadOnly: req.ReadOnly})
		<-b.advising
		return Response{Advice: &a}
	}
	if h := b.Handlers[req.Kind]; req.Kind != "" && req.Kind != KindAdvise && h != nil {
		return h(req, files)
	}
	if req.Kind != "" || len(req.Args) == 0 || len(files) != 3 {
		return Response{Status: 126, Err: "guardsh: broker: malformed request"}
	}
	if b.Check == nil {
		return Response{Status: 126, Err: "guardsh: broker: escalation not available"}
	}
	b.checkMu.Lock()
	rights, err := b.Check(req)
	b.checkMu.Unlock()
	if err != nil {
		return Response{Status: 126, Err: err.Error()}
	}
	// The command is looked up on the privileged side's own PATH: the
	// interpreter's could put a program of the project's first. And never
	// in a directory of it that a session may write (a HOME under /tmp
	// with ~/.local/bin first): a command could have planted the program.
	untrusted := append(protect.SessionWritable(b.Config.Project), b.Config.WritableRoots()...)
	var path string
	if strings.Contains(req.Args[0], "/") {
		path, err = lookPath(req.Args[0], req.Dir, nil)
	} else {
		path, err = protect.TrustedProgram(req.Args[0], untrusted)
	}
	if err != nil {
		return Response{Status: 127, Err: fmt.Sprintf("guardsh: %s: command not found (outside the directories the sandbox lets commands write)", req.Args[0])}
	}
	argv := append([]string{path}, req.Args[1:]...)
	env := EscalationEnv(req.Env)
	switch filepath.Base(path) {
	case "git-receive-pack", "git-upload-pack", "git-upload-archive", "git-shell", "git-http-backend", "git-daemon":
		// the server side of git runs the hooks of the repository it serves
		return Response{Status: 126, Err: fmt.Sprintf("guardsh: broker: not run outside the sandbox: %s serves a repository and runs its hooks. Run git push/fetch/archive instead", filepath.Base(path))}
	}
	if isGit(path) {
		// The privileged side runs git itself for a config write and to
		// check the repository: always a git no session could have
		// written, whatever path the request named.
		if path, err = protect.TrustedProgram("git", untrusted); err != nil {
			return Response{Status: 127, Err: "guardsh: broker: " + err.Error()}
		}
		argv[0] = path
		// An approved git runs with hooks, fsmonitor and the repository's
		// programs off, and carries no option that runs a program: what the
		// human approved, with the network, and no more. Its global config
		// is the user's (the privileged side's HOME), not one the session
		// points HOME at.
		env = slices.DeleteFunc(env, func(e string) bool {
			return strings.HasPrefix(e, "HOME=") || strings.HasPrefix(e, "XDG_CONFIG_HOME=")
		})
		for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
		if resp, done := b.configWrite(path, req, env, files); done {
			return resp
		}
		if argv, env, err = gitsafe.Prepare(path, req.Dir, env, req.Args[1:]); err != nil {
			return Response{Status: 126, Err: "guardsh: broker: " + err.Error()}
		}
	}
	cmd, err := ExecCommand(b.Backend, b.Config.With(rights), argv, env, req.Dir)
	if err != nil {
		return Response{Status: 126, Err: "guardsh: broker: " + err.Error()}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	resp := exitResponse(cmd.Run())
	resp.Stopped = b.Stopping != nil && b.Stopping()
	return resp
}

// configWrite makes an approved git command that writes the config of a
// repository whose config file the sandbox protects (the project's
// .git/config: read-only inside the sandbox, so git there fails with
// "Device or resource busy") on the privileged side, as
// gitsafe.ConfigWrite does: the change the command line names and nothing
// else, never a key that runs a program. done is false for a git command
// that writes no protected config file (it runs the usual way).
func (b *Broker) configWrite(gitPath string, req Request, env []string, files []*os.File) (resp Response, done bool) {
	w, perr := gitsafe.ParseConfigWrite(req.Args[1:], gitsafe.EnvLookup(req.Env))
	if w == nil {
		return Response{}, false
	}
	cfg, err := w.Locate(gitPath, req.Dir, env)
	if err != nil {
		return Response{Status: 126, Err: "guardsh: broker: " + err.Error()}, true
	}
	if !slices.Contains(b.Config.Protected, cfg) {
		return Response{}, false // the sandbox lets the command write it
	}
	if perr != nil {
		return Response{Status: 126, Err: "guardsh: broker: " + perr.Error()}, true
	}
	b.checkMu.Lock()
	defer b.checkMu.Unlock()
	var base []byte
	if b.ConfigBase != nil {
		if data, ok := b.ConfigBase(cfg); ok {
			base = data
		}
	}
	status, written, err := w.ApplyFrom(gitPath, req.Dir, cfg, base, env, files[1], files[2])
	if err != nil {
		return Response{Status: 126, Err: "guardsh: broker: " + err.Error()}, true
	}
	if b.ConfigWritten != nil && written != nil {
		b.ConfigWritten(cfg, written)
	}
	return Response{Status: status}, true
}

// exitResponse is the Response for how an escalated command ended.
func exitResponse(err error) Response {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Response{}
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return Response{Status: 128 + int(ws.Signal())}
		}
		return Response{Status: ee.ExitCode()}
	}
	return Response{Status: 126, Err: "guardsh: broker: " + err.Error()}
}

// isGit reports whether the program at path is git (by its name, or the
// name of the file a symbolic link leads to).
func isGit(path string) bool {
	if filepath.Base(path) == "git" {
		return true
	}
	real, err := filepath.EvalSymlinks(path)
	return err == nil && filepath.Base(real) == "git"
}

// EscalationEnv is the environment an escalated command gets: the
// interpreter's, without the variables that make an approved program run
// other code (loader preloads, git's command and config hooks, shell and
// interpreter start-up files), and with the privileged side's PATH.
func EscalationEnv(env []string) []string {
	var out []string
	for _, e := range env {
		name, val, _ := strings.Cut(e, "=")
		if unsafeEscalationVar(name) || name == "PATH" || sessionProxyVar(name, val) {
			continue
		}
		out = append(out, e)
	}
	return append(out, "PATH="+os.Getenv("PATH"))
}

// sessionProxyVar reports whether name=val points a client at the
// session's proxy relay, which listens on the loopback of the sandbox's
// own network namespace (proxy.Env): an escalated command runs with the
// host's network, where that address is nobody's (or someone else's).
func sessionProxyVar(name, val string) bool {
	switch strings.ToLower(name) {
	case "http_proxy", "https_proxy", "all_proxy", "npm_config_proxy", "npm_config_https_proxy":
		return strings.HasPrefix(val, "http://") && strings.Contains(val, "@127.0.0.1:")
	}
	return false
}

func unsafeEscalationVar(name string) bool {
	for _, p := range []string{"LD_", "DYLD_", "GIT_CONFIG", "BASH_FUNC_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXEC_PATH", "GIT_PROXY_COMMAND",
		"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_TEMPLATE_DIR", "GIT_DIR",
		"GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "CDPATH",
		"PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB",
		"RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
		"EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE", "MANPAGER", "BROWSER":
		return true
	}
	return false
}

func lookPath(name, dir string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return name, nil
	}
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Client is the interpreter's end of the escalation channel.
type Client struct {
	mu   sync.Mutex
	conn *os.File
}

// ClientFromEnv returns the escalation channel the broker passed to this
// process, or nil. The descriptor is made close-on-exec so that no command
// the interpreter starts can reach the broker.
func ClientFromEnv() *Client {
	v := os.Getenv(EnvBrokerFD)
	os.Unsetenv(EnvBrokerFD)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	unix.CloseOnExec(fd)
	if _, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
		return nil
	}
	return NewClient(os.NewFile(uintptr(fd), "guardsh-broker"))
}

// NewClient wraps the interpreter's end of a broker socketpair.
func NewClient(f *os.File) *Client { return &Client{conn: f} }

// Run asks the broker to run req with stdin, stdout and stderr and waits
// for its exit status.
func (c *Client) Run(req Request, stdin, stdout, stderr *os.File) (Response, error) {
	return c.exchange(req, []*os.File{stdin, stdout, stderr})
}

// exchange sends req with files and a new reply socket, and waits for the
// answer on that socket. The shared channel is held only while sending,
// so requests of one pipeline are served side by side.
func (c *Client) exchange(req Request, files []*os.File) (Response, error) {
	syscall.ForkLock.RLock() // no command started now inherits the pair
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return Response{}, err
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "guardsh-broker-reply"), os.NewFile(uintptr(fds[1]), "guardsh-broker-reply")
	defer mine.Close()
	c.mu.Lock()
	err = sendMsg(c.conn, req, append(files[:len(files):len(files)], theirs))
	c.mu.Unlock()
	theirs.Close()
	if err != nil {
		return Response{}, err
	}
	var resp Response
	got, err := recvMsg(mine, &resp)
	closeAll(got)
	if err != nil {
		return Response{}, err
	}
	return resp, nil
}

// Advise asks the privileged side's advisor to rate q. When ctx ends first
// it returns ctx's error at once; the exchange finishes in the background
// on its own reply socket (its answer discarded).
func (c *Client) Advise(ctx context.Context, q AdviseRequest) (Advice, error) {
	if err := ctx.Err(); err != nil {
		return Advice{}, err
	}
	type result struct {
		a   Advice
		err error
	}
	ch := make(chan result, 1)
	go func() {
		req := Request{Kind: KindAdvise, Args: q.Args, Dir: q.Dir, Statement: q.Statement,
			Truncates: q.Truncates, TruncSize: q.TruncSize, ReadOnly: q.ReadOnly}
		resp, err := c.exchange(req, nil)
		switch {
		case err != nil:
			ch <- result{err: err}
		case resp.Advice == nil:
			ch <- result{err: fmt.Errorf("no advice in the answer (%s)", resp.Err)}
		default:
			ch <- result{a: *resp.Advice}
		}
	}()
	select {
	case r := <-ch:
		return r.a, r.err
	case <-ctx.Done():
		return Advice{}, ctx.Err()
	}
}

// Open asks the privileged side for a stream of kind (one it has a
// Handler for): the interpreter keeps one end of a new socketpair, the
// handler gets the other. The confined side needs no socket of its own
// for it (Landlock before ABI 9 cannot limit where a Unix socket
// connects, so seccomp allows it none).
func (c *Client) Open(kind string) (*os.File, error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "guardsh-"+kind), os.NewFile(uintptr(fds[1]), "guardsh-"+kind)
	resp, err := c.exchange(Request{Kind: kind}, []*os.File{theirs})
	theirs.Close()
	if err == nil && resp.Err != "" {
		err = errors.New(resp.Err)
	}
	if err != nil {
		mine.Close()
		return nil, err
	}
	return mine, nil
}

// Close closes the channel.
func (c *Client) Close() error { return c.conn.Close() }

func sendMsg(conn *os.File, v any, files []*os.File) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	msg = append(msg, body...)
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = unix.UnixRights(fds...)
	}
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		n := 0
		n, serr = unix.SendmsgN(int(fd), msg, oob, nil, 0)
		if serr == unix.EAGAIN {
			return false
		}
		for serr == nil && n < len(msg) {
			var m int
			m, serr = unix.Write(int(fd), msg[n:])
			n += m
		}
		return true
	})
	if err != nil {
		return err
	}
	return serr
}

func recvMsg(conn *os.File, v any) ([]*os.File, error) {
	hdr := make([]byte, 4)
	oob := make([]byte, unix.CmsgSpace(4*8))
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	var n, oobn int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), hdr, oob, 0)
		return rerr != unix.EAGAIN
	})
	if err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	var files []*os.File
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err == nil {
			for _, m := range msgs {
				fds, err := unix.ParseUnixRights(&m)
				if err != nil {
					continue
				}
				for _, fd := range fds {
					unix.CloseOnExec(fd)
					files = append(files, os.NewFile(uintptr(fd), "passed"))
				}
			}
		}
	}
	if n == 0 {
		return files, io.EOF
	}
	if n < 4 {
		if _, err := io.ReadFull(conn, hdr[n:]); err != nil {
			return files, err
		}
	}
	size := binary.BigEndian.Uint32(hdr)
	if size > maxMessage {
		return files, fmt.Errorf("broker message too large (%d bytes)", size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(conn, body); err != nil {
		return files, err
	}
	return files, json.Unmarshal(body, v)
}
