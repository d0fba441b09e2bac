//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A private network namespace with loopback (DESIGN.md, "Network"): the
// confining stage moves itself into a network namespace of its own and
// brings up its lo, so that a test's local server and client talk to each
// other while nothing outside is reachable, the host's own 127.0.0.1
// services included (they live on the host's loopback, not this one).
// Only then do Landlock and seccomp let AF_INET/AF_INET6 sockets through.
// Where no namespace can be made (no CAP_SYS_ADMIN in the stage's user
// namespace, a kernel or container that refuses it), sockets stay off as
// before; EnvNet tells the interpreter which it is.

// netNSInode is the inode of the calling thread's network namespace, 0 if
// unknown.
func netNSInode() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
			return 0
		}
	}
	return st.Ino
}

// privateLoopback puts the calling (locked) thread into a network
// namespace of its own, unless it is already in one other than host's
// (bubblewrap's --unshare-net), and brings its loopback up. It reports
// whether the thread now has a private namespace with lo up, and why not.
func privateLoopback(host uint64) (bool, string) {
	if host == 0 {
		return false, "the privileged side's network namespace is unknown"
	}
	if netNSInode() == host {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return false, fmt.Sprintf("no private network namespace (unshare: %v)", err)
		}
	}
	if in := netNSInode(); in == 0 || in == host {
		return false, "no private network namespace"
	}
	if err := loopbackUp(); err != nil {
		return false, fmt.Sprintf("loopback of the private network namespace: %v", err)
	}
	return true, ""
}

// loopbackUp sets IFF_UP on lo.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var ifr [unix.IFNAMSIZ + 24]byte
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return os.NewSyscallError("SIOCGIFFLAGS", e)
	}
	flags := *(*uint16)(unsafe.Pointer(&ifr[unix.IFNAMSIZ]))
	flags |= unix.IFF_UP
	*(*uint16)(unsafe.Pointer(&ifr[unix.IFNAMSIZ])) = flags
	if _, _, e := syscall.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return os.NewSyscallError("SIOCSIFFLAGS", e)
	}
	return nil
}
