package jail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/guardsh/guardsh/guardsh"
	"golang.org/x/sys/unix"
)

// Limits of the agent's file tools; a zero field in Session means the
// default.
const (
	DefaultMaxFileBytes = 8 << 20   // larger files are refused by Read and Edit
	DefaultMaxReadBytes = 256 << 10 // text one Read returns at most
	DefaultReadLines    = 2000      // lines one Read returns without a limit
	MaxLineChars        = 2000      // longer lines are cut in Read's output
	MaxListEntries      = 1000      // entries one List returns at most
	binarySniff         = 8000      // bytes looked at to tell binary from text
)

// Session is the agent's file tools for one agent session: List, Read,
// Write, Edit and Delete, all through the jail. Every path is resolved by
// the jail, every access is put to Decide (the policy and gate), and every
// file is opened with the jail's checks. Errors are values (*Error, see
// Error.Error) whose text is meant to be given to the model as the tool
// result.
//
// A Session remembers which files it read, so Delete only removes files the
// model has seen. It is safe for concurrent use.
type Session struct {
	Jail *Jail
	// Dir is the working directory relative paths start from; "" means
	// the project root. Point it at the shell's current directory to make
	// the tools agree with the shell.
	Dir string
	// Home is the user's home directory, passed on to the policy.
	Home string
	// Decide is asked about every access (Via "agent") and returns nil to
	// allow it or an error to refuse, whose text reaches the model (a
	// *Error, or any error). nil: only accesses inside the project are
	// allowed. To decide with the shell session's policy and gate:
	//
	//	s.Decide = func(ctx context.Context, a guardsh.Access) error {
	//		return jail.VerdictError(a, runner.DecideAccess(ctx, a, ""))
	//	}
	Decide func(ctx context.Context, a guardsh.Access) error
	// Snapshot is called before a file is changed or deleted, with its
	// canonical path and its content as the tool found it (existed false:
	// the file is about to be created). An error aborts the change.
	Snapshot func(path string, old []byte, existed bool) error

	MaxFileBytes int64 // 0: DefaultMaxFileBytes
	MaxReadBytes int   // 0: DefaultMaxReadBytes

	mu   sync.Mutex
	read map[string]fileID // canonical path -> the file as last read
}

// VerdictError turns the policy's final verdict on an access into what
// Session.Decide returns: nil for Allow, else a refusal (*Error) carrying
// the verdict's rule, reason and hint.
func VerdictError(a guardsh.Access, v guardsh.Verdict) error {
	if v.Decision == guardsh.Allow {
		return nil
	}
	op := "read"
	if a.Write {
		op = "write"
	}
	rule := v.Rule
	if rule == "" {
		rule = "policy"
	}
	return &Error{Op: op, Path: a.Path, Rule: rule, Reason: v.Reason, Hint: v.Hint, Ask: v.Decision == guardsh.Ask}
}

// fileID identifies a file's content as read: which inode, and its size and
// modification time then.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    unix.Timespec
}

func idOf(st *unix.Stat_t) fileID {
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: st.Mtim}
}

// Entry is one directory entry as List reports it.
type Entry struct {
	Name string `json:"name"`
	// Type is "file", "dir", "symlink" or "other".
	Type string `json:"type"`
	Size int64  `json:"size,omitempty"`
	// Target is where a symlink points (as written in it).
	Target string `json:"target,omitempty"`
}

// ListResult is a directory listing.
type ListResult struct {
	Path      string  `json:"path"` // canonical
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated,omitempty"` // more than MaxListEntries
}

// ReadResult is a range of a text file's lines.
type ReadResult struct {
	Path       string `json:"path"` // canonical
	Text       string `json:"text"` // the lines FirstLine..LastLine, newline-terminated as in the file
	FirstLine  int    `json:"first_line"`
	LastLine   int    `json:"last_line"` // 0 for an empty file or range
	TotalLines int    `json:"total_lines"`
	// Truncated says the range was cut short by the byte cap or that long
	// lines were shortened; read on from LastLine+1.
	Truncated bool `json:"truncated,omitempty"`
}

