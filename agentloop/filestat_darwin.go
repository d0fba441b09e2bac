package agentloop

import "syscall"

// statTimes returns a file's modification and status-change times.
func statTimes(s *syscall.Stat_t) (mtime, ctime syscall.Timespec) { return s.Mtimespec, s.Ctimespec }

// syncFS makes durable what was written to the file systems (macOS has
// no per-file-system sync).
func syncFS(int) error {
	syscall.Sync()
	return nil
}
