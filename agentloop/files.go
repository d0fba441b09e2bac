package agentloop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/guardsh/guardsh/interp/jail"
	"golang.org/x/sys/unix"
)

// Files is the file access the agent's tools use: every path is relative to
// the project root (or absolute inside it) and may not leave it. Errors are
// written for the model.
type Files interface {
	// Clean checks a path as the model wrote it and returns it relative to
	// the project root, slash-separated ("." for the root itself).
	Clean(p string) (string, error)
	// Lstat describes rel without following a final symlink.
	Lstat(rel string) (fs.FileInfo, error)
	// ReadDir lists a directory.
	ReadDir(rel string) ([]fs.DirEntry, error)
	// ReadFile reads a regular file (no FIFOs, devices, or links out).
	ReadFile(rel string) ([]byte, error)
	// WriteFile replaces or creates a regular file atomically (old content or
	// new, never half), creating missing parent directories; it reports the
	// directories it created, outermost first.
	WriteFile(rel string, data []byte, perm fs.FileMode) (madeDirs []string, err error)
	// Remove deletes a regular file, or an empty directory when dir is true.
	Remove(rel string, dir bool) error
	// Root is the canonical project root.
	Root() string
	// ReadOutside reads the regular file at real, a canonical path outside
	// the project that Clean reported in an *OutsideError, once the gate
	// allowed it; no symlink is followed on the way.
	ReadOutside(real string) ([]byte, error)
}

// OutsideError is Clean's answer for a path that leads outside the
// project: a read of it may be asked for at the gate; nothing else may
// touch it.
type OutsideError struct {
	Path string // as the model wrote it
	Real string // canonical
	Link string // the project's symlink that led outside, if one did
	Root string
}

func (e *OutsideError) Error() string {
	how := ""
	if e.Link != "" {
		how = " through the symlink " + e.Link
	}
	return fmt.Sprintf("%s leads outside the project%s (to %s): the file tools only change files inside %s (read_file may read it if a human approves)", e.Path, how, e.Real, e.Root)
}

// maxReadBytes caps what the agent's read tool loads into memory.
const maxReadBytes = 8 << 20

// jailFiles is Files on guardsh's path jail (interp/jail): every path is
// canonicalised by the jail and every file opened with its checks (no
// symlink on the way, O_NONBLOCK, fstat, regular files only, no hard-linked
// targets for writes, atomic replacement).
type jailFiles struct {
	j *jail.Jail
}

// OpenFiles opens the project directory dir as the agent's file jail.
func OpenFiles(dir string) (Files, error) {
	j, err := jail.New(dir)
	if err != nil {
		return nil, err
	}
	return &jailFiles{j: j}, nil
}

func (f *jailFiles) Root() string { return f.j.Root() }

// resolve checks p (relative to the root, or absolute) and refuses
// anything outside the project.
func (f *jailFiles) resolve(p string) (jail.Resolved, string, error) {
	if _, err := cleanRel(f.j.Root(), p); err != nil {
		return jail.Resolved{}, "", err
	}
	res, err := f.j.Resolve(f.j.Root(), p)
	if err != nil {
		return res, "", err
	}
	if !res.Inside {
		return res, "", &OutsideError{Path: p, Real: res.Real, Link: res.Link, Root: f.j.Root()}
	}
	rel, err := filepath.Rel(f.j.Root(), res.Real)
	if err != nil {
		return res, "", err
	}
	return res, filepath.ToSlash(rel), nil
}

// Clean implements Files.
func (f *jailFiles) Clean(p string) (string, error) {
	_, rel, err := f.resolve(p)
	return rel, err
}

func (f *jailFiles) Lstat(rel string) (fs.FileInfo, error) {
	res, _, err := f.resolve(rel)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(res.Real)
	return fi, osErr(rel, err)
}