// WriteResult says what Write or Edit did.
type WriteResult struct {
	Path    string `json:"path"` // canonical
	Created bool   `json:"created,omitempty"`
	Diff    string `json:"diff"` // unified diff of the change
	// MadeDirs are the directories Write created above the file,
	// outermost first (for undo).
	MadeDirs []string `json:"made_dirs,omitempty"`
}

// Edit replaces Old by New. Old must occur exactly once, or, with All, at
// least once (every occurrence is replaced).
type Edit struct {
	Old string `json:"old"`
	New string `json:"new"`
	All bool   `json:"all,omitempty"`
}

func (s *Session) maxFile() int64 {
	if s.MaxFileBytes > 0 {
		return s.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

func (s *Session) maxRead() int {
	if s.MaxReadBytes > 0 {
		return s.MaxReadBytes
	}
	return DefaultMaxReadBytes
}

// resolve checks path and asks Decide.
func (s *Session) resolve(ctx context.Context, op, path string, write bool) (Resolved, error) {
	dir := s.Dir
	if dir == "" {
		dir = s.Jail.Root()
	}
	res, err := s.Jail.Resolve(dir, path)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Op = op
		}
		return res, err
	}
	return res, s.decideRes(ctx, op, res, write)
}

// decideRes puts a resolved access to Decide (or, without one, allows only
// the inside of the project).
func (s *Session) decideRes(ctx context.Context, op string, res Resolved, write bool) error {
	dir := s.Dir
	if dir == "" {
		dir = s.Jail.Root()
	}
	path := res.Path
	a := guardsh.Access{Path: path, Resolved: res.Real, Inside: res.Inside, Link: res.Link,
		Write: write, Dir: dir, Project: s.Jail.Root(), Home: s.Home, Via: "agent"}
	if s.Decide != nil {
		return s.Decide(ctx, a)
	}
	if !res.Inside {
		why := "it is outside the project (" + s.Jail.Root() + ")"
		if res.Link != "" {
			why = "the symbolic link " + res.Link + " leads outside the project (" + s.Jail.Root() + ")"
		}
		return &Error{Op: op, Path: path, Rule: RuleOutside,
			Reason: path + " resolves to " + res.Real + ", and " + why,
			Hint:   "the file tools work inside the project only; use paths inside " + s.Jail.Root()}
	}
	return nil
}

// resolveName resolves the directory part of path and keeps its last
// component as it is (not followed): what rm acts on. It asks Decide.
func (s *Session) resolveName(ctx context.Context, op, path string) (Resolved, error) {
	if err := CheckSyntax(path); err != nil {
		return Resolved{}, setOp(err, op)
	}
	dirPart, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return Resolved{}, &Error{Op: op, Path: path, Rule: RuleNotFile,
			Reason: "names a directory, not a file", Hint: "name the file itself"}
	}
	if dirPart == "" {
		dirPart = "."
	}
	dir := s.Dir
	if dir == "" {
		dir = s.Jail.Root()
	}
	pres, err := s.Jail.Resolve(dir, dirPart)
	if err != nil {
		return pres, setOp(err, op)
	}
	real := filepath.Join(pres.Real, base)
	res := Resolved{Path: path, Abs: filepath.Join(pres.Abs, base), Real: real, Inside: s.Jail.Contains(real)}
	if !res.Inside {
		res.Link = pres.Link
	}
	var st unix.Stat_t
	res.Exists = unix.Lstat(real, &st) == nil
	// the access that matters is the write to the name itself
	if derr := s.decideRes(ctx, op, res, true); derr != nil {
		return res, derr
	}
	return res, nil
}

