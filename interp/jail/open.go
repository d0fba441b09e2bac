package jail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Options say what an open may accept beyond the path checks.
type Options struct {
	// RegularOnly refuses anything but a regular file (the agent's tools):
	// no FIFO, device, socket or directory.
	RegularOnly bool
}

// writeFlags are the open flags that make an access a write.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// IsWrite reports whether open flags write, create, truncate or append.
func IsWrite(flag int) bool { return flag&writeFlags != 0 }

// Open opens the file that Resolve checked, and nothing else:
//
//  1. the canonical path is opened with no symlink allowed in any component
//     (openat2 with RESOLVE_NO_SYMLINKS; where that is missing, a walk from
//     / with O_NOFOLLOW per component), always with O_NONBLOCK and never
//     with O_TRUNC, so opening cannot hang on a FIFO nor destroy anything;
//  2. fstat: with o.RegularOnly anything but a regular file is refused; a
//     regular file with more than one hard link is refused for writing;
//  3. where /proc is mounted, the kernel's name for the opened file must be
//     the canonical path that was checked (catches a directory renamed in
//     or out during the open);
//  4. only then O_TRUNC is carried out (ftruncate), and O_NONBLOCK is
//     cleared so the file behaves normally (also for child processes that
//     inherit it).
//
// A symlink or a different file swapped in between Resolve and Open makes
// Open fail with a RuleChanged refusal. A FIFO opened for writing with no
// reader fails with ENXIO instead of blocking; see ReopenBlocking.
func (j *Jail) Open(res Resolved, flag int, perm os.FileMode, o Options) (*os.File, error) {
	// A trailing slash (or "/.") means a directory, as for the kernel;
	// canonicalisation drops it, so keep its meaning here.
	dirOnly := strings.HasSuffix(res.Path, "/") || strings.HasSuffix(res.Path, "/.") || res.Path == "."
	if dirOnly {
		fi, err := os.Stat(res.Real)
		switch {
		case err != nil && flag&os.O_CREATE != 0:
			return nil, &Error{Op: "open", Path: res.Path, Err: syscall.EISDIR}
		case err != nil:
			return nil, &Error{Op: "open", Path: res.Path, Err: syscall.ENOENT}
		case !fi.IsDir() && flag&os.O_CREATE != 0:
			return nil, &Error{Op: "open", Path: res.Path, Err: syscall.EISDIR} // as the kernel says
		case !fi.IsDir():
			return nil, &Error{Op: "open", Path: res.Path, Err: syscall.ENOTDIR}
		case IsWrite(flag):
			return nil, &Error{Op: "open", Path: res.Path, Err: syscall.EISDIR}
		}
		flag |= unix.O_DIRECTORY
	}
	fd, err := openNoSymlinks(res.Real, (flag&^os.O_TRUNC)|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, openError(res, err)
	}
	if err := checkFd(fd, res, flag, o); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG {
			if err := unix.Ftruncate(fd, 0); err != nil {
				unix.Close(fd)
				return nil, &Error{Op: "open", Path: res.Path, Err: err}
			}
		}
	}
	if err := setNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &Error{Op: "open", Path: res.Path, Err: err}
	}
	return os.NewFile(uintptr(fd), res.Real), nil
}

// checkFd is step 2 and 3 of Open.
func checkFd(fd int, res Resolved, flag int, o Options) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &Error{Op: "open", Path: res.Path, Err: err}
	}
	typ := uint32(st.Mode) & unix.S_IFMT
	if o.RegularOnly && typ != unix.S_IFREG {
		return &Error{Op: "open", Path: res.Path, Rule: RuleNotFile,
			Reason: "not a regular file (" + typeName(typ) + ")",
			Hint:   "the file tools work on regular files only; use the shell for devices, FIFOs and sockets, and the list tool for directories"}
	}
	if IsWrite(flag) && typ == unix.S_IFREG && st.Nlink > 1 {
		return &Error{Op: "open", Path: res.Path, Rule: RuleHardlink,
			Reason: fmt.Sprintf("the file has %d hard links, so writing it would also change the other names, which may lie outside the project", st.Nlink),
			Hint:   "write a new file instead (write to a new name, then rename it over this one), or remove the other links first"}
	}
	if name, ok := fdName(fd); ok && typ != unix.S_IFCHR && typ != unix.S_IFSOCK && name != res.Real {
		return &Error{Op: "open", Path: res.Path, Rule: RuleChanged,
			Reason: "the file moved while guardsh was checking it (now at " + name + ", checked " + res.Real + ")",
			Hint:   "do not rename files or directories while writing to them; try again"}
	}
	return nil
}

