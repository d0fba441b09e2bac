//go:build unix && !linux

package jail

import (
	"os"
	"sync/atomic"

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

// OpenFIFO reports no FIFO here: without /proc a checked FIFO cannot be
// reopened, so a FIFO is opened like any file (without blocking).
func (j *Jail) OpenFIFO(res Resolved) (*os.File, error) { return nil, nil }