// List lists a directory: names, types and sizes, sorted by name. Symlinks
// are listed as such and not followed.
func (s *Session) List(ctx context.Context, path string) (*ListResult, error) {
	res, err := s.resolve(ctx, "list", path, false)
	if err != nil {
		return nil, err
	}
	d, err := s.Jail.OpenDir(res)
	if err != nil {
		return nil, setOp(err, "list")
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, &Error{Op: "list", Path: path, Err: err, Hint: "list a directory; use read for files"}
	}
	sort.Strings(names)
	out := &ListResult{Path: res.Real}
	if len(names) > MaxListEntries {
		names, out.Truncated = names[:MaxListEntries], true
	}
	for _, n := range names {
		e := Entry{Name: n, Type: "other"}
		var st unix.Stat_t
		if unix.Fstatat(int(d.Fd()), n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			switch uint32(st.Mode) & unix.S_IFMT {
			case unix.S_IFREG:
				e.Type, e.Size = "file", st.Size
			case unix.S_IFDIR:
				e.Type = "dir"
			case unix.S_IFLNK:
				e.Type = "symlink"
				buf := make([]byte, 4096)
				if k, err := unix.Readlinkat(int(d.Fd()), n, buf); err == nil {
					e.Target = string(buf[:k])
				}
			}
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// readChecked opens res as a regular file and reads it whole (up to
// MaxFileBytes), returning its content and identity.
func (s *Session) readChecked(op string, res Resolved, write bool) ([]byte, unix.Stat_t, error) {
	// Opened for reading only; a file about to be replaced (write) must
	// still pass the single-link check below.
	var st unix.Stat_t
	f, err := s.Jail.Open(res, os.O_RDONLY, 0, Options{RegularOnly: true})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, st, &Error{Op: op, Path: res.Path, Err: err, Reason: "no such file",
				Hint: "list the directory to see what exists, or create the file with the write tool"}
		}
		return nil, st, setOp(err, op)
	}
	defer f.Close()
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, st, &Error{Op: op, Path: res.Path, Err: err}
	}
	if write && st.Nlink > 1 {
		return nil, st, &Error{Op: op, Path: res.Path, Rule: RuleHardlink,
			Reason: "the file has several hard links, so changing it would also change the other names, which may lie outside the project",
			Hint:   "remove the other links first, or write under a new name"}
	}
	if st.Size > s.maxFile() {
		return nil, st, &Error{Op: op, Path: res.Path, Rule: RuleTooBig,
			Reason: fmt.Sprintf("the file is %d bytes, more than the file tools handle (%d)", st.Size, s.maxFile()),
			Hint:   "use the shell for large files (head, sed -n 'A,Bp', grep -n)"}
	}
	data, err := io.ReadAll(io.LimitReader(f, s.maxFile()+1))
	if err != nil {
		return nil, st, &Error{Op: op, Path: res.Path, Err: err}
	}
	if int64(len(data)) > s.maxFile() {
		return nil, st, &Error{Op: op, Path: res.Path, Rule: RuleTooBig,
			Reason: "the file grew past the size the file tools handle while it was read",
			Hint:   "use the shell for large files"}
	}
	return data, st, nil
}

// isBinary reports whether data looks like something other than text: a
// NUL byte or invalid UTF-8 in its first bytes.
func isBinary(data []byte) bool {
	head := data
	if len(head) > binarySniff {
		head = head[:binarySniff]
		// do not count a rune cut at the edge
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1]
		}
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

