package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// Integrity guards protected paths that the kernel cannot keep read-only
// (the container level: no mount namespace for read-only bind mounts, and
// Landlock cannot carve a read-only hole in a writable tree). The
// privileged side records them before the interpreter starts (Snapshot),
// and checks and restores them (Restore) before it runs an escalated
// command and when the session ends: a hook, a git config key or a
// .guardsh.toml planted during the session is undone before anything
// outside the sandbox (the user's git, an approved command) can read it.
//
// What it does not stop: a planted file is there while the session runs,
// for the session's own commands (which run inside the sandbox, with no
// more rights than they already have); a privileged side killed by
// SIGKILL restores nothing. Processes a command detached are stopped by
// the privileged side (a subreaper) before the final restore; a repository
// the session creates in the work tree is not a protected path.
type Integrity struct {
	paths   []string
	entries map[string]entry // by path; absent paths are recorded too
	// parents are the directories above the paths that were directories
	// (not symbolic links) when recorded: one replaced by a link is put
	// back as a directory before anything is restored below it, so that
	// a restore never writes through a link planted on the way.
	parents []string
	// appendOnly are recorded files that only grow (AppendOnly).
	appendOnly map[string]bool
}

type entry struct {
	exists bool
	mode   fs.FileMode
	size   int64
	link   string
	data   []byte // nil for a file over integrityMaxBytes (or not readable as a regular file)
}

// readBounded reads the regular file p without following a link and
// without blocking on a FIFO swapped in; a file over integrityMaxBytes is
// not read (nil, nil): it differs from any snapshot, which holds no such
// file.
func readBounded(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > integrityMaxBytes {
		return nil, nil
	}
	return io.ReadAll(io.LimitReader(f, integrityMaxBytes+1))
}

// integrity limits: what one snapshot holds at most.
const (
	integrityMaxFiles = 4096
	integrityMaxBytes = 32 << 20
)

// Snapshot records paths (files or directory trees; missing ones as
// missing).
func Snapshot(paths []string) (*Integrity, error) {
	s := &Integrity{paths: append([]string(nil), paths...), entries: map[string]entry{}}
	seen := map[string]bool{}
	for _, p := range paths {
		for d := filepath.Dir(p); d != "/" && d != "." && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				s.parents = append(s.parents, d)
			}
		}
	}
	sort.Slice(s.parents, func(i, j int) bool { return len(s.parents[i]) < len(s.parents[j]) })
	total := 0
	for _, root := range paths {
		err := walk(root, func(p string, e entry) error {
			if e.mode.IsRegular() && (e.size < 0 || e.size > integrityMaxBytes) {
				return fmt.Errorf("integrity: %s cannot be recorded (over %d MiB or unreadable)", p, integrityMaxBytes>>20)
			}
			if len(s.entries) >= integrityMaxFiles {
				return fmt.Errorf("integrity: more than %d files under %v", integrityMaxFiles, paths)
			}
			total += len(e.data)
			if total > integrityMaxBytes {
				return fmt.Errorf("integrity: more than %d MiB under %v", integrityMaxBytes>>20, paths)
			}
			s.entries[p] = e
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// walk calls fn for root and, for a directory, everything below it
// (symbolic links are recorded, not followed).
func walk(root string, fn func(string, entry) error) error {
	if _, err := os.Lstat(root); err != nil {
		return fn(root, entry{})
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fn(p, entry{})
		}
		info, err := d.Info()
		if err != nil {
			return fn(p, entry{})
		}
		e := entry{exists: true, mode: info.Mode(), size: info.Size()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.link, _ = os.Readlink(p)
		case info.Mode().IsRegular():
			if e.data, err = readBounded(p); err != nil {
				e.size = -1 // unreadable now: differs from any recorded file
			}
		}
		return fn(p, e)
	})
}

// Accept records data as the content of the recorded regular file p: a
// change the privileged side made itself (an approved git config write,
// Broker.ConfigWritten) is kept by Restore, and a change made after it is
// undone back to it. The content is the one the privileged side wrote,
// not the file as it is by then: a process of the session writing it
// meanwhile is not accepted with it. Unrecorded paths, and paths not
// recorded as regular files, are left alone.
func (s *Integrity) Accept(p string, data []byte) {
	if s == nil || data == nil {
		return
	}
	e, ok := s.entries[p]
	if !ok || !e.exists || !e.mode.IsRegular() {
		return
	}
	e.data = append([]byte{}, data...)
	e.size = int64(len(data))
	s.entries[p] = e
}

// Recorded returns the recorded content of the regular file p (ok false:
// p is not recorded as a regular file with its content), for the
// privileged side to write from it (Broker.ConfigBase).
func (s *Integrity) Recorded(p string) (data []byte, ok bool) {
	if s == nil {
		return nil, false
	}
	e, found := s.entries[p]
	if !found || !e.exists || !e.mode.IsRegular() || e.data == nil && e.size != 0 {
		return nil, false
	}
	return append([]byte{}, e.data...), true
}

// AppendOnly marks the recorded regular file p as a log that only grows
// (guardsh's audit log, which the interpreter and the privileged side
// append to during the session): records appended since the snapshot are
// not a change and are kept; a log made shorter or with its recorded part
// rewritten is a change, restored to the recorded part followed by what
// lies past it now.
func (s *Integrity) AppendOnly(p string) {
	if s == nil {
		return
	}
	if e, ok := s.entries[p]; ok && e.exists && e.mode.IsRegular() {
		if s.appendOnly == nil {
			s.appendOnly = map[string]bool{}
		}
		s.appendOnly[p] = true
	}
}

// AppendOnlyFile is AppendOnly for every recorded path that is the open
// file f (judged by identity, not by name).
func (s *Integrity) AppendOnlyFile(f *os.File) {
	if s == nil || f == nil {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		return
	}
	for p, e := range s.entries {
		if e.exists && e.mode.IsRegular() {
			if pi, err := os.Lstat(p); err == nil && os.SameFile(pi, fi) {
				s.AppendOnly(p)
			}
		}
	}
}

// grew reports whether append-only p is now what was recorded with
// nothing but records appended.
func (s *Integrity) grew(p string, was, is entry) bool {
	if !s.appendOnly[p] || !is.exists || is.mode != was.mode || is.size < was.size {
		return false
	}
	if is.data != nil {
		return bytes.HasPrefix(is.data, was.data)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(was.data))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, was.data)
}

