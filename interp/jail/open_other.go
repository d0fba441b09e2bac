//go:build unix && !linux

package jail

import (
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirWalkFlags open a directory component during the walk; O_NOFOLLOW with
// O_DIRECTORY makes a symlink fail.
const dirWalkFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openNoSymlinks opens the absolute path with no symlink allowed anywhere
// on it, by walking it component by component.
func openNoSymlinks(path string, flags int, perm uint32) (int, error) {
	return walkOpen(path, flags, perm)
}

// noOpenat2 exists for the tests; there is no openat2 here.
var noOpenat2 atomic.Bool

// OpenPath is only needed where a FIFO can be reopened through /proc; here
// a FIFO with no reader simply fails with ENXIO.
func (j *Jail) OpenPath(res Resolved) (*os.File, error) {
	return nil, &Error{Op: "open", Path: res.Path, Err: syscall.ENXIO}
}