// Read returns lines of a text file: from line offset (1-based; 0 means 1)
// at most limit lines (0 means DefaultReadLines), cut short at MaxReadBytes
// of text; lines longer than MaxLineChars are shortened. Binary files,
// non-regular files and files larger than MaxFileBytes are refused. A
// successful Read records the file as read (see Delete).
func (s *Session) Read(ctx context.Context, path string, offset, limit int) (*ReadResult, error) {
	res, err := s.resolve(ctx, "read", path, false)
	if err != nil {
		return nil, err
	}
	data, st, err := s.readChecked("read", res, false)
	if err != nil {
		return nil, err
	}
	if isBinary(data) {
		return nil, &Error{Op: "read", Path: path, Rule: RuleBinary,
			Reason: fmt.Sprintf("a binary file (%d bytes), not text", len(data)),
			Hint:   "use the shell to inspect it (file, xxd | head, strings)"}
	}
	s.remember(res.Real, &st)
	lines := splitLines(string(data))
	if offset <= 0 {
		offset = 1
	}
	if limit <= 0 {
		limit = DefaultReadLines
	}
	out := &ReadResult{Path: res.Real, TotalLines: len(lines), FirstLine: offset}
	if offset > len(lines) {
		if offset > 1 || len(lines) > 0 {
			return nil, &Error{Op: "read", Path: path,
				Reason: fmt.Sprintf("line %d is past the end: the file has %d lines", offset, len(lines)),
				Hint:   "read from a line number between 1 and the total"}
		}
		return out, nil
	}
	var b strings.Builder
	budget := s.maxRead()
	i := offset - 1
	for ; i < len(lines) && i < offset-1+limit; i++ {
		l := lines[i]
		if len(l) > MaxLineChars {
			cut := MaxLineChars
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "… [line cut: " + fmt.Sprint(len(lines[i])) + " bytes]\n"
			out.Truncated = true
		}
		if b.Len()+len(l) > budget && i > offset-1 {
			out.Truncated = true
			break
		}
		b.WriteString(l)
	}
	out.Text = b.String()
	out.LastLine = i
	return out, nil
}

func (s *Session) remember(real string, st *unix.Stat_t) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.read == nil {
		s.read = map[string]fileID{}
	}
	s.read[real] = idOf(st)
}

// Write replaces (or creates) a file with content, atomically: a crash at
// any moment leaves the old content or the new. Missing directories above
// it are created (WriteResult.MadeDirs). The result carries the unified
// diff.
func (s *Session) Write(ctx context.Context, path string, content string) (*WriteResult, error) {
	res, err := s.resolve(ctx, "write", path, true)
	if err != nil {
		return nil, err
	}
	var made []string
	if !res.Exists {
		if made, err = s.Jail.MkdirParents(res); err != nil {
			return &WriteResult{Path: res.Real, MadeDirs: made}, err
		}
	}
	t, err := s.Jail.openTarget("write", res)
	if err != nil {
		return nil, err
	}
	defer t.close()
	var old []byte
	if t.exists {
		if old, _, err = s.readChecked("write", res, true); err != nil {
			return nil, err
		}
	}
	r, err := s.commit(res, t, old, []byte(content))
	if r != nil {
		r.MadeDirs = made
	}
	return r, err
}

// commit snapshots, replaces and reports.
func (s *Session) commit(res Resolved, t *target, old, data []byte) (*WriteResult, error) {
	if s.Snapshot != nil {
		if err := s.Snapshot(res.Real, old, t.exists); err != nil {
			return nil, &Error{Op: "write", Path: res.Path, Err: err,
				Reason: "could not snapshot the file first: " + err.Error(),
				Hint:   "nothing was changed; fix the snapshot problem and try again"}
		}
	}
	if err := t.replace(res, data, 0o644); err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if unix.Fstatat(int(t.dir.Fd()), t.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		s.remember(res.Real, &st) // the model knows what it just wrote
	}
	oldLabel := "a/" + res.Path
	if !t.exists {
		oldLabel = "/dev/null"
	}
	return &WriteResult{Path: res.Real, Created: !t.exists,
		Diff: UnifiedDiff(oldLabel, "b/"+res.Path, string(old), string(data))}, nil
}

