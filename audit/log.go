package audit

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// Log appends Records as JSON lines. It is opened once per
// session (before the sandbox confines the process: Landlock does not affect
// open files) and is safe for concurrent use. A Decide or Exit record is
// written out (one write call) before the call returns: a decide record is
// in the file before its command runs.
//
// Its volume is bounded by design (guardsh.AuditLimits): builtins without
// effects that the policy allowed are counted per name (CountPure), not
// logged one by one; past the session's cap only refusals and asks are
// written, each distinct one once, and past twice the cap nothing but the
// counts, which say what was left out. A flood of allowed commands cannot
// push a refusal out of the log: refusals are the last thing the cap drops.
type Log struct {
	mu      sync.Mutex
	f       *os.File // nil when writing to a plain io.Writer
	w       *bufio.Writer
	session string
	next    uint64
	err     error // first write error, reported once
	warned  bool
	scratch []byte // encoding buffer
	// envScrubbed goes on the next decide record (SetEnvScrubbed).
	envScrubbed []string
	// admin goes on every record (SetAdmin).
	admin string

	lim     guardsh.AuditLimits
	written int64 // bytes of this session's records so far
	capped  bool  // written passed lim.SessionBytes (the limit record is out)
	seen    map[uint64]struct{}
	rules   map[string]struct{} // rules of the refusals written (at most auditRulesMax)
	counts  map[string]uint64
	dropped Dropped
	// countsNew: counts or dropped changed since the last counts record;
	// countsDue: a timer will write it.
	countsNew, countsDue bool
	// what the counts record repeats of the counted commands
	last struct {
		project, sandbox string
		mode             guardsh.Mode
	}
}

// SetLimits sets the session's cap (the zero fields: defaults).
func (a *Log) SetLimits(l guardsh.AuditLimits) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.lim = l.WithDefaults()
	a.mu.Unlock()
}

// SetEnvScrubbed records the names of the variables the session removed
// from its environment (nil: scrubbing was off): they go into the
// env_scrubbed field of the next decide record, the session's first.
func (a *Log) SetEnvScrubbed(names []string) {
	if a == nil || names == nil {
		return
	}
	a.mu.Lock()
	a.envScrubbed = names
	a.mu.Unlock()
}

// SetAdmin states the session's admin context (guardsh.AdminGrant.Describe)
// on every record from now on.
func (a *Log) SetAdmin(desc string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.admin = desc
	a.mu.Unlock()
}

// OpenFile opens (creating it and its directory, mode 0600/0700) the
// audit log file for appending. A file larger than lim.FileBytes is
// rotated first (rotate); the zero limits are the defaults.
func OpenFile(path string, lim guardsh.AuditLimits) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if err := rotate(path, lim.WithDefaults()); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	// O_NONBLOCK: a FIFO put where the log goes would block the open (and
	// the session) until something reads it; it is refused instead, as
	// is anything else but a regular file.
	// O_NOFOLLOW, and one link only: a log path made a link to another
	// file (where its directory is writable from a session) would have
	// the privileged side append records, argv and all, to that file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("audit log: %s is not a regular file (a FIFO nobody reads)", path)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("audit log: %s is a symbolic link; remove it (guardsh writes its log only to a file of its own)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); err == nil && ok && st.Nlink > 1 {
		err = fmt.Errorf("%s has %d hard links; remove it (guardsh writes its log only to a file of its own)", path, st.Nlink)
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

// Open opens the audit log at path for a new session with limits
// lim (zero: the defaults).
func Open(path string, lim guardsh.AuditLimits) (*Log, error) {
	f, err := OpenFile(path, lim)
	if err != nil {
		return nil, err
	}
	a := New(f, "")
	a.SetLimits(lim)
	a.f = f
	return a, nil
}

