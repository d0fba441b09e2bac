package interp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// bgStarted is the marker after a background statement: the job exists.
func (s *shared) bgStarted(idStr, gname string) *job {
	j := s.addJob(idStr, gname)
	// bash knows $! as soon as it forked; wait a moment for the job's
	// process, so that $! is known everywhere after (pipeline elements copy
	// the environment when they start).
	s.awaitPid(j, 100*time.Millisecond)
	return j
}

// awaitPid waits at most d for job j's process to start and records its
// pid; it reports whether the pid came in time.
func (s *shared) awaitPid(j *job, d time.Duration) bool {
	s.mu.Lock()
	ch := s.bgPids[j.id]
	s.mu.Unlock()
	select {
	case pid := <-ch:
		s.mu.Lock()
		if !j.resolved {
			j.resolved, j.pid, j.proc = true, pid, s.procs[pid]
		}
		s.mu.Unlock()
		return true
	case <-time.After(d):
		return false
	}
}

func (s *shared) addJob(idStr, gname string) *job {
	id, _ := strconv.Atoi(idStr)
	s.mu.Lock()
	defer s.mu.Unlock()
	j := &job{num: len(s.jobs) + 1, id: id, gname: gname, text: s.bgText[id]}
	if _, ok := s.bgPids[id]; !ok {
		j.resolved = true
		j.pid = fakePidBase + j.num
	}
	if len(s.jobs) >= 1000 {
		// A loop starting jobs for ever: forget the finished ones.
		kept := s.jobs[:0]
		for _, old := range s.jobs {
			if old.proc == nil || !isDone(old.proc) {
				kept = append(kept, old)
			}
		}
		s.jobs = kept
	}
	s.jobs = append(s.jobs, j)
	s.lastJob = j
	return j
}

// bgDone ends the virtual child of a compound background job.
func (s *shared) bgDone(vpid, status string) {
	pid, _ := strconv.Atoi(vpid)
	st, _ := strconv.Atoi(status)
	s.mu.Lock()
	p, ok := s.procs[pid]
	s.mu.Unlock()
	if !ok || pid < fakePidBase {
		return
	}
	p.status = st
	s.finish(p, nil)
}

// resolve waits (briefly) for the job's process to start and returns its PID.
func (s *shared) resolve(j *job) int {
	s.mu.Lock()
	if j.resolved {
		s.mu.Unlock()
		return j.pid
	}
	ch := s.bgPids[j.id]
	s.mu.Unlock()
	pid := 0
	select {
	case pid = <-ch:
	case <-time.After(time.Second):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !j.resolved {
		j.resolved = true
		if pid == 0 {
			pid = fakePidBase + j.num
		}
		j.pid = pid
		j.proc = s.procs[pid]
	}
	return j.pid
}

// lastBgPid is $!.
func (s *shared) lastBgPid() string {
	s.mu.Lock()
	j := s.lastJob
	s.mu.Unlock()
	if j == nil {
		return ""
	}
	return strconv.Itoa(s.resolve(j))
}

// lastBgPidNoWait is $! if it is known without waiting for the job's
// process to start.
func (s *shared) lastBgPidNoWait() string {
	s.mu.Lock()
	j := s.lastJob
	if j == nil {
		s.mu.Unlock()
		return ""
	}
	if j.resolved {
		s.mu.Unlock()
		return strconv.Itoa(j.pid)
	}
	ch := s.bgPids[j.id]
	s.mu.Unlock()
	select {
	case pid := <-ch:
		s.mu.Lock()
		defer s.mu.Unlock()
		if !j.resolved {
			j.resolved, j.pid, j.proc = true, pid, s.procs[pid]
		}
		return strconv.Itoa(j.pid)
	default:
		return ""
	}
}

// running reports whether a job still runs (as far as guardsh can tell).
func (s *shared) running(j *job) bool {
	pid := s.resolve(j)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.procs[pid]
	return ok
}

// findJob resolves a job spec: %N, %%, %+, %-, or a PID.
func (s *shared) findJob(spec string) *job {
	s.mu.Lock()
	jobs := append([]*job{}, s.jobs...)
	s.mu.Unlock()
	if rest, ok := strings.CutPrefix(spec, "%"); ok {
		var j *job
		switch rest {
		case "", "%", "+":
			if len(jobs) > 0 {
				j = jobs[len(jobs)-1]
			}
		case "-":
			if len(jobs) > 1 {
				j = jobs[len(jobs)-2]
			}
		default:
			n, err := strconv.Atoi(rest)
			if err == nil && n >= 1 && n <= len(jobs) {
				j = jobs[n-1]
			}
			if err != nil {
				for _, c := range jobs {
					if strings.HasPrefix(c.text, rest) {
						j = c
					}
				}
			}
		}
		if j != nil && j.disowned {
			return nil
		}
		return j
	}
	pid, err := strconv.Atoi(spec)
	if err != nil {
		return nil
	}
	for _, j := range jobs {
		if !j.disowned && s.resolve(j) == pid {
			return j
		}
	}
	return nil
}

// jobsList are the jobs "jobs" shows: not disowned, and not reported done.
func (s *shared) jobsList() []*job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*job
	for _, j := range s.jobs {
		if !j.disowned {
			out = append(out, j)
		}
	}
	return out
}

