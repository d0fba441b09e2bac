package jail

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// tempInfix marks the temporary files of atomic writes: ".NAME.guardsh-tmp-HEX".
const tempInfix = ".guardsh-tmp-"

// target is the checked parent directory of a file about to be replaced or
// deleted, and what is there now.
type target struct {
	dir    *os.File // the parent directory, opened with no symlink on the way
	name   string
	exists bool
	st     unix.Stat_t
}

func (t *target) close() { t.dir.Close() }

// openTarget opens res's parent directory (no symlinks) and looks at the
// final name without following it: a symlink there now means the path
// changed since Resolve; anything but a regular file is refused; a regular
// file with several hard links is refused.
func (j *Jail) openTarget(op string, res Resolved) (*target, error) {
	parent := filepath.Dir(res.Real)
	dir, err := j.OpenDir(Resolved{Path: res.Path, Real: parent})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && errors.Is(e.Err, syscall.ENOENT) {
			e.Op = op
			e.Reason = "the directory " + parent + " does not exist"
			e.Hint = "create it first (mkdir -p in the shell)"
		}
		return nil, err
	}
	t := &target{dir: dir, name: filepath.Base(res.Real)}
	err = unix.Fstatat(int(dir.Fd()), t.name, &t.st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, syscall.ENOENT):
		return t, nil
	case err != nil:
		dir.Close()
		return nil, &Error{Op: op, Path: res.Path, Err: err}
	}
	t.exists = true
	typ := uint32(t.st.Mode) & unix.S_IFMT
	if typ == unix.S_IFLNK {
		dir.Close()
		return nil, &Error{Op: op, Path: res.Path, Rule: RuleChanged,
			Reason: "a symbolic link appeared at " + res.Real + " after guardsh resolved the path",
			Hint:   "something is changing the files under guardsh; try again"}
	}
	if typ != unix.S_IFREG {
		dir.Close()
		return nil, &Error{Op: op, Path: res.Path, Rule: RuleNotFile,
			Reason: "not a regular file (" + typeName(typ) + ")",
			Hint:   "the file tools work on regular files only; use the shell for anything else"}
	}
	if t.st.Nlink > 1 {
		dir.Close()
		return nil, &Error{Op: op, Path: res.Path, Rule: RuleHardlink,
			Reason: "the file has several hard links, so changing it would also change the other names, which may lie outside the project",
			Hint:   "remove the other links first, or write under a new name"}
	}
	return t, nil
}

// WriteAtomic replaces the file res with data so that a crash at any moment
// leaves either the old content or the new, never a mix: the data goes to a
// new temporary file in the same directory (created O_EXCL, no symlink
// followed), is fsynced, gets the old file's permissions, and is renamed
// over the name; then the directory is fsynced. perm is used for a new
// file (subject to the umask). An existing file must be regular with a
// single link. A crash can leave a stray ".NAME.guardsh-tmp-*" file behind,
// never a damaged NAME.
func (j *Jail) WriteAtomic(res Resolved, data []byte, perm os.FileMode) error {
	t, err := j.openTarget("write", res)
	if err != nil {
		return err
	}
	defer t.close()
	return t.replace(res, data, perm)
}

func (t *target) replace(res Resolved, data []byte, perm os.FileMode) error {
	dfd := int(t.dir.Fd())
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := "." + t.name + tempInfix + hex.EncodeToString(rnd[:])
	if len(tmp) > 255 {
		tmp = "." + tempInfix + hex.EncodeToString(rnd[:])
	}
	mode := uint32(perm.Perm())
	if t.exists {
		mode = uint32(t.st.Mode) & 0o7777
	}
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return &Error{Op: "write", Path: res.Path, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	fail := func(err error) error {
		f.Close()
		unix.Unlinkat(dfd, tmp, 0)
		return &Error{Op: "write", Path: res.Path, Err: err}
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if t.exists {
		// Keep the old file's mode exactly (no umask) and, where we may,
		// its owner.
		if err := unix.Fchmod(fd, mode); err != nil {
			return fail(err)
		}
		if int(t.st.Uid) != os.Geteuid() || int(t.st.Gid) != os.Getegid() {
			unix.Fchown(fd, int(t.st.Uid), int(t.st.Gid))
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return &Error{Op: "write", Path: res.Path, Err: err}
	}
	if err := unix.Renameat(dfd, tmp, dfd, t.name); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return &Error{Op: "write", Path: res.Path, Err: err}
	}
	unix.Fsync(dfd)
	return nil
}

// MkdirParents creates the missing directories above res.Real (as mkdir -p
// would), walking from / with no symlink followed: each component is
// opened with O_NOFOLLOW|O_DIRECTORY and made with mkdirat where missing,
// so a symlink swapped in anywhere fails the walk instead of leading it
// elsewhere. It returns the directories it created, outermost first.
func (j *Jail) MkdirParents(res Resolved) ([]string, error) {
	parent := filepath.Dir(res.Real)
	dfd, err := unix.Open("/", dirWalkFlags, 0)
	if err != nil {
		return nil, &Error{Op: "write", Path: res.Path, Err: err}
	}
	defer func() { unix.Close(dfd) }()
	var made []string
	cur := ""
	for _, c := range strings.Split(strings.Trim(parent, "/"), "/") {
		if c == "" {
			continue
		}
		cur += "/" + c
		nfd, err := unix.Openat(dfd, c, dirWalkFlags, 0)
		if errors.Is(err, syscall.ENOENT) {
			if err := unix.Mkdirat(dfd, c, 0o777); err != nil && !errors.Is(err, syscall.EEXIST) {
				return made, &Error{Op: "write", Path: res.Path, Err: err,
					Reason: "cannot create the directory " + cur + ": " + errText(err)}
			} else if err == nil {
				made = append(made, cur)
			}
			nfd, err = unix.Openat(dfd, c, dirWalkFlags, 0)
		}
		if err != nil {
			reason := "cannot enter " + cur + ": " + errText(err)
			rule := ""
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
				reason = cur + " is not a directory (or became a symbolic link while guardsh was creating directories)"
				rule = RuleChanged
			}
			return made, &Error{Op: "write", Path: res.Path, Rule: rule, Err: err, Reason: reason,
				Hint: "write to a path whose directories are real directories"}
		}
		unix.Close(dfd)
		dfd = nfd
	}
	return made, nil
}
