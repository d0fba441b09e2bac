package jail

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirWalkFlags open a directory component during the fallback walk: O_PATH
// needs no read permission and has no side effects; O_NOFOLLOW|O_DIRECTORY
// makes a symlink fail with ENOTDIR.
const dirWalkFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// noOpenat2 is set once openat2 turned out to be missing (ENOSYS, or EPERM
// from a seccomp filter); tests set it to exercise the fallback walk.
var noOpenat2 atomic.Bool

// openNoSymlinks opens the absolute path with no symlink allowed anywhere
// on it: openat2(RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS), or the
// component walk where openat2 is missing.
func openNoSymlinks(path string, flags int, perm uint32) (int, error) {
	if !noOpenat2.Load() {
		how := unix.OpenHow{
			Flags:   uint64(flags),
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		// (O_TMPFILE contains the O_DIRECTORY bit: test it whole.)
		if flags&unix.O_CREAT != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE {
			how.Mode = uint64(perm)
		}
		for try := 0; ; try++ {
			fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
			if (errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN)) && try < 64 {
				// EAGAIN: a concurrent rename made the kernel give up; retry.
				continue
			}
			if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EPERM) && probeOpenat2Blocked() {
				noOpenat2.Store(true)
				break
			}
			return fd, err
		}
	}
	return walkOpen(path, flags, perm)
}

// probeOpenat2Blocked tells a seccomp refusal of openat2 from a real EPERM.
func probeOpenat2Blocked() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err == nil {
		unix.Close(fd)
		return false
	}
	return true
}

// OpenFIFO looks at res through an O_PATH descriptor (no read, no write,
// no side effect on a FIFO's readers and writers, no symlink on the way).
// For a FIFO it returns that descriptor, to be reopened by ReopenBlocking;
// for anything else (or nothing) it returns nil, nil.
func (j *Jail) OpenFIFO(res Resolved) (*os.File, error) {
	fd, err := openNoSymlinks(res.Real, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, openError(res, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		unix.Close(fd)
		return nil, nil
	}
	return os.NewFile(uintptr(fd), res.Real), nil
}
