package agentloop

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// statTimes returns a file's modification and status-change times.
func statTimes(s *syscall.Stat_t) (mtime, ctime syscall.Timespec) { return s.Mtim, s.Ctim }

// syncFS makes durable what was written to the file system holding fd.
func syncFS(fd int) error { return unix.Syncfs(fd) }