// Edit applies edits to a text file, in order, each to the result of the
// ones before: all of them or none. Each Old must occur exactly once (or,
// with All, at least once). The file is replaced atomically and the result
// carries the unified diff.
func (s *Session) Edit(ctx context.Context, path string, edits []Edit) (*WriteResult, error) {
	if len(edits) == 0 {
		return nil, &Error{Op: "edit", Path: path, Reason: "no edits given",
			Hint: "give at least one edit with the exact old text and the new text"}
	}
	res, err := s.resolve(ctx, "edit", path, true)
	if err != nil {
		return nil, err
	}
	t, err := s.Jail.openTarget("edit", res)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if !t.exists {
		return nil, &Error{Op: "edit", Path: path, Reason: "no such file",
			Hint: "create it with the write tool"}
	}
	old, _, err := s.readChecked("edit", res, true)
	if err != nil {
		return nil, err
	}
	if isBinary(old) {
		return nil, &Error{Op: "edit", Path: path, Rule: RuleBinary,
			Reason: "a binary file, not text", Hint: "the edit tool changes text files only"}
	}
	text := string(old)
	for i, e := range edits {
		which := fmt.Sprintf("edit %d of %d", i+1, len(edits))
		switch n := strings.Count(text, e.Old); {
		case e.Old == "":
			return nil, &Error{Op: "edit", Path: path, Rule: RuleEdit,
				Reason: which + ": the old text is empty",
				Hint:   "give the exact text to replace; to create or overwrite a whole file use the write tool. Nothing was changed"}
		case e.Old == e.New:
			return nil, &Error{Op: "edit", Path: path, Rule: RuleEdit,
				Reason: which + ": the old and new text are the same",
				Hint:   "nothing was changed"}
		case n == 0:
			return nil, &Error{Op: "edit", Path: path, Rule: RuleEdit,
				Reason: which + ": the old text was not found" + notFoundDetail(i),
				Hint:   "read the file again and copy the text exactly, including whitespace and indentation. Nothing was changed"}
		case n > 1 && !e.All:
			return nil, &Error{Op: "edit", Path: path, Rule: RuleEdit,
				Reason: fmt.Sprintf("%s: the old text occurs %d times", which, n),
				Hint:   "include more surrounding lines to make it unique, or set all to replace every occurrence. Nothing was changed"}
		case e.All:
			text = strings.ReplaceAll(text, e.Old, e.New)
		default:
			text = strings.Replace(text, e.Old, e.New, 1)
		}
	}
	return s.commit(res, t, old, []byte(text))
}

func notFoundDetail(i int) string {
	if i > 0 {
		return " (after the edits before it were applied)"
	}
	return ""
}

// Delete removes a regular file that this session has read and that has
// not changed since. Directories, symlinks and other files are refused. The
// file is snapshotted first.
func (s *Session) Delete(ctx context.Context, path string) error {
	res, err := s.resolveName(ctx, "delete", path)
	if err != nil {
		return err
	}
	var lst unix.Stat_t
	if unix.Lstat(res.Real, &lst) == nil && uint32(lst.Mode)&unix.S_IFMT == unix.S_IFLNK {
		return &Error{Op: "delete", Path: path, Rule: RuleNotFile,
			Reason: "a symbolic link, not a regular file",
			Hint:   "the delete tool removes regular files only; remove a link with the shell (rm LINK)"}
	}
	t, err := s.Jail.openTarget("delete", res)
	if err != nil {
		return err
	}
	defer t.close()
	if !t.exists {
		return &Error{Op: "delete", Path: path, Err: fs.ErrNotExist, Reason: "no such file"}
	}
	s.mu.Lock()
	id, ok := s.read[res.Real]
	s.mu.Unlock()
	if !ok {
		return &Error{Op: "delete", Path: path, Rule: RuleNotRead,
			Reason: "the file has not been read in this session",
			Hint:   "read it first, so you know what you delete"}
	}
	if id != idOf(&t.st) {
		return &Error{Op: "delete", Path: path, Rule: RuleNotRead,
			Reason: "the file changed since you read it",
			Hint:   "read it again, then delete it"}
	}
	old, st, err := s.readChecked("delete", res, true)
	if err != nil {
		return err
	}
	if idOf(&st) != id {
		return &Error{Op: "delete", Path: path, Rule: RuleNotRead,
			Reason: "the file changed since you read it", Hint: "read it again, then delete it"}
	}
	if s.Snapshot != nil {
		if err := s.Snapshot(res.Real, old, true); err != nil {
			return &Error{Op: "delete", Path: path, Err: err,
				Reason: "could not snapshot the file first: " + err.Error(),
				Hint:   "nothing was deleted"}
		}
	}
	if err := t.remove(res); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.read, res.Real)
	s.mu.Unlock()
	return nil
}

func setOp(err error, op string) error {
	if e, ok := err.(*Error); ok {
		e.Op = op
	}
	return err
}
