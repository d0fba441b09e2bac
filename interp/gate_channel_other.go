//go:build !linux

package interp

func peerPID(fd int) int { return 0 }

// Elsewhere the descriptors are made close-on-exec just after (the
// callers do so under syscall.ForkLock).
const (
	sockCloexec    = 0
	msgCmsgCloexec = 0
)