// rotate renames path to path.1 (path.1 to path.2 ..., dropping what
// is past lim.Keep) when it is larger than lim.FileBytes. Sessions that
// open the log at once rotate it once: the one that holds the file's lock
// and still finds the large file at path renames; the others find the
// new, small one. A session that still writes to the renamed file goes on
// writing there: its records are never lost, only in the older file.
func rotate(path string, lim guardsh.AuditLimits) error {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= lim.FileBytes {
		return nil // missing or not a file: the open says what is wrong
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	held, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) || now.Size() <= lim.FileBytes {
		return nil // rotated by another session meanwhile
	}
	os.Remove(fmt.Sprintf("%s.%d", path, lim.Keep))
	for i := lim.Keep - 1; i >= 1; i-- {
		if err := os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(path, path+".1")
}

// New writes a session's records to w (for example a file opened
// early with OpenFile, or an inherited descriptor). session "" picks a
// fresh random session id.
func New(w io.Writer, session string) *Log {
	if session == "" {
		session = NewSessionID()
	}
	a := &Log{session: session, lim: guardsh.AuditLimits{}.WithDefaults()}
	a.w = bufio.NewWriterSize(w, 16<<10)
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
func (a *Log) Session() string { return a.session }

// File returns the underlying file, nil if the log writes elsewhere.
func (a *Log) File() *os.File { return a.f }

// Decide appends a decide record (Time, ID and Session are filled in) and
// flushes it, so that it is on disk before the command runs. It returns the
// record's id.
func (a *Log) Decide(rec *Record) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	rec.ID = a.next
	rec.Event = EventDecide
	a.writeLocked(rec)
	a.flushLocked()
	return rec.ID
}

// Connect appends a connect record (a connection through the session's
// proxy) and flushes it.
func (a *Log) Connect(rec *Record) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	rec.Event = EventConnect
	a.writeLocked(rec)
	a.flushLocked()
}

// Exit appends the exit record of command id.
func (a *Log) Exit(id uint64, status int, d time.Duration) {
	if a == nil || id == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	st := status
	a.writeLocked(&Record{
		Event: EventExit, ID: id, Status: &st,
		DurationMS: float64(d.Microseconds()) / 1000,
	})
	// Written through too: the shell may end with os.Exit right after.
	a.flushLocked()
}

// Flush writes what the session counted since its last counts record (if
// anything) and every buffered record out. The shell calls it when the
// session ends.
func (a *Log) Flush() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.countsLocked()
	a.flushLocked()
	return a.err
}

