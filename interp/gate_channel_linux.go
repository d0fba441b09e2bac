package interp

import "golang.org/x/sys/unix"

// peerPID is the pid of the process that made the socket pair fd belongs
// to (the asking guardsh), 0 if unknown.
func peerPID(fd int) int {
	c, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0
	}
	return int(c.Pid)
}

const (
	sockCloexec    = unix.SOCK_CLOEXEC
	msgCmsgCloexec = unix.MSG_CMSG_CLOEXEC
)