// Changes lists what differs from the snapshot now: "path: what", sorted.
func (s *Integrity) Changes() []string {
	if s == nil {
		return nil
	}
	now := map[string]entry{}
	for _, root := range s.paths {
		walk(root, func(p string, e entry) error {
			if len(now) < 4*integrityMaxFiles {
				now[p] = e
			}
			return nil
		})
	}
	var out []string
	for _, d := range s.parents {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			out = append(out, d+": no longer a directory")
		}
	}
	for p, was := range s.entries {
		is := now[p]
		switch {
		case was.exists && !is.exists:
			out = append(out, p+": removed")
		case !was.exists && is.exists:
			out = append(out, p+": created")
		case was.exists && s.grew(p, was, is):
		case was.exists && (was.mode != is.mode || was.size != is.size || was.link != is.link || !bytes.Equal(was.data, is.data)):
			out = append(out, p+": changed")
		}
	}
	for p, is := range now {
		if _, known := s.entries[p]; !known && is.exists {
			out = append(out, p+": created")
		}
	}
	sort.Strings(out)
	return out
}

// Restore puts every recorded path back as it was (files created since
// removed, changed ones rewritten, removed ones recreated) and returns
// what it changed, as Changes says it; an error says what it could not.
func (s *Integrity) Restore() ([]string, error) {
	changes := s.Changes()
	if len(changes) == 0 {
		return nil, nil
	}
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for _, d := range s.parents {
		if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
			changes = append(changes, d+": replaced by a "+fi.Mode().Type().String())
			keep(os.Remove(d))
		}
		if _, err := os.Lstat(d); err != nil {
			keep(os.Mkdir(d, 0o755))
		}
	}
	// What was created: removed (deepest first), unless it was recorded.
	var created []string
	for _, root := range s.paths {
		walk(root, func(p string, e entry) error {
			if _, known := s.entries[p]; !known && e.exists {
				created = append(created, p)
			}
			return nil
		})
	}
	for _, p := range created {
		if s.entries[p].exists {
			continue
		}
		keep(os.RemoveAll(p))
	}
	for _, p := range s.paths {
		if e := s.entries[p]; !e.exists {
			keep(removeIfExists(p))
		}
	}
	// Directories first (shallow to deep), then files and links.
	var ps []string
	for p, e := range s.entries {
		if e.exists {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool { return len(ps[i]) < len(ps[j]) || len(ps[i]) == len(ps[j]) && ps[i] < ps[j] })
	for _, p := range ps {
		e := s.entries[p]
		fi, err := os.Lstat(p)
		switch {
		case e.mode.IsDir():
			if err == nil && !fi.IsDir() {
				keep(os.RemoveAll(p))
				err = os.ErrNotExist
			}
			if err != nil {
				keep(os.MkdirAll(p, e.mode.Perm()))
			}
			keep(os.Chmod(p, e.mode.Perm()))
		case e.mode&fs.ModeSymlink != 0:
			if l, lerr := os.Readlink(p); lerr != nil || l != e.link {
				keep(os.RemoveAll(p))
				keep(os.Symlink(e.link, p))
			}
		case e.mode.IsRegular():
			if err == nil && !fi.Mode().IsRegular() {
				keep(os.RemoveAll(p))
			}
			cur, rerr := readBounded(p)
			if s.appendOnly[p] && rerr == nil {
				var is entry
				walk(p, func(q string, x entry) error {
					if q == p {
						is = x
					}
					return nil
				})
				if s.grew(p, e, is) {
					continue
				}
				data := e.data
				if len(cur) > len(e.data) {
					data = append(append([]byte(nil), e.data...), cur[len(e.data):]...)
				}
				keep(replaceFile(p, data, e.mode.Perm()))
				continue
			}
			if rerr != nil || cur == nil && len(e.data) > 0 || !bytes.Equal(cur, e.data) || err == nil && fi.Mode() != e.mode {
				// a new file: a hard link planted in its place is not
				// written through, nor a link planted at a name guessed
				// for it (O_EXCL, a random name)
				keep(replaceFile(p, e.data, e.mode.Perm()))
			}
		}
	}
	if firstErr != nil {
		return changes, fmt.Errorf("integrity: restoring the protected paths: %w", firstErr)
	}
	return changes, nil
}

// replaceFile puts a new file with data at p: written under a fresh name
// in p's directory (created exclusively, so never through a planted link),
// then renamed over p.
func replaceFile(p string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".guardsh-restore-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Chmod(perm)
	if err := errors.Join(werr, cerr, f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func removeIfExists(p string) error {
	if _, err := os.Lstat(p); err != nil {
		return nil
	}
	return os.RemoveAll(p)
}
