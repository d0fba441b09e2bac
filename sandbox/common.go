package sandbox

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Environment variables of the re-exec protocol. They are internal: the
// stage variable is removed before anything else runs, and the run marker
// is only believed when the process really is confined.
const (
	envStage = "GUARDSH_SANDBOX_STAGE" // base64 JSON stageSpec: confine, then act
	// envEnter: enterSpec as KEEP,GATE,NPROC, for an interpreter started from a
	// confined thread (thread_linux.go): what the stage would have done
	// for it before the exec.
	envEnter = "GUARDSH_SANDBOX_ENTER"
	// EnvRun marks the confined interpreter; its value describes the
	// sandbox for audit records.
	EnvRun = "GUARDSH_SANDBOX_RUN"
	// EnvBrokerFD names the fd of the escalation channel in the interpreter.
	EnvBrokerFD = "GUARDSH_SANDBOX_BROKER_FD"
	// EnvFiles lists the files the privileged side opened for the
	// interpreter before it was confined, as name=fd,name=fd.
	EnvFiles = "GUARDSH_SANDBOX_FILES"
)

// Session is a confined interpreter process started by the privileged side.
type Session struct {
	Backend string    // the backend confining it
	Desc    string    // its description for audit records
	Cmd     *exec.Cmd // the started process (bwrap's, under bubblewrap)
	// ProcLimit says what limits the number of the session's processes
	// (a pids cgroup of its own, RLIMIT_NPROC, or none and why).
	ProcLimit string

	gate    *os.File // StartGated: the write end the stage waits on
	cleanup func()   // removes what the session's process limit made
}

// Close removes what the session set up for itself (its pids cgroup) once
// its process has ended; call it after Cmd.Wait.
func (s *Session) Close() {
	if s.cleanup != nil {
		s.cleanup()
		s.cleanup = nil
	}
}

// Release lets a stage started by StartGated go on: confine itself, then
// become the interpreter. The privileged side calls it once everything
// the confinement relies on is in place (the session's temporary
// directory made, the backend proven). A session not started gated has
// nothing to release.
func (s *Session) Release() error {
	if s.gate == nil {
		return nil
	}
	_, err := s.gate.Write([]byte{gateGo})
	if cerr := s.gate.Close(); err == nil {
		err = cerr
	}
	s.gate = nil
	return err
}

// Abort ends a stage started by StartGated that was not released: the
// stage sees its gate closed without the go-ahead and exits (status 126)
// before it confines itself or runs anything; Abort waits for it.
func (s *Session) Abort() {
	if s.gate != nil {
		s.gate.Close()
		s.gate = nil
	}
	s.Cmd.Wait()
}

// gateGo is the byte that releases a gated stage.
const gateGo = 'g'

// NewTmpDirName returns the path of a session temporary directory that
// does not exist yet: under the system's temporary directory, named with
// 64 random bits. The caller makes it with os.Mkdir (which fails if
// anything already has that name) before anything relies on it.
func NewTmpDirName() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return filepath.Join(canon(os.TempDir()), "guardsh-"+hex.EncodeToString(b[:])), nil
}

// UsableTempDir makes sure the process's temporary directory can be
// written, for the session's private temp dir and the probe: inside
// another sandbox (bubblewrap with a read-only /tmp, Codex's sandbox) the
// default one often cannot. It tries $TMPDIR (or /tmp), /var/tmp,
// /dev/shm, $XDG_RUNTIME_DIR and ~/.cache/guardsh/tmp, sets TMPDIR to the
// first where a directory can be made, and returns it ("" and an error
// naming every one tried when none can).
func UsableTempDir() (string, error) {
	var cands []string
	cands = append(cands, os.TempDir(), "/var/tmp", "/dev/shm")
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		cands = append(cands, x)
	}
	if h, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(h, ".cache", "guardsh", "tmp"))
	}
	var tried []string
	for i, d := range cands {
		if i == len(cands)-1 {
			os.MkdirAll(d, 0o700)
		}
		p, err := os.MkdirTemp(d, "guardsh-check-")
		if err != nil {
			tried = append(tried, d+": "+err.Error())
			continue
		}
		os.Remove(p)
		if i > 0 {
			os.Setenv("TMPDIR", d)
		}
		return d, nil
	}
	return "", fmt.Errorf("no temporary directory can be written here (%s): set TMPDIR to one", strings.Join(tried, "; "))
}

// Executable is the guardsh binary re-executed for the confined stages.
// Tests may point it elsewhere; "" means os.Executable().
var Executable = ""

func executable() (string, error) {
	if Executable != "" {
		return Executable, nil
	}
	return os.Executable()
}

// Check is one probe result.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// ProbeResult is what the probe proved about one backend.
type ProbeResult struct {
	Backend  string        `json:"backend"`
	ABI      int           `json:"abi,omitempty"` // Landlock ABI
	OK       bool          `json:"ok"`
	Checks   []Check       `json:"checks,omitempty"`
	Err      string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	Cached   bool          `json:"-"` // from the probe cache (CachedProbe)
	// OuterNoNet says guardsh runs nested in an outer sandbox that refuses
	// it network sockets (Codex's seccomp filter): the network checks
	// hold by that filter, which every process guardsh starts inherits.
	OuterNoNet bool `json:"outer_no_net,omitempty"`
}

