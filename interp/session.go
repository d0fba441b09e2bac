package interp

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"mvdan.cc/sh/v3/syntax"
)

// shared is the state a shell shares with its nested shells (bash -c,
// scripts): the process table, which signals and exit reach, the job list,
// and options mvdan does not keep.
type shared struct {
	// roots are the trees the session may write (installed.go).
	roots []string
	// netState is the sandbox's network ($GUARDSH_SANDBOX_NET at the
	// start: "loopback", "off: WHY", "" unknown); netNoted says the note
	// about it was given (exec.go netNote).
	netState string
	netNoted atomic.Bool
	// globs holds the as-written source of commands with globs (globsource.go).
	globs globSources
	// strictEnvWarned holds the variables strict mode reported as reset
	// (envpin.go strictEnv): once per session.
	strictEnvWarned sync.Map
	mu              sync.Mutex
	procs           map[int]*proc // running children
	// bgCalls maps the position of the command a background statement
	// runs first to that statement's ID; bgPids gets the PIDs started there.
	bgCalls map[syntax.Pos]int
	bgText  map[int]string
	bgPids  map[int]chan int
	nextID  int
	// nextVirtual numbers the virtual PIDs of nested in-process shells.
	nextVirtual int
	jobs        []*job
	lastJob     *job
	shopts      map[string]bool
	times       []timeMark
	// pipeStatus holds the element statuses of instrumented pipelines by
	// ID, and the pipeline's own status.
	pipeStatus map[int]*psRecord
	// funcNames are the functions parsed scripts define.
	funcNames map[string]bool
	// exited receives every finished background process, for "wait -n".
	exited chan *proc

	interrupted atomic.Bool
	// traceQuiet counts guardsh's own evals running (their "set -x" trace
	// is dropped); traceDropNext drops the trace of the status command that
	// ends one.
	traceQuiet    atomic.Int32
	traceDropNext atomic.Bool
	// unbound is set when an unbound variable error was printed.
	unbound atomic.Bool
	// terminating is the SIGTERM or SIGHUP being handled, or 0.
	terminating atomic.Int32
	intCh       chan struct{}
	intOnce     sync.Once
	// cmdGroup holds the process groups of the agent command running
	// (cmdgroup.go); nil in a shell.
	cmdGroup atomic.Pointer[cmdGroups]
}

// proc is one child process.
type proc struct {
	pid      int
	done     chan struct{}
	status   int
	bg       bool
	group    *procGroup // virtual: what the nested shell started
	cancel   func()     // virtual: stops the nested shell
	killedBy syscall.Signal
}

// job is one background statement ("cmd &") as "jobs", "kill %N", "wait"
// and $! see it.
type job struct {
	num      int
	id       int
	gname    string // mvdan's name for it ("g3"), which its wait takes
	text     string
	pid      int // 0 until known
	resolved bool
	proc     *proc
	disowned bool
}

// fakePidBase is above Linux's largest pid_max: $! for a background job
// that started no process of its own is a number no real process has.
const fakePidBase = 1 << 22

func newShared() *shared {
	return &shared{
		procs:      map[int]*proc{},
		bgCalls:    map[syntax.Pos]int{},
		bgText:     map[int]string{},
		bgPids:     map[int]chan int{},
		shopts:     map[string]bool{},
		pipeStatus: map[int]*psRecord{},
		exited:     make(chan *proc, 256),
		intCh:      make(chan struct{}),
	}
}

// registerBg records a background statement found by the rewrite and
// returns its ID.
func (s *shared) registerBg(call syntax.Pos, text string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := s.nextID
	if call.IsValid() {
		s.bgCalls[call] = id
	}
	s.bgPids[id] = make(chan int, 64)
	s.bgText[id] = text
	return id
}

// bgIDFor tells whether a command at pos is what a background statement
// runs (its $! process), and which.
func (s *shared) bgIDFor(pos syntax.Pos) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.bgCalls[pos]
	return id, ok
}

// track registers a started child. bgID is the background statement it is
// the process of, or 0. A virtual child (a nested shell guardsh runs
// in-process) gets a PID above pid_max; cancel stops it and grp holds the
// processes it started, for kill.
func (s *shared) track(pid, bgID int, grp *procGroup, cancel func()) *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pid == 0 {
		s.nextVirtual++
		pid = fakePidBase + 1000 + s.nextVirtual
	}
	p := &proc{pid: pid, done: make(chan struct{}), group: grp, cancel: cancel}
	s.procs[pid] = p
	if bgID != 0 {
		p.bg = true
		select {
		case s.bgPids[bgID] <- pid:
		default:
		}
	}
	return p
}