// waitCall maps PIDs and job specs of "wait" to mvdan's job names; "wait
// -n" and unknown PIDs go to guardsh's own wait.
func (g *Runner) waitCall(args []string) []string {
	if len(args) == 1 {
		return args
	}
	out := []string{"wait"}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			return append([]string{internalPrefix + "wait"}, args[1:]...)
		}
		j := g.sh.findJob(a)
		if j == nil || j.gname == "" {
			return append([]string{internalPrefix + "wait"}, args[1:]...)
		}
		out = append(out, j.gname)
	}
	return out
}

func (g *Runner) kill(hc interp.HandlerContext, args []string) int {
	sig := syscall.SIGTERM
	if len(args) == 0 {
		fmt.Fprintf(hc.Stderr, "%s: kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n", g.name)
		return 2
	}
	switch a := args[0]; {
	case a == "-l" || a == "-L":
		return listSignals(hc, args[1:])
	case a == "-s" || a == "-n":
		if len(args) < 2 {
			g.builtinErr(hc, "kill: %s: option requires an argument", a)
			return 2
		}
		s, ok := parseSignal(args[1])
		if !ok {
			g.builtinErr(hc, "kill: %s: invalid signal specification", args[1])
			return 1
		}
		sig, args = s, args[2:]
	case a == "--":
		args = args[1:]
	case strings.HasPrefix(a, "-") && len(a) > 1:
		s, ok := parseSignal(a[1:])
		if !ok {
			g.builtinErr(hc, "kill: %s: invalid signal specification", a[1:])
			return 1
		}
		sig, args = s, args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	st := 0
	for _, a := range args {
		var pids []int
		if strings.HasPrefix(a, "%") {
			j := g.sh.findJob(a)
			if j == nil {
				g.builtinErr(hc, "kill: %s: no such job", a)
				st = 1
				continue
			}
			pids = []int{g.sh.resolve(j)}
		} else {
			pid, err := strconv.Atoi(a)
			if err != nil {
				g.builtinErr(hc, "kill: %s: arguments must be process or job IDs", a)
				st = 1
				continue
			}
			pids = []int{pid}
		}
		for _, pid := range pids {
			if pid > fakePidBase && pid <= fakePidBase+1000 {
				continue // a job that started no process: nothing to signal
			}
			if err := g.sh.signal(pid, sig); err != nil {
				g.builtinErr(hc, "kill: (%d) - %s", pid, errnoText(err))
				st = 1
			}
		}
	}
	return st
}

func listSignals(hc interp.HandlerContext, args []string) int {
	if len(args) == 0 {
		var b strings.Builder
		for i := 1; i <= 31; i++ {
			fmt.Fprintf(&b, "%2d) SIG%-7s", i, signalNames[i])
			if i%5 == 0 || i == 31 {
				b.WriteString("\n")
			} else {
				b.WriteString("\t")
			}
		}
		fmt.Fprint(hc.Stdout, b.String())
		return 0
	}
	st := 0
	for _, a := range args {
		if n, err := strconv.Atoi(a); err == nil {
			if n > 128 {
				n -= 128
			}
			if n > 0 && n < len(signalNames) {
				fmt.Fprintln(hc.Stdout, signalNames[n])
				continue
			}
			st = 1
			continue
		}
		if s, ok := parseSignal(a); ok {
			fmt.Fprintln(hc.Stdout, int(s))
			continue
		}
		st = 1
	}
	return st
}

// signalNames are the Linux signal names by number, without "SIG".
var signalNames = []string{"", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL",
	"USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
	"TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

func parseSignal(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return syscall.Signal(n), n >= 0 && n < 65
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for i, n := range signalNames {
		if i > 0 && n == name {
			return syscall.Signal(i), true
		}
	}
	switch name {
	case "IOT":
		return syscall.SIGABRT, true
	case "POLL":
		return syscall.SIGIO, true
	}
	return 0, false
}

func (g *Runner) jobs(hc interp.HandlerContext, args []string) int {
	long, pidsOnly := false, false
	for _, a := range args {
		switch a {
		case "-l":
			long = true
		case "-p":
			pidsOnly = true
		}
	}
	// A non-interactive bash reports finished jobs to nobody: "jobs"
	// lists the running ones.
	var list []*job
	for _, j := range g.sh.jobsList() {
		if g.sh.running(j) {
			list = append(list, j)
		}
	}
	for i, j := range list {
		mark := ' '
		switch i {
		case len(list) - 1:
			mark = '+'
		case len(list) - 2:
			mark = '-'
		}
		running := true
		if pidsOnly {
			if j.pid < fakePidBase {
				fmt.Fprintln(hc.Stdout, j.pid)
			}
			continue
		}
		state, text := "Done", j.text
		if running {
			state, text = "Running", j.text+" &"
		}
		if long {
			fmt.Fprintf(hc.Stdout, "[%d]%c %d %-24s%s\n", j.num, mark, j.pid, state, text)
		} else {
			fmt.Fprintf(hc.Stdout, "[%d]%c  %-24s%s\n", j.num, mark, state, text)
		}
	}
	// Jobs reported done are forgotten, as in bash.
	g.sh.mu.Lock()
	kept := g.sh.jobs[:0]
	for _, j := range g.sh.jobs {
		if j.pid >= fakePidBase || j.proc == nil || !isDone(j.proc) {
			kept = append(kept, j)
		}
	}
	g.sh.jobs = kept
	g.sh.mu.Unlock()
	return 0
}

func isDone(p *proc) bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (g *Runner) disown(hc interp.HandlerContext, args []string) int {
	all := false
	var specs []string
	for _, a := range args {
		switch {
		case a == "-a" || a == "-r":
			all = true
		case a == "-h":
		default:
			specs = append(specs, a)
		}
	}
	if len(specs) == 0 && !all {
		specs = []string{"%+"}
	}
	st := 0
	if all {
		for _, j := range g.sh.jobsList() {
			g.sh.disownJob(j)
		}
	}
	for _, s := range specs {
		j := g.sh.findJob(s)
		if j == nil {
			if strings.HasPrefix(s, "%") {
				g.builtinErr(hc, "disown: %s: no such job", s)
			} else {
				g.builtinErr(hc, "disown: %s: no such job", s)
			}
			st = 1
			continue
		}
		g.sh.disownJob(j)
	}
	return st
}

func (s *shared) disownJob(j *job) {
	pid := s.resolve(j)
	s.mu.Lock()
	defer s.mu.Unlock()
	j.disowned = true
	if p, ok := s.procs[pid]; ok {
		p.bg = false
		delete(s.procs, pid) // signals and exit leave it alone
	}
}

// wait handles what mvdan's wait cannot: -n, and PIDs it does not know.
func (g *Runner) wait(ctx context.Context, hc interp.HandlerContext, args []string) int {
	next := false
	var ids []string
	for _, a := range args {
		switch {
		case a == "-n":
			next = true
		case a == "-f":
		case strings.HasPrefix(a, "-"):
			g.builtinErr(hc, "wait: %s: invalid option", a)
			return 2
		default:
			ids = append(ids, a)
		}
	}
	if next {
		running := map[int]bool{}
		for _, j := range g.sh.jobsList() {
			if g.sh.running(j) {
				running[j.pid] = true
			}
		}
		if len(running) == 0 {
			return 127
		}
		for {
			select {
			case p := <-g.sh.exited:
				if running[p.pid] {
					return p.status
				}
			case <-ctx.Done():
				return 130
			}
		}
	}
	st := 0
	for _, a := range ids {
		j := g.sh.findJob(a)
		if j == nil {
			if strings.HasPrefix(a, "%") {
				g.builtinErr(hc, "wait: %s: no such job", a)
			} else {
				g.builtinErr(hc, "wait: pid %s is not a child of this shell", a)
			}
			st = 127
			continue
		}
		if j.proc != nil {
			select {
			case <-j.proc.done:
			case <-ctx.Done():
				return 130
			}
			st = j.proc.status
		}
	}
	return st
}
