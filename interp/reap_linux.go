package interp

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Processes that leave their process group.
// run_shell's commands go into process groups of their own (cmdgroup.go),
// but a program may leave them: setsid, a daemon that double-forks. Its
// parent exits, and it is adopted by the nearest "child subreaper" among
// its ancestors, else by init, and outlives everything. The agent's shell
// session (and the agent) become subreapers, so that every process a
// command started stays their descendant and can be found by walking
// /proc and stopped: when the command times out or is cancelled, and
// when the run ends.

// BecomeSubreaper makes this process a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): orphaned descendants are re-parented to
// it instead of init, so that they remain its descendants. RunCommand then
// stops, when a command times out or is cancelled, every descendant that
// appeared during the command, wherever it moved.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	subreaper.Store(true)
	return nil
}

// ProcKey names one process over time: its pid and its start time (clock
// ticks after boot), so that a reused pid is another process.
type ProcKey struct {
	Pid   int
	Start uint64
}

// StoppedProc is a process KillDescendants signalled, with its name.
type StoppedProc struct {
	ProcKey
	Name   string // the command's name (comm)
	Zombie bool   // it had ended already (a zombie): nothing to stop
}

// procEntry is one process of the table.
type procEntry struct {
	ppid   int
	start  uint64
	zombie bool
	name   string // comm
}

// procTable reads the parent and start time of root's descendants from
// /proc: through /proc/<pid>/task/<tid>/children when the kernel has them
// (CONFIG_PROC_CHILDREN, most distributions: a few reads, ~0.1 ms), else
// every process's stat (~1 ms for 100 processes).
func procTable(root int) map[int]procEntry {
	t := map[int]procEntry{}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		if err != nil {
			continue // gone
		}
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + task.Name() + "/children")
			if err != nil {
				if p == root && os.IsNotExist(err) {
					return procTableAll()
				}
				continue
			}
			for _, f := range bytes.Fields(b) {
				c, err := strconv.Atoi(string(f))
				if err != nil || c == p || len(t) > 100000 {
					continue
				}
				if _, dup := t[c]; dup {
					continue
				}
				if e, ok := readProcStat(c); ok {
					t[c] = e
					queue = append(queue, c)
				}
			}
		}
	}
	return t
}

// procTableAll reads every process's parent and start time from /proc.
func procTableAll() map[int]procEntry {
	t := map[int]procEntry{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if e, ok := readProcStat(pid); ok {
			t[pid] = e
		}
	}
	return t
}

// readProcStat reads one process's /proc/<pid>/stat.
func readProcStat(pid int) (procEntry, bool) {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(st, ')')
	if err != nil || i < 0 {
		return procEntry{}, false
	}
	f := bytes.Fields(st[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return procEntry{}, false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	start, _ := strconv.ParseUint(string(f[19]), 10, 64) // field 22
	comm := ""
	if j := bytes.IndexByte(st, '('); j >= 0 && j < i {
		comm = string(st[j+1 : i])
	}
	return procEntry{ppid: ppid, start: start, zombie: string(f[0]) == "Z" || string(f[0]) == "X", name: comm}, true
}

// descendantsIn returns root's descendants in table t, parents first,
// leaving out the processes in keep and everything below them, and the
// processes in pass (but not what is below them).
func descendantsIn(t map[int]procEntry, root int, keep, pass map[ProcKey]bool) []int {
	children := map[int][]int{}
	for pid, e := range t {
		children[e.ppid] = append(children[e.ppid], pid)
	}
	var out []int
	var walk func(int, int)
	walk = func(p, depth int) {
		for _, c := range children[p] {
			k := ProcKey{c, t[c].start}
			if c == p || depth > 200 || keep[k] {
				continue
			}
			if !pass[k] {
				out = append(out, c)
			}
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return out
}

// Descendants returns the processes below root (live or zombie).
func Descendants(root int) map[ProcKey]bool {
	t := procTable(root)
	out := map[ProcKey]bool{}
	for _, pid := range descendantsIn(t, root, nil, nil) {
		out[ProcKey{pid, t[pid].start}] = true
	}
	return out
}

// KillDescendants stops the descendants of root: SIGTERM (and SIGCONT,
// for stopped ones), then SIGKILL to whatever is left after grace;
// processes that appear meanwhile (forked by one being stopped) are found
// on each pass. It leaves alone the processes in keep with everything
// below them (a background job of an earlier command, and what it forks
// later: stopping a child but not its parent would let the parent go on
// to its next step), and the processes in pass but not what is below them
// (the shell session and the sandbox's processes around it). It returns
// the processes it signalled, zombies included (a caller that adopted
// them may reap them).
func KillDescendants(root int, keep, pass map[ProcKey]bool, grace time.Duration) []StoppedProc {
	seen := map[ProcKey]bool{}
	var hit []StoppedProc
	deadline := time.Now().Add(grace)
	for {
		t := procTable(root)
		live := 0
		for _, pid := range descendantsIn(t, root, keep, pass) {
			k := ProcKey{pid, t[pid].start}
			if !seen[k] {
				seen[k] = true
				hit = append(hit, StoppedProc{k, t[pid].name, t[pid].zombie})
			}
			if t[pid].zombie {
				continue
			}
			live++
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
			} else {
				syscall.Kill(pid, syscall.SIGTERM)
				syscall.Kill(pid, syscall.SIGCONT)
			}
		}
		if live == 0 || time.Now().After(deadline.Add(2*time.Second)) {
			return hit
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reapAdopted waits for the processes of ps that are this process's
// children but that it did not start itself (not in started): orphans it
// adopted as a subreaper, which nothing else waits for. Processes still
// alive are left alone.
func reapAdopted(ps []StoppedProc, started map[int]bool) {
	self := os.Getpid()
	t := procTable(self)
	for _, p := range ps {
		k := p.ProcKey
		e, ok := t[k.Pid]
		if !ok || e.ppid != self || e.start != k.Start || started[k.Pid] || !e.zombie {
			continue
		}
		var ws syscall.WaitStatus
		syscall.Wait4(k.Pid, &ws, syscall.WNOHANG, nil)
	}
}

// StopSurvivors stops every process below this one (SIGTERM, then SIGKILL
// after grace) and reaps those it adopted as a subreaper: what is left of
// a session once its interpreter has ended.
func StopSurvivors(grace time.Duration) {
	gone := KillDescendants(os.Getpid(), nil, nil, grace)
	reapAdopted(gone, nil)
}
