package interp

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// AuditLog appends guardsh.AuditRecords as JSON lines. It is opened once per
// session (before the sandbox confines the process: Landlock does not affect
// open files) and is safe for concurrent use. A Decide or Exit record is
// written out (one write call, with any Note records before it) before the
// call returns: a decide record is in the file before its command runs.
type AuditLog struct {
	mu      sync.Mutex
	f       *os.File // nil when writing to a plain io.Writer
	w       *bufio.Writer
	session string
	next    uint64
	err     error // first write error, reported once
	warned  bool
	dirty   bool   // Note records wait in the buffer; a flush is scheduled
	scratch []byte // encoding buffer
	// envScrubbed goes on the next decide record (SetEnvScrubbed).
	envScrubbed []string
}

// SetEnvScrubbed records the names of the variables the session removed
// from its environment (nil: scrubbing was off): they go into the
// env_scrubbed field of the next decide record, the session's first.
func (a *AuditLog) SetEnvScrubbed(names []string) {
	if a == nil || names == nil {
		return
	}
	a.mu.Lock()
	a.envScrubbed = names
	a.mu.Unlock()
}

// OpenAuditFile opens (creating it and its directory, mode 0600/0700) the
// audit log file for appending.
func OpenAuditFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return f, nil
}

// OpenAuditLog opens the audit log at path for a new session.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := OpenAuditFile(path)
	if err != nil {
		return nil, err
	}
	a := NewAuditLog(f, "")
	a.f = f
	return a, nil
}

// NewAuditLog writes a session's records to w (for example a file opened
// early with OpenAuditFile, or an inherited descriptor). session "" picks a
// fresh random session id.
func NewAuditLog(w io.Writer, session string) *AuditLog {
	if session == "" {
		session = NewSessionID()
	}
	a := &AuditLog{w: bufio.NewWriterSize(w, 16<<10), session: session}
	if f, ok := w.(*os.File); ok {
		a.f = f
	}
	return a
}

// NewSessionID returns a random session id (16 hex digits).
func NewSessionID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%016x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// Session returns the session id.
func (a *AuditLog) Session() string { return a.session }

// File returns the underlying file, nil if the log writes elsewhere.
func (a *AuditLog) File() *os.File { return a.f }

// Decide appends a decide record (Time, ID and Session are filled in) and
// flushes it, so that it is on disk before the command runs. It returns the
// record's id.
func (a *AuditLog) Decide(rec *guardsh.AuditRecord) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	rec.ID = a.next
	rec.Event = guardsh.AuditDecide
	a.writeLocked(rec)
	a.flushLocked()
	return rec.ID
}

// Exit appends the exit record of command id.
func (a *AuditLog) Exit(id uint64, status int, d time.Duration) {
	if a == nil || id == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	st := status
	a.writeLocked(&guardsh.AuditRecord{
		Event: guardsh.AuditExit, ID: id, Status: &st,
		DurationMS: float64(d.Microseconds()) / 1000,
	})
	// Written through too: the shell may end with os.Exit right after.
	a.flushLocked()
}

// Flush writes buffered records out.
func (a *AuditLog) Flush() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flushLocked()
	return a.err
}

// Close flushes and closes the log's file (if it opened or was given one).
func (a *AuditLog) Close() error {
	if a == nil {
		return nil
	}
	err := a.Flush()
	if a.f != nil {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Err returns the first write error, once: the caller reports it.
func (a *AuditLog) Err() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil || a.warned {
		return nil
	}
	a.warned = true
	return a.err
}

func (a *AuditLog) writeLocked(rec *guardsh.AuditRecord) {
	rec.Session = a.session
	if a.envScrubbed != nil && rec.Event == guardsh.AuditDecide {
		rec.EnvScrubbed, a.envScrubbed = a.envScrubbed, nil
	}
	rec.Time = auditTime()
	a.scratch = append(appendRecord(a.scratch[:0], rec), '\n')
	if _, err := a.w.Write(a.scratch); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
}

// Note appends a decide record like Decide, but leaves it in the buffer:
// for commands without effects (pure builtins such as [, test, true,
// echo), whose record need not be on disk before they run. It is written
// with the next Decide or Exit record, or at most lazyFlush later, or on
// Flush and Close.
func (a *AuditLog) Note(rec *guardsh.AuditRecord) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	rec.ID = a.next
	rec.Event = guardsh.AuditDecide
	a.writeLocked(rec)
	if !a.dirty {
		a.dirty = true
		time.AfterFunc(lazyFlush, func() { a.Flush() })
	}
	return rec.ID
}

// lazyFlush bounds how long a Note record stays in the buffer.
const lazyFlush = 200 * time.Millisecond

func (a *AuditLog) flushLocked() {
	a.dirty = false
	if err := a.w.Flush(); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
}

// auditLine records the refusal of a whole script or command line by the
// line check (Policy.LineCheck: fork bombs, code fed to a shell), which no
// simple command's decision shows. The runner calls it where it refuses the
// line.
func (g *Runner) auditLine(src string, v guardsh.Verdict) {
	a := g.cfg.Audit
	if a == nil {
		return
	}
	if len(src) > 4096 {
		src = src[:4096] + "..."
	}
	a.Decide(&guardsh.AuditRecord{
		Cwd: g.r.Dir, Project: g.cfg.Project, Argv: []string{src}, Via: "line",
		Mode: g.policy.Mode, Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason,
		Effects: v.Effects, Sandbox: g.cfg.Sandbox,
	})
}
