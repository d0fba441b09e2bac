package main

import (
	"errors"

	"golang.org/x/sys/unix"
)

// anonymousFileIn tries to create a file without a name in dir
// (O_TMPFILE): ok says whether it could; known is false where the file
// system has no such files.
func anonymousFileIn(dir string) (ok, known bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err == nil {
		unix.Close(fd)
		return true, true
	}
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) {
		return false, false
	}
	return false, true
}
