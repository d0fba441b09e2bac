package interp

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A nested shell guardsh runs in-process (sh -c, a script) writes to the
// files of the statement that started it: `sh -c '(sleep 1; echo x) &' >
// out.txt`. mvdan's runner closes out.txt when that statement ends, but
// the nested shell's background job goes on writing, as in bash, where
// the job holds its own descriptor. So the nested shell gets its own
// close-on-exec duplicates of its stdout and stderr files, closed when it
// and every background job its statements started have ended. Its stdin
// is left shared: bash gives background jobs /dev/null, and holding a
// pipe's read end would keep its writer blocked instead of stopped.

// nestedStdio holds the duplicates made for one nested shell.
type nestedStdio struct {
	dups map[*os.File]*os.File // original -> duplicate
}

func newNestedStdio() *nestedStdio { return &nestedStdio{dups: map[*os.File]*os.File{}} }

// own returns w, or for a file its duplicate (one per file: 2>&1 shares
// it). A file that cannot be duplicated is returned as it is.
func (n *nestedStdio) own(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return w
	}
	if d, ok := n.dups[f]; ok {
		return d
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return w
	}
	nfd := -1
	if cerr := sc.Control(func(fd uintptr) { nfd, err = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 3) }); cerr != nil || err != nil {
		return w
	}
	d := os.NewFile(uintptr(nfd), f.Name())
	n.dups[f] = d
	return d
}

func (n *nestedStdio) close() {
	for _, d := range n.dups {
		d.Close()
	}
}

// closeAfterJobs closes the duplicates once the background jobs the
// nested shell child started (and the jobs those started) have ended: at
// once when it started none.
func (n *nestedStdio) closeAfterJobs(child *Runner) {
	if len(n.dups) == 0 {
		return
	}
	jobs := child.own.take()
	if len(jobs) == 0 {
		n.close()
		return
	}
	go func() {
		for len(jobs) > 0 {
			for _, j := range jobs {
				child.sh.awaitJobEnd(j)
			}
			jobs = child.own.take()
		}
		n.close()
	}()
}

// ownJobs are the background jobs one shell's statements started, its
// subshells' included (they share its handlers).
type ownJobs struct {
	mu   sync.Mutex
	jobs []*job
}

func (o *ownJobs) add(j *job) {
	o.mu.Lock()
	o.jobs = append(o.jobs, j)
	o.mu.Unlock()
}

// take returns the jobs added since the last take.
func (o *ownJobs) take() []*job {
	o.mu.Lock()
	defer o.mu.Unlock()
	j := o.jobs
	o.jobs = nil
	return j
}

// awaitJobEnd waits for job j to end: for its process, or its compound
// job's virtual one, to finish. A job whose process does not appear
// within a second started none (a builtin run in the background) and
// counts as ended.
func (s *shared) awaitJobEnd(j *job) {
	deadline := time.Now().Add(time.Second)
	for {
		s.mu.Lock()
		p, resolved := j.proc, j.resolved
		s.mu.Unlock()
		switch {
		case p != nil:
			<-p.done
			return
		case resolved:
			return // no process, or it had ended already
		case time.Now().After(deadline):
			return
		}
		s.awaitPid(j, 10*time.Millisecond)
	}
}