// fdName is the kernel's current name for fd, from /proc/self/fd.
func fdName(fd int) (string, bool) {
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(name, "/") {
		return "", false
	}
	return name, true
}

func typeName(typ uint32) string {
	switch typ {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// openError turns an errno from the no-symlink open into a message.
func openError(res Resolved, err error) error {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &Error{Op: "open", Path: res.Path, Rule: RuleChanged, Err: err,
			Reason: "a symbolic link appeared on the path after guardsh resolved it to " + res.Real,
			Hint:   "something is changing the files under guardsh; try again, and do not swap links while writing"}
	case errors.Is(err, syscall.ENXIO) && isFIFO(res.Real):
		return &Error{Op: "open", Path: res.Path, Err: err,
			Reason: "a FIFO (named pipe) with no reader",
			Hint:   "start the reader first"}
	}
	return &Error{Op: "open", Path: res.Path, Err: err}
}

func isFIFO(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

func setNonblock(fd int, on bool) error {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	if on {
		flags |= unix.O_NONBLOCK
	} else {
		flags &^= unix.O_NONBLOCK
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags)
	return err
}

// OpenDir opens the canonical directory res.Real, with no symlink on the way.
func (j *Jail) OpenDir(res Resolved) (*os.File, error) {
	fd, err := openNoSymlinks(res.Real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(res, err)
	}
	if name, ok := fdName(fd); ok && name != res.Real {
		unix.Close(fd)
		return nil, &Error{Op: "open", Path: res.Path, Rule: RuleChanged,
			Reason: "the directory moved while guardsh was checking it", Hint: "try again"}
	}
	return os.NewFile(uintptr(fd), res.Real), nil
}

// walkOpen opens the absolute, canonical path with O_NOFOLLOW on every
// component: the fallback where openat2 is missing.
func walkOpen(path string, flags int, perm uint32) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, syscall.EINVAL
	}
	dfd, err := unix.Open("/", dirWalkFlags, 0)
	if err != nil {
		return -1, err
	}
	comps := strings.Split(strings.Trim(path, "/"), "/")
	if len(comps) == 1 && comps[0] == "" {
		// the root itself
		unix.Close(dfd)
		return unix.Open("/", flags&^unix.O_CREAT, 0)
	}
	for i, c := range comps {
		if c == "" || c == "." || c == ".." {
			unix.Close(dfd)
			return -1, syscall.EINVAL
		}
		if i == len(comps)-1 {
			fd, err := unix.Openat(dfd, c, flags|unix.O_NOFOLLOW, perm)
			unix.Close(dfd)
			return fd, err
		}
		nfd, err := unix.Openat(dfd, c, dirWalkFlags, 0)
		unix.Close(dfd)
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				// a symlink (O_NOFOLLOW|O_DIRECTORY) or a file where the
				// check saw a directory
				var st unix.Stat_t
				if unix.Fstatat(unix.AT_FDCWD, "/"+strings.Join(comps[:i+1], "/"), &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK {
					return -1, syscall.ELOOP
				}
			}
			return -1, err
		}
		dfd = nfd
	}
	return -1, syscall.EINVAL
}

// ReopenBlocking reopens the FIFO f (opened by Open) in blocking mode with
// flag, through /proc/self/fd, so it is the same FIFO that was checked. It
// waits for the other end like bash does, until ctx is done; then it opens
// the other end itself to release the wait and returns ctx's error. f is
// closed in every case.
func ReopenBlocking(ctx context.Context, f *os.File, flag int) (*os.File, error) {
	defer f.Close()
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		nf, err := os.OpenFile(proc, flag&^(os.O_CREATE|os.O_TRUNC|os.O_EXCL), 0)
		done <- result{nf, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
	}
	// Release the blocked open: open the other end without blocking.
	other := os.O_WRONLY
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		other = os.O_RDONLY
	}
	if rel, err := os.OpenFile(proc, other|unix.O_NONBLOCK, 0); err == nil {
		defer rel.Close()
	}
	r := <-done
	if r.f != nil {
		r.f.Close()
	}
	return nil, ctx.Err()
}
