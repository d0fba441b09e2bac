package interp

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
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
	async   *auditAsync // under w: full buffers of Note records written in the background
	session string
	next    uint64
	err     error // first write error, reported once
	warned  bool
	dirty   bool   // Note records wait in the buffer; a flush is scheduled
	scratch []byte // encoding buffer
	// envScrubbed goes on the next decide record (SetEnvScrubbed).
	envScrubbed []string
	pure        pureEnc // notePure's cache
	// admin goes on every record (SetAdmin).
	admin string
}

// SetAdmin states the session's admin context (guardsh.AdminGrant.Describe)
// on every record from now on.
func (a *AuditLog) SetAdmin(desc string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.admin = desc
	a.mu.Unlock()
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
	// O_NONBLOCK: a FIFO put where the log goes would block the open (and
	// the session) until something reads it; it is refused instead, as
	// is anything else but a regular file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("audit log: %s is not a regular file (a FIFO nobody reads)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if err == nil {
		// Writes to a regular file block as usual whatever the flag says;
		// cleared all the same, so the descriptor handed on is ordinary.
		err = clearNonblock(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return f, nil
}

// clearNonblock clears O_NONBLOCK on f.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
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
	// 64 KiB: a loop of builtins writes its buffered records in a quarter
	// of the write calls 16 KiB takes (about 10 ms less per 100,000).
	a := &AuditLog{session: session}
	a.async = newAuditAsync(w)
	a.w = bufio.NewWriterSize(a.async, 64<<10)
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
	if a.admin != "" {
		rec.Admin = a.admin
	}
	if a.envScrubbed != nil && rec.Event == guardsh.AuditDecide {
		rec.EnvScrubbed, a.envScrubbed = a.envScrubbed, nil
	}
	rec.Time = auditTime()
	a.scratch = append(appendRecord(a.scratch[:0], rec), '\n')
	a.roomLocked(len(a.scratch))
	if _, err := a.w.Write(a.scratch); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
}

// roomLocked hands the buffered records on when a record of n bytes would
// not fit after them: every write of the log holds whole records, so that
// the records of sessions appending to the same file at once never
// interleave inside a line (O_APPEND makes each write land whole). A
// record larger than the buffer is written by itself.
func (a *AuditLog) roomLocked(n int) {
	if a.w.Buffered() > 0 && a.w.Available() < n {
		if err := a.w.Flush(); err != nil && a.err == nil {
			a.err = fmt.Errorf("audit log: %w", err)
		}
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
	return a.noteLocked(rec)
}

func (a *AuditLog) noteLocked(rec *guardsh.AuditRecord) uint64 {
	a.next++
	rec.ID = a.next
	rec.Event = guardsh.AuditDecide
	a.writeLocked(rec)
	a.lazyLocked()
	return rec.ID
}

// lazyLocked schedules the flush of records left in the buffer.
func (a *AuditLog) lazyLocked() {
	if !a.dirty {
		a.dirty = true
		time.AfterFunc(lazyFlush, func() { a.Flush() })
	}
}

// lazyFlush bounds how long a Note record stays in the buffer.
const lazyFlush = 200 * time.Millisecond

func (a *AuditLog) flushLocked() {
	a.dirty = false
	// In sync mode: what the background writer holds first, then the rest.
	err := a.async.setSync(true)
	if ferr := a.w.Flush(); err == nil {
		err = ferr
	}
	a.async.setSync(false)
	if err != nil && a.err == nil {
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

// pureEnc holds what the decide records of pure builtins repeat from one
// to the next, encoded once (notePure): a loop of [ writes one record per
// iteration.
type pureEnc struct {
	cwd, project string
	head         []byte // ,"session":...,"cwd":...,"project":...
	mode         guardsh.Mode
	rule, reason string
	sandbox      string
	tail         []byte // ,"via":"shell","mode":...,"sandbox":...}
	sec          int64  // the second secText shows
	secText      []byte // 2006-01-02T15:04:05 of sec, UTC
}

// notePure is Note for the decide record of a command the policy allowed
// as a pure builtin (Runner.decidePure): the record holds Cwd, Project,
// Argv, Via "shell", Mode, Decision "allow", Rule, Reason and Sandbox, and
// its bytes are those Note would write (TestNotePureSameBytes); the parts
// that repeat are encoded once.
func (a *AuditLog) notePure(cwd, project string, argv []string, mode guardsh.Mode, rule, reason, sandbox string) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.envScrubbed != nil || a.admin != "" {
		// the session's first record, or an admin context's, carries
		// more: the general path
		return a.noteLocked(&guardsh.AuditRecord{Cwd: cwd, Project: project, Argv: argv, Via: "shell", Mode: mode,
			Decision: guardsh.Allow.String(), Rule: rule, Reason: reason, Sandbox: sandbox})
	}
	a.next++
	e := &a.pure
	if e.head == nil || e.cwd != cwd || e.project != project {
		e.cwd, e.project = cwd, project
		e.head = append(e.head[:0], `,"session":`...)
		e.head = appendJSONString(e.head, a.session)
		e.head = appendOptString(e.head, "cwd", cwd)
		e.head = appendOptString(e.head, "project", project)
	}
	if e.tail == nil || e.mode != mode || e.rule != rule || e.reason != reason || e.sandbox != sandbox {
		e.mode, e.rule, e.reason, e.sandbox = mode, rule, reason, sandbox
		e.tail = append(e.tail[:0], `,"via":"shell"`...)
		e.tail = appendOptString(e.tail, "mode", string(mode))
		e.tail = appendOptString(e.tail, "decision", guardsh.Allow.String())
		e.tail = appendOptString(e.tail, "rule", rule)
		e.tail = appendOptString(e.tail, "reason", reason)
		e.tail = appendOptString(e.tail, "sandbox", sandbox)
		e.tail = append(e.tail, '}', '\n')
	}
	// Encoded straight into the buffer's free space when there is room.
	inPlace := a.w.Available() >= 1024
	b := a.scratch[:0]
	if inPlace {
		b = a.w.AvailableBuffer()
	}
	b = append(b, `{"time":"`...)
	b = e.appendTime(b, time.Now())
	b = append(b, `","event":"decide","id":`...)
	b = strconv.AppendUint(b, a.next, 10)
	b = append(b, e.head...)
	if len(argv) > 0 {
		b = append(b, `,"argv":`...)
		b = appendJSONStrings(b, argv)
	}
	b = append(b, e.tail...)
	if !inPlace {
		a.scratch = b
	}
	// Built in place, b fits the free space; built elsewhere (or grown out
	// of it), the buffered records go first.
	a.roomLocked(len(b))
	if _, err := a.w.Write(b); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
	a.lazyLocked()
	return a.next
}

// appendTime appends t as auditTime formats it (RFC 3339 with
// nanoseconds, trailing zeros dropped, UTC), the date and time of day
// formatted once per second.
func (e *pureEnc) appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	if s := t.Unix(); s != e.sec || e.secText == nil {
		e.sec = s
		e.secText = t.AppendFormat(e.secText[:0], "2006-01-02T15:04:05")
	}
	b = append(b, e.secText...)
	if ns := t.Nanosecond(); ns != 0 {
		var d [10]byte
		d[0] = '.'
		for i := 9; i >= 1; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, 'Z')
}