func (f *jailFiles) ReadDir(rel string) ([]fs.DirEntry, error) {
	res, _, err := f.resolve(rel)
	if err != nil {
		return nil, err
	}
	d, err := f.j.OpenDir(res)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, osErr(rel, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

func (f *jailFiles) ReadFile(rel string) ([]byte, error) {
	res, _, err := f.resolve(rel)
	if err != nil {
		return nil, err
	}
	if !res.Exists {
		return nil, osErr(rel, fs.ErrNotExist)
	}
	fh, err := f.j.Open(res, os.O_RDONLY, 0, jail.Options{RegularOnly: true})
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxReadBytes+1))
	if err != nil {
		return nil, osErr(rel, err)
	}
	if len(data) > maxReadBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB; look at it with run_shell (head, grep, sed -n)", rel, maxReadBytes>>20)
	}
	return data, nil
}

func (f *jailFiles) ReadOutside(real string) ([]byte, error) {
	if !filepath.IsAbs(real) || filepath.Clean(real) != real || f.j.Contains(real) {
		return nil, fmt.Errorf("%s: not a canonical path outside the project", real)
	}
	fh, err := f.j.Open(jail.Resolved{Path: real, Abs: real, Real: real, Exists: true}, os.O_RDONLY, 0, jail.Options{RegularOnly: true})
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxReadBytes+1))
	if err != nil {
		return nil, osErr(real, err)
	}
	if len(data) > maxReadBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", real, maxReadBytes>>20)
	}
	return data, nil
}

func (f *jailFiles) WriteFile(rel string, data []byte, perm fs.FileMode) ([]string, error) {
	if rel == "." || rel == "" {
		return nil, errors.New("cannot write the project root itself: give a file path")
	}
	res, _, err := f.resolve(rel)
	if err != nil {
		return nil, err
	}
	var made []string
	if !res.Exists {
		// the jail walks down from / with no symlink followed, so a
		// directory swapped for a symlink on the way fails the walk
		// instead of leading the new directories out of the project
		dirs, err := f.j.MkdirParents(res)
		for _, d := range dirs {
			if r, rerr := filepath.Rel(f.j.Root(), d); rerr == nil {
				made = append(made, filepath.ToSlash(r))
			}
		}
		if err != nil {
			return made, err
		}
	}
	return made, f.j.WriteAtomic(res, data, perm)
}

func (f *jailFiles) Remove(rel string, dir bool) error {
	res, _, err := f.resolve(rel)
	if err != nil {
		return err
	}
	if res.Real == f.j.Root() {
		return errors.New("cannot remove the project root")
	}
	parent, err := f.j.OpenDir(jail.Resolved{Path: rel, Real: filepath.Dir(res.Real)})
	if err != nil {
		return err
	}
	defer parent.Close()
	name := filepath.Base(res.Real)
	var st unix.Stat_t
	if err := unix.Fstatat(int(parent.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return osErr(rel, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	switch {
	case dir && !isDir:
		return fmt.Errorf("%s: not a directory", rel)
	case !dir && isDir:
		return fmt.Errorf("%s: is a directory", rel)
	case !dir && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s: not a regular file; the file tools only delete regular files", rel)
	}
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(int(parent.Fd()), name, flags); err != nil {
		return osErr(rel, err)
	}
	unix.Fsync(int(parent.Fd()))
	return nil
}

// osErr rewrites an operating-system error for the model.
func osErr(rel string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory; use list_files to see what exists", rel)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", rel)
	}
	return fmt.Errorf("%s: %v", rel, err)
}

func kind(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not regular"
}

// syncDir fsyncs a directory so a rename or create in it is durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// cleanRel turns a model-written path into a slash path relative to root,
// refusing what can only be a mistake before the jail looks at it.
func cleanRel(root, p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", errors.New(`empty path: give a path relative to the project root, e.g. "src/main.go", or "." for the root`)
	case strings.ContainsRune(p, 0):
		return "", errors.New("the path contains a NUL byte: give a plain path relative to the project root")
	case p == "~" || strings.HasPrefix(p, "~/"):
		return "", fmt.Errorf("%q: ~ is not expanded here, and the file tools only reach files inside the project %s; give a path relative to the project root", p, root)
	}
	// Where an absolute path or ".." leads is the jail's to say, after
	// every symlink: /tmp/proj/a.txt is inside a project at /private/tmp/proj
	// when /tmp is a link to /private/tmp.
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return path.Clean(filepath.ToSlash(p)), nil
}
