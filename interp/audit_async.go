package interp

import (
	"io"
	"sync"
)

// auditAsync sits between the audit log's buffer and its file. A buffer
// that fills up with records that may wait (Note: pure builtins) is copied
// and written by a goroutine of its own, so a loop of builtins does not
// wait for write(2) (about a third of the audit log's cost in a loop of
// builtins). Every other write (a Decide or Exit record, Flush, Close:
// the log calls them in sync mode) first waits until the goroutine has
// written everything handed to it, then writes itself: records reach the
// file in order, and a decide record with everything before it is on disk
// before its command runs, as without this.
type auditAsync struct {
	w       io.Writer
	mu      sync.Mutex
	cond    sync.Cond // queue, busy or running changed
	queue   [][]byte  // buffers handed over, in order
	busy    bool      // the goroutine is writing one
	running bool      // the goroutine exists (it ends when the queue is empty)
	sync    bool      // the log is flushing: write at once, after the queue
	err     error     // the first error of a background write, not reported yet
	free    [][]byte  // written buffers, for reuse
}

// auditQueueMax bounds the buffers waiting: the loop then waits for the
// disk like before.
const auditQueueMax = 4

func newAuditAsync(w io.Writer) *auditAsync {
	q := &auditAsync{w: w}
	q.cond.L = &q.mu
	return q
}

func (q *auditAsync) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.sync {
		if err := q.drainLocked(); err != nil {
			return 0, err
		}
		return q.w.Write(p)
	}
	for len(q.queue) >= auditQueueMax {
		q.cond.Wait()
	}
	var b []byte
	if n := len(q.free); n > 0 {
		b, q.free = q.free[n-1], q.free[:n-1]
	}
	q.queue = append(q.queue, append(b[:0], p...))
	if !q.running {
		q.running = true
		go q.loop()
	}
	q.cond.Broadcast()
	return len(p), nil
}

// drainLocked waits until everything handed over is written and returns
// the first background error, once.
func (q *auditAsync) drainLocked() error {
	for len(q.queue) > 0 || q.busy {
		q.cond.Wait()
	}
	err := q.err
	q.err = nil
	return err
}

// setSync switches sync mode (see auditAsync); switching it on drains
// the queue and returns a background error.
func (q *auditAsync) setSync(on bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sync = on
	if on {
		return q.drainLocked()
	}
	return nil
}

func (q *auditAsync) loop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) > 0 {
		b := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.busy = true
		q.mu.Unlock()
		_, err := q.w.Write(b)
		q.mu.Lock()
		q.busy = false
		if err != nil && q.err == nil {
			q.err = err
		}
		if len(q.free) < auditQueueMax {
			q.free = append(q.free, b[:0])
		}
		q.cond.Broadcast()
	}
	q.running = false
	q.cond.Broadcast()
}
