package interp

import (
	"io"
	"os"
	"sync"
)

// callWriter serialises the writes of one RunCommand call to a writer that
// is not a file and drops those that come after the call ended (the output
// of a background job the call left running), so the caller may read its
// buffer once RunCommand returned. Files are passed through untouched: the
// programs write to them directly.
type callWriter struct {
	mu   *sync.Mutex
	w    io.Writer
	done *bool
	file bool
}

// newCallWriters wraps stdout and stderr for one call; when both are the
// same writer they share one lock, so their bytes interleave whole.
func newCallWriters(stdout, stderr io.Writer) (*callWriter, *callWriter) {
	mk := func(w io.Writer, mu *sync.Mutex, done *bool) *callWriter {
		_, isFile := w.(*os.File)
		return &callWriter{mu: mu, w: w, done: done, file: isFile || w == nil}
	}
	mu, done := &sync.Mutex{}, new(bool)
	out := mk(stdout, mu, done)
	if stderr == stdout {
		return out, out
	}
	return out, mk(stderr, &sync.Mutex{}, new(bool))
}

// writer is what the runner writes to.
func (c *callWriter) writer() io.Writer {
	if c.file {
		return c.w
	}
	return c
}

// Write writes p unless the call ended.
func (c *callWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *c.done {
		return len(p), nil
	}
	return c.w.Write(p)
}

// close ends the call: later writes are dropped.
func (c *callWriter) close() {
	c.mu.Lock()
	*c.done = true
	c.mu.Unlock()
}