// runningPid reports whether pid is a process of the table that has not
// ended (guardsh.Command.OwnProcess).
func (s *shared) runningPid(pid int) bool {
	s.mu.Lock()
	p := s.procs[pid]
	s.mu.Unlock()
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// procGroup is the set of processes a nested in-process shell started
// (and the shells nested in it), so that signalling the shell reaches them.
type procGroup struct {
	mu     sync.Mutex
	pids   map[int]bool
	parent *procGroup
	// vpid is the virtual PID of the nested shell the group belongs to
	// (runTracked): its $$.
	vpid int
}

func newProcGroup(parent *procGroup) *procGroup {
	return &procGroup{pids: map[int]bool{}, parent: parent}
}

func (pg *procGroup) add(pid int) {
	for ; pg != nil; pg = pg.parent {
		pg.mu.Lock()
		pg.pids[pid] = true
		pg.mu.Unlock()
	}
}

func (pg *procGroup) remove(pid int) {
	for ; pg != nil; pg = pg.parent {
		pg.mu.Lock()
		delete(pg.pids, pid)
		pg.mu.Unlock()
	}
}

func (pg *procGroup) list() []int {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	var out []int
	for pid := range pg.pids {
		out = append(out, pid)
	}
	return out
}

// signal sends sig to a child; for a virtual one, to every process it
// started, and a terminating signal also stops the shell itself.
func (s *shared) signal(pid int, sig syscall.Signal) error {
	if pid < fakePidBase {
		return syscall.Kill(pid, sig)
	}
	s.mu.Lock()
	p, ok := s.procs[pid]
	s.mu.Unlock()
	if !ok {
		return syscall.ESRCH
	}
	if p.group == nil {
		return nil // a compound job or a function: nothing guardsh can signal
	}
	if sig == 0 {
		return nil
	}
	for _, c := range p.group.list() {
		syscall.Kill(c, sig)
	}
	switch sig {
	case syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL, syscall.SIGHUP, syscall.SIGQUIT:
		p.killedBy = sig
		if p.cancel != nil {
			p.cancel()
		}
	}
	return nil
}

// finish records the end of a child; st is nil for a virtual one, whose
// status is set by the caller.
func (s *shared) finish(p *proc, st *os.ProcessState) {
	s.mu.Lock()
	delete(s.procs, p.pid)
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.status = 128 + int(ws.Signal())
		} else {
			p.status = st.ExitCode()
		}
	} else if p.killedBy != 0 {
		p.status = 128 + int(p.killedBy)
	}
	s.mu.Unlock()
	close(p.done)
	if p.bg {
		select {
		case s.exited <- p:
		default:
		}
	}
}

// runningPids lists the children guardsh still has.
func (s *shared) runningPids() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for pid := range s.procs {
		if pid < fakePidBase {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids
}

// psRecord is what an instrumented pipeline reported.
type psRecord struct {
	status []int
	last   int
}

func (s *shared) newPipeStatus(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.pipeStatus[s.nextID] = &psRecord{status: make([]int, n)}
	return s.nextID
}

func (s *shared) pipeStatusReport(idStr, idxStr string, status int) {
	id, _ := strconv.Atoi(idStr)
	i, _ := strconv.Atoi(idxStr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.pipeStatus[id]; r != nil && i >= 0 && i < len(r.status) {
		r.status[i] = status
	}
}

// pipeStatusSet returns the assignment of PIPESTATUS after a pipeline and
// remembers the pipeline's status for pipeStatusRet.
func (s *shared) pipeStatusSet(idStr, last string) string {
	id, _ := strconv.Atoi(idStr)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.pipeStatus[id]
	if r == nil {
		return ":"
	}
	r.last, _ = strconv.Atoi(last)
	parts := make([]string, len(r.status))
	for i, st := range r.status {
		parts[i] = strconv.Itoa(st)
		r.status[i] = 0
	}
	return "PIPESTATUS=(" + strings.Join(parts, " ") + ")"
}

func (s *shared) pipeStatusRet(idStr string) int {
	id, _ := strconv.Atoi(idStr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.pipeStatus[id]; r != nil {
		return r.last
	}
	return 0
}

// noteFunction records the name of a function some parsed script defines.
func (s *shared) noteFunction(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.funcNames == nil {
		s.funcNames = map[string]bool{}
	}
	s.funcNames[name] = true
}

// mayBeFunction reports whether a parsed script defines a function name.
func (s *shared) mayBeFunction(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.funcNames[name]
}