// Describe returns the sandbox description for audit records.
func (r ProbeResult) Describe() string {
	d := r.describeLevel()
	if r.OuterNoNet {
		d += ", nested in an outer sandbox that refuses network sockets"
	}
	return d
}

func (r ProbeResult) describeLevel() string {
	switch r.Backend {
	case BackendLandlock:
		return fmt.Sprintf("landlock+seccomp (abi %d)", r.ABI)
	case BackendBwrap:
		return "bwrap+seccomp"
	case BackendContainer:
		return fmt.Sprintf("container: landlock+seccomp (abi %d), no namespaces", r.ABI)
	}
	return r.Backend
}

// EnvNet names the variable the confining stage sets for the interpreter:
// "loopback" (a private network namespace with lo up: local servers work,
// nothing outside is reachable) or "off: WHY" (network sockets refused).
const EnvNet = "GUARDSH_SANDBOX_NET"

// stageSpec is what the privileged side asks a freshly started guardsh
// process to do: confine itself, then either become the interpreter
// ("run"), exec an approved command ("exec"), or prove the sandbox
// ("probe").
type stageSpec struct {
	Config   Config     `json:"config"`
	Landlock bool       `json:"landlock"`
	MountNS  bool       `json:"mountns"`
	Action   string     `json:"action"`
	Argv     []string   `json:"argv,omitempty"`     // exec: the command (Argv[0] absolute)
	Desc     string     `json:"desc,omitempty"`     // run: sandbox description
	Argv0    string     `json:"argv0,omitempty"`    // run: the interpreter's argv[0] ("-bash" for a login shell)
	KeepFDs  int        `json:"keep_fds,omitempty"` // descriptors passed on purpose, from 3; all others above 2 are closed
	GateFD   int        `json:"gate_fd,omitempty"`  // run: wait for the go-ahead on this descriptor before confining (StartGated)
	NProc    int        `json:"nproc,omitempty"`    // run: set RLIMIT_NPROC to this first (no pids cgroup)
	Probe    *probeSpec `json:"probe,omitempty"`
	// HostNetNS is the privileged side's network namespace (inode): the
	// stage gives confined processes a private one with loopback and
	// network sockets only when its own is another (netns_linux.go).
	HostNetNS uint64 `json:"host_netns,omitempty"`
}

func encodeSpec(s stageSpec) string {
	b, _ := json.Marshal(s)
	return envStage + "=" + base64.StdEncoding.EncodeToString(b)
}

func withoutStage(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if strings.HasPrefix(e, envStage+"=") || strings.HasPrefix(e, envEnter+"=") || strings.HasPrefix(e, EnvBrokerFD+"=") || strings.HasPrefix(e, EnvFiles+"=") {
			continue
		}
		out = append(out, e)
	}
	return out
}

// passFiles lays out the descriptors the interpreter inherits: the broker
// channel as fd 3, then the named files (sorted by name), and says where
// in its environment.
func passFiles(env []string, broker *os.File, files map[string]*os.File) ([]*os.File, []string) {
	var clean []string
	for _, e := range withoutStage(env) {
		if !strings.HasPrefix(e, EnvRun+"=") {
			clean = append(clean, e)
		}
	}
	env = clean
	var extra []*os.File
	if broker != nil {
		extra = append(extra, broker)
		env = append(env, EnvBrokerFD+"=3")
	}
	var names []string
	for n, f := range files {
		if f != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var list []string
	for _, n := range names {
		extra = append(extra, files[n])
		list = append(list, n+"="+strconv.Itoa(2+len(extra)))
	}
	if len(list) > 0 {
		env = append(env, EnvFiles+"="+strings.Join(list, ","))
	}
	return extra, env
}

// PassedFile returns the file named name (e.g. "audit") that the
// privileged side opened for this interpreter before confining it, or
// nil. Each file can be taken once; it is close-on-exec from then on.
func PassedFile(name string) *os.File {
	AdoptPassedFiles()
	passedMu.Lock()
	defer passedMu.Unlock()
	f := passed[name]
	delete(passed, name)
	return f
}

// AdoptPassedFiles takes the files the privileged side passed (see
// PassedFile) and makes them close-on-exec at once, so that no command the
// interpreter starts inherits them, whether or not they are used.
func AdoptPassedFiles() {
	passedMu.Lock()
	defer passedMu.Unlock()
	if passed == nil {
		passed = map[string]*os.File{}
		for _, kv := range strings.Split(os.Getenv(EnvFiles), ",") {
			n, v, ok := strings.Cut(kv, "=")
			fd, err := strconv.Atoi(v)
			if !ok || err != nil || fd < 3 {
				continue
			}
			syscall.CloseOnExec(fd)
			passed[n] = os.NewFile(uintptr(fd), n)
		}
		os.Unsetenv(EnvFiles)
	}
}

var (
	passedMu sync.Mutex
	passed   map[string]*os.File
)

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
