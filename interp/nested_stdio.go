package interp

import (
	"io"
	"os"
	"reflect"
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

// A writer that is not a file (a command substitution's buffer) is given
// to the nested shell as a pipe, as bash's $(...) is, whose other end
// guardsh copies into the writer: "exec 3>&1" then duplicates it as a
// descriptor (bats-exec-test does that inside $(...)), and the copy is
// complete when the nested shell and its descriptors are closed.

// nestedStdio holds the duplicates made for one nested shell.
type nestedStdio struct {
	dups map[*os.File]*os.File // original -> duplicate
	// pipes are the write ends given for writers that are not files, and
	// copying the copies from their read ends.
	pipes   map[io.Writer]*os.File
	copying sync.WaitGroup
	// closers run with close: the nested shell's other descriptors.
	closers []func()
}

func newNestedStdio() *nestedStdio {
	return &nestedStdio{dups: map[*os.File]*os.File{}, pipes: map[io.Writer]*os.File{}}
}

// own returns w, or for a file its duplicate (one per file: 2>&1 shares
// it). A file that cannot be duplicated is returned as it is.
func (n *nestedStdio) own(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return n.piped(w)
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

// piped returns the write end of a pipe copied into w (one per writer:
// 2>&1 shares it); w itself when it is nil, not a pointer (so not usable
// as a map key for sharing) or no pipe can be made.
func (n *nestedStdio) piped(w io.Writer) io.Writer {
	if w == nil || reflect.ValueOf(w).Kind() != reflect.Pointer {
		return w
	}
	if p, ok := n.pipes[w]; ok {
		return p
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return w
	}
	n.pipes[w] = pw
	n.copying.Add(1)
	go func() {
		defer n.copying.Done()
		io.Copy(w, r)
		r.Close()
	}()
	return pw
}

func (n *nestedStdio) close() {
	for _, d := range n.dups {
		d.Close()
	}
	for _, p := range n.pipes {
		p.Close()
	}
	for _, c := range n.closers {
		c()
	}
}

// closeAfterJobs closes the duplicates once the background jobs the
// nested shell child started (and the jobs those started) have ended: at
// once when it started none.
func (n *nestedStdio) closeAfterJobs(child *Runner) {
	if len(n.dups) == 0 && len(n.pipes) == 0 && len(n.closers) == 0 {
		return
	}
	jobs := child.own.take()
	if len(jobs) == 0 {
		n.close()
		// what it wrote is in the writers (a pipe still held by a process
		// it left running keeps this waiting, as bash's $(...) does)
		n.copying.Wait()
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