// Close flushes and closes the log's file (if it opened or was given one).
func (a *Log) Close() error {
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
func (a *Log) Err() error {
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

func (a *Log) writeLocked(rec *Record) {
	if !a.admitLocked(rec) {
		return
	}
	a.putLocked(rec)
	if !a.capped && a.written > a.lim.SessionBytes {
		a.capped = true
		a.putLocked(&Record{Event: EventLimit,
			Reason: fmt.Sprintf("this session wrote %d MiB of records: from here on only refusals and asks are written, each distinct one once; the rest is counted in the counts records", a.lim.SessionBytes>>20)})
	}
}

// putLocked encodes rec and hands it to the buffer.
func (a *Log) putLocked(rec *Record) {
	rec.Session = a.session
	if a.admin != "" {
		rec.Admin = a.admin
	}
	if a.envScrubbed != nil && (rec.Event == EventDecide || rec.Event == EventCounts) {
		rec.EnvScrubbed, a.envScrubbed = a.envScrubbed, nil
	}
	rec.Time = auditTime()
	rec.Argv = boundArgv(rec.Argv)
	if len(rec.Reason) > auditWordMax {
		rec.Reason = rec.Reason[:auditWordMax] + "..."
	}
	a.scratch = append(appendRecord(a.scratch[:0], rec), '\n')
	a.written += int64(len(a.scratch))
	a.roomLocked(len(a.scratch))
	if _, err := a.w.Write(a.scratch); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
}

// auditSeenMax bounds the distinct refusals and asks a capped session
// remembers; past it they are counted, not written. auditRulesMax bounds
// the rules whose first refusal is written even past twice the cap.
const (
	auditSeenMax  = 1 << 16
	auditRulesMax = 256
)

// A record's argv is bounded: each word to auditWordMax bytes, all of
// them to auditArgvMax (what is cut is said in the word), so that one
// record cannot take a session far past its cap.
const (
	auditWordMax = 4 << 10
	auditArgvMax = 64 << 10
)

// boundArgv returns argv shortened to the bounds (a copy when it cuts).
func boundArgv(argv []string) []string {
	total, cut := 0, false
	for _, w := range argv {
		total += len(w)
		if len(w) > auditWordMax {
			cut = true
		}
	}
	if !cut && total <= auditArgvMax {
		return argv
	}
	out := make([]string, 0, len(argv))
	total = 0
	for i, w := range argv {
		if total > auditArgvMax {
			out = append(out, fmt.Sprintf("...(%d more words)", len(argv)-i))
			break
		}
		if len(w) > auditWordMax {
			w = fmt.Sprintf("%s...(%d bytes)", w[:auditWordMax], len(w))
		}
		total += len(w)
		out = append(out, w)
	}
	return out
}

// admitLocked decides whether rec is written under the session's cap, and
// counts it when it is not.
func (a *Log) admitLocked(rec *Record) (written bool) {
	refusal := rec.Event == EventDecide && (rec.Decision == guardsh.Deny.String() || rec.Decision == guardsh.Ask.String())
	if refusal {
		defer func() {
			// the rules a written refusal showed (see below)
			if _, ok := a.rules[rec.Rule]; !ok && len(a.rules) < auditRulesMax && written {
				if a.rules == nil {
					a.rules = map[string]struct{}{}
				}
				a.rules[rec.Rule] = struct{}{}
			}
		}()
	}
	if !a.capped {
		if refusal && len(a.seen) < auditSeenMax {
			// remembered from the start: after the cap, a repeat of one
			// written before is a repeat too
			if a.seen == nil {
				a.seen = map[uint64]struct{}{}
			}
			a.seen[refusalKey(rec)] = struct{}{}
		}
		return true
	}
	drop := func(n *uint64) bool {
		*n++
		a.countsChangedLocked()
		return false
	}
	if rec.Event == EventExit {
		return drop(&a.dropped.Exit)
	}
	var n *uint64
	switch rec.Decision {
	case guardsh.Deny.String():
		n = &a.dropped.Deny
	case guardsh.Ask.String():
		n = &a.dropped.Ask
	default:
		return drop(&a.dropped.Allow)
	}
	if a.written > 2*a.lim.SessionBytes {
		// the first refusal of a rule not yet in the log is written all
		// the same: a flood of distinct refusals cannot hide another kind
		if _, ok := a.rules[rec.Rule]; ok || len(a.rules) >= auditRulesMax {
			return drop(n)
		}
		return true
	}
	k := refusalKey(rec)
	if _, ok := a.seen[k]; ok {
		return drop(&a.dropped.Repeats)
	}
	if len(a.seen) >= auditSeenMax {
		return drop(n)
	}
	if a.seen == nil {
		a.seen = map[uint64]struct{}{}
	}
	a.seen[k] = struct{}{}
	return true
}

// refusalKey identifies a refusal or ask by its rule and argv.
func refusalKey(rec *Record) uint64 {
	h := fnv.New64a()
	h.Write([]byte(rec.Rule))
	for _, s := range rec.Argv {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return h.Sum64()
}

// CountPure counts one builtin without effects that the policy allowed
// (echo, [, true, printf without -v ...): such commands are counted per
// name and the totals written in counts records, not one line each.
func (a *Log) CountPure(name, project string, mode guardsh.Mode, sandbox string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	if a.counts == nil {
		a.counts = map[string]uint64{}
	}
	if len(name) > 64 {
		name = name[:64]
	}
	if _, ok := a.counts[name]; !ok && len(a.counts) >= 1024 {
		name = "(other)"
	}
	a.counts[name]++
	a.last.project, a.last.mode, a.last.sandbox = project, mode, sandbox
	a.countsChangedLocked()
	a.mu.Unlock()
}

// countsChangedLocked notes new counts and makes sure a timer writes them.
func (a *Log) countsChangedLocked() {
	a.countsNew = true
	if !a.countsDue {
		a.countsDue = true
		time.AfterFunc(CountsEvery, func() {
			a.mu.Lock()
			a.countsDue = false
			a.countsLocked()
			a.flushLocked()
			a.mu.Unlock()
		})
	}
}

// countsLocked writes a counts record if anything was counted since the
// last one. Counts records are always written: they are what says what
// the cap left out.
func (a *Log) countsLocked() {
	if !a.countsNew {
		return
	}
	a.countsNew = false
	rec := &Record{Event: EventCounts, Project: a.last.project, Mode: a.last.mode, Sandbox: a.last.sandbox}
	if len(a.counts) > 0 {
		rec.Counts = maps.Clone(a.counts)
	}
	if a.dropped != (Dropped{}) {
		d := a.dropped
		rec.Dropped = &d
	}
	a.putLocked(rec)
}

// roomLocked hands the buffered records on when a record of n bytes would
// not fit after them: every write of the log holds whole records, so that
// the records of sessions appending to the same file at once never
// interleave inside a line (O_APPEND makes each write land whole). A
// record larger than the buffer is written by itself.
func (a *Log) roomLocked(n int) {
	if a.w.Buffered() > 0 && a.w.Available() < n {
		if err := a.w.Flush(); err != nil && a.err == nil {
			a.err = fmt.Errorf("audit log: %w", err)
		}
	}
}

func (a *Log) flushLocked() {
	if err := a.w.Flush(); err != nil && a.err == nil {
		a.err = fmt.Errorf("audit log: %w", err)
	}
}
