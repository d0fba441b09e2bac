package interp

import (
	"time"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed on the terminal before the prompt
// appeared, so that type-ahead cannot answer it.
func flushInput(fd int) { unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }

// waitReadable waits up to d for fd to have input (or a hang-up or error,
// which the next read reports).
func waitReadable(fd int, d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d/time.Millisecond))
	if err == unix.EINTR {
		return false
	}
	return err != nil || n > 0
}
