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
	"syscall"
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
}

// maxReadBytes caps what the agent's read tool loads into memory.
const maxReadBytes = 8 << 20

// rootFiles is the fallback Files on os.Root: the kernel-side resolution of
// os.Root refuses every path (through "..", absolute symlinks or symlinks
// leading out) that would leave the project, at open time, so there is no
// check-then-open window.
type rootFiles struct {
	root *os.Root
	dir  string
}

// OpenFiles opens the project directory dir as the agent's file jail.
func OpenFiles(dir string) (Files, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &rootFiles{root: r, dir: abs}, nil
}

func (f *rootFiles) Root() string { return f.dir }

// Clean implements Files.
func (f *rootFiles) Clean(p string) (string, error) {
	return cleanRel(f.dir, p)
}

// cleanRel turns a model-written path into a slash path relative to root.
func cleanRel(root, p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", errors.New(`empty path: give a path relative to the project root, e.g. "src/main.go" or "." for the root`)
	case strings.ContainsRune(p, 0):
		return "", errors.New("the path contains a NUL byte: give a plain path relative to the project root")
	case p == "~" || strings.HasPrefix(p, "~/"):
		return "", fmt.Errorf("%q: ~ is not expanded here, and the file tools only reach files inside the project %s; give a path relative to the project root", p, root)
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("%q is outside the project %s: the file tools only reach files inside it; give a path relative to the project root", p, root)
		}
		p = rel
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q leads outside the project %s through \"..\": the file tools only reach files inside it", p, root)
	}
	return c, nil
}

// jailErr rewrites os.Root's errors for the model.
func jailErr(rel string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent") {
		return fmt.Errorf("%s: the path leads outside the project (through a symlink or \"..\"); the file tools only reach files inside it", rel)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory; use list_files to see what exists", rel)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", rel)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s: is a symlink; the file tools do not follow a symlink as the last part of a path: use the path it points to", rel)
	}
	return fmt.Errorf("%s: %v", rel, err)
}

func (f *rootFiles) Lstat(rel string) (fs.FileInfo, error) {
	fi, err := f.root.Lstat(rel)
	return fi, jailErr(rel, err)
}

func (f *rootFiles) ReadDir(rel string) ([]fs.DirEntry, error) {
	d, err := f.root.Open(rel)
	if err != nil {
		return nil, jailErr(rel, err)
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, jailErr(rel, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// openRegular opens rel for reading, refusing anything but a regular file
// without blocking on a FIFO.
func (f *rootFiles) openRegular(rel string) (*os.File, error) {
	fi, err := f.root.Lstat(rel)
	if err != nil {
		return nil, jailErr(rel, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, jailErr(rel, syscall.ELOOP)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); the file tools only handle regular files", rel, kind(fi))
	}
	fh, err := f.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, jailErr(rel, err)
	}
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		fh.Close()
		return nil, fmt.Errorf("%s: not a regular file", rel)
	}
	return fh, nil
}

func (f *rootFiles) ReadFile(rel string) ([]byte, error) {
	fh, err := f.openRegular(rel)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxReadBytes+1))
	if err != nil {
		return nil, jailErr(rel, err)
	}
	if len(data) > maxReadBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB; read it with run_shell (head, grep, sed -n)", rel, maxReadBytes>>20)
	}
	return data, nil
}

func (f *rootFiles) WriteFile(rel string, data []byte, perm fs.FileMode) ([]string, error) {
	if rel == "." {
		return nil, errors.New("cannot write the project root itself: give a file path")
	}
	var made []string
	dir := path.Dir(rel)
	if dir != "." {
		parts := strings.Split(dir, "/")
		for i := range parts {
			sub := strings.Join(parts[:i+1], "/")
			fi, err := f.root.Lstat(sub)
			if err == nil {
				if !fi.IsDir() {
					return made, fmt.Errorf("%s: %s is not a directory", rel, sub)
				}
				continue
			}
			if err := f.root.Mkdir(sub, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return made, jailErr(sub, err)
			}
			made = append(made, sub)
		}
	}
	if fi, err := f.root.Lstat(rel); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return made, jailErr(rel, syscall.ELOOP)
		case !fi.Mode().IsRegular():
			return made, fmt.Errorf("%s: not a regular file (%s); the file tools only write regular files", rel, kind(fi))
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			return made, fmt.Errorf("%s: has %d hard links; writing it would change the other names too, refused", rel, st.Nlink)
		}
		perm = fi.Mode().Perm()
	}
	tmp := path.Join(dir, fmt.Sprintf(".%s.guardsh-tmp-%d", path.Base(rel), os.Getpid()))
	fh, err := f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		f.root.Remove(tmp)
		fh, err = f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
		if err != nil {
			return made, jailErr(rel, err)
		}
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.root.Rename(tmp, rel)
	}
	if err != nil {
		f.root.Remove(tmp)
		return made, jailErr(rel, err)
	}
	syncDir(filepath.Join(f.dir, filepath.FromSlash(dir)))
	return made, nil
}

func (f *rootFiles) Remove(rel string, dir bool) error {
	fi, err := f.root.Lstat(rel)
	if err != nil {
		return jailErr(rel, err)
	}
	if dir != fi.IsDir() {
		if fi.IsDir() {
			return fmt.Errorf("%s: is a directory", rel)
		}
		return fmt.Errorf("%s: not a directory", rel)
	}
	return jailErr(rel, f.root.Remove(rel))
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
