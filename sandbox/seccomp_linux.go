//go:build linux

package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Seccomp return values.
const (
	retAllow       = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrno       = 0x00050000 // SECCOMP_RET_ERRNO | errno
	retKillProcess = 0x80000000 // SECCOMP_RET_KILL_PROCESS
)

// Offsets in struct seccomp_data. Arguments are compared on their low 32
// bits only: the kernel truncates int and unsigned int arguments (socket
// family, ioctl request, clone flags on 64 bit), so a filter comparing
// all 64 bits could be bypassed by setting high bits.
const (
	offNr   = 0
	offArch = 4
)

func offArgLow(i int) uint32 { return uint32(16 + 8*i) } // little endian

// deniedSyscalls fail with EPERM in every confined process.
var deniedSyscalls = []struct {
	name string
	nr   uintptr
}{
	{"ptrace", unix.SYS_PTRACE},
	{"process_vm_readv", unix.SYS_PROCESS_VM_READV},
	{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
	{"pidfd_getfd", unix.SYS_PIDFD_GETFD}, // another process's descriptors (a guardsh's approval channel)
	{"io_uring_setup", unix.SYS_IO_URING_SETUP},
	{"io_uring_enter", unix.SYS_IO_URING_ENTER},
	{"io_uring_register", unix.SYS_IO_URING_REGISTER},
	{"mount", unix.SYS_MOUNT},
	{"umount2", unix.SYS_UMOUNT2},
	{"pivot_root", unix.SYS_PIVOT_ROOT},
	{"chroot", unix.SYS_CHROOT},
	{"unshare", unix.SYS_UNSHARE},
	{"setns", unix.SYS_SETNS},
	{"bpf", unix.SYS_BPF},
	{"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
	{"kexec_load", unix.SYS_KEXEC_LOAD},
	{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
	{"init_module", unix.SYS_INIT_MODULE},
	{"finit_module", unix.SYS_FINIT_MODULE},
	{"delete_module", unix.SYS_DELETE_MODULE},
	{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT},
	{"fsopen", unix.SYS_FSOPEN},
	{"fsconfig", unix.SYS_FSCONFIG},
	{"fsmount", unix.SYS_FSMOUNT},
	{"fspick", unix.SYS_FSPICK},
	{"move_mount", unix.SYS_MOVE_MOUNT},
	{"open_tree", unix.SYS_OPEN_TREE},
	{"mount_setattr", unix.SYS_MOUNT_SETATTR},
	{"keyctl", unix.SYS_KEYCTL},
	{"add_key", unix.SYS_ADD_KEY},
	{"request_key", unix.SYS_REQUEST_KEY},
	{"swapon", unix.SYS_SWAPON},
	{"swapoff", unix.SYS_SWAPOFF},
	{"reboot", unix.SYS_REBOOT},
	{"acct", unix.SYS_ACCT},
	{"syslog", unix.SYS_SYSLOG},
	{"userfaultfd", unix.SYS_USERFAULTFD},
}

// nsCloneFlags are the clone(2) flags that create namespaces.
const nsCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// SeccompRules describes the filter for the doctor.
func SeccompRules(c Config) []string {
	out := []string{"foreign syscall ABIs (x32, i386): process killed"}
	names := ""
	for i, d := range deniedSyscalls {
		if i > 0 {
			names += " "
		}
		names += d.name
	}
	out = append(out, "EPERM: "+names)
	out = append(out, "EPERM: clone with namespace flags; ENOSYS: clone3 (libc falls back to clone)")
	out = append(out, "EPERM: ioctl TIOCSTI, TIOCLINUX; prlimit64 on another process")
	switch {
	case c.Network:
		out = append(out, "sockets: every family allowed (approved network); ENOTRECOVERABLE: ioctl NETWORK_MARK (a guardsh inside says so: InNetworkSandbox)")
	case c.Unix:
		out = append(out, "sockets: only AF_UNIX")
	default:
		out = append(out, "sockets: only AF_UNIX when Landlock ABI >= 9 restricts connect by path, else none")
	}
	return out
}

// asm is a tiny BPF assembler with forward labels.
type asm struct {
	ins    []bpf.Instruction
	fixups map[int]string // index of a JumpIf -> label for its true branch
	labels map[string]int
}

func (a *asm) emit(i bpf.Instruction) { a.ins = append(a.ins, i) }

// jeq jumps to label when A == v, else falls through.
func (a *asm) jeq(v uint32, label string) {
	a.fixups[len(a.ins)] = label
	a.emit(bpf.JumpIf{Cond: bpf.JumpEqual, Val: v})
}

// jset jumps to label when A & v != 0, else falls through.
func (a *asm) jset(v uint32, label string) {
	a.fixups[len(a.ins)] = label
	a.emit(bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: v})
}

func (a *asm) label(name string) { a.labels[name] = len(a.ins) }

func (a *asm) assemble() ([]bpf.RawInstruction, error) {
	for at, name := range a.fixups {
		to, ok := a.labels[name]
		if !ok {
			return nil, fmt.Errorf("seccomp: undefined label %s", name)
		}
		skip := to - at - 1
		if skip < 0 || skip > 255 {
			return nil, fmt.Errorf("seccomp: jump to %s out of range", name)
		}
		j := a.ins[at].(bpf.JumpIf)
		j.SkipTrue = uint8(skip)
		a.ins[at] = j
	}
	return bpf.Assemble(a.ins)
}

// seccompProgram builds the filter for c. unixOK says whether AF_UNIX
// sockets may be created; inetOK whether AF_INET/AF_INET6 ones may (only
// in a private network namespace whose only interface is lo).
func seccompProgram(c Config, unixOK, inetOK bool) ([]bpf.RawInstruction, error) {
	a := &asm{fixups: map[int]string{}, labels: map[string]int{}}
	a.emit(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jeq(auditArch, "native")
	a.emit(bpf.RetConstant{Val: retKillProcess})
	a.label("native")
	a.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if x32Mask != 0 {
		a.emit(bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Mask, SkipTrue: 0, SkipFalse: 1})
		a.emit(bpf.RetConstant{Val: retKillProcess})
	}
	for _, d := range deniedSyscalls {
		a.jeq(uint32(d.nr), "eperm")
	}
	a.jeq(uint32(unix.SYS_CLONE3), "enosys")
	a.jeq(uint32(unix.SYS_CLONE), "clone")
	a.jeq(uint32(unix.SYS_IOCTL), "ioctl")
	a.jeq(uint32(unix.SYS_PRLIMIT64), "prlimit")
	if !c.Network {
		a.jeq(uint32(unix.SYS_SOCKET), "socket")
	}
	a.emit(bpf.RetConstant{Val: retAllow})

	a.label("clone")
	a.emit(bpf.LoadAbsolute{Off: offArgLow(0), Size: 4})
	a.jset(nsCloneFlags, "eperm")
	a.emit(bpf.RetConstant{Val: retAllow})

	a.label("ioctl")
	a.emit(bpf.LoadAbsolute{Off: offArgLow(1), Size: 4})
	a.jeq(unix.TIOCSTI, "eperm")
	a.jeq(unix.TIOCLINUX, "eperm")
	if c.Network {
		a.jeq(networkMarkIoctl, "mark")
	}
	a.emit(bpf.RetConstant{Val: retAllow})

	// prlimit64 on another process (same user, so the kernel would let it
	// lower the privileged side's limits): only pid 0, the caller itself.
	a.label("prlimit")
	a.emit(bpf.LoadAbsolute{Off: offArgLow(0), Size: 4})
	a.jeq(0, "allow")
	a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)})

	if !c.Network {
		a.label("socket")
		a.emit(bpf.LoadAbsolute{Off: offArgLow(0), Size: 4})
		if unixOK {
			a.jeq(unix.AF_UNIX, "allow")
		}
		if inetOK {
			a.jeq(unix.AF_INET, "allow")
			a.jeq(unix.AF_INET6, "allow")
		}
		a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)})
	}
	a.label("allow")
	a.emit(bpf.RetConstant{Val: retAllow})

	a.label("eperm")
	a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)})
	a.label("enosys")
	a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.ENOSYS)})
	if c.Network {
		a.label("mark")
		a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.ENOTRECOVERABLE)})
	}
	return a.assemble()
}

// networkMarkIoctl is an ioctl request no driver defines ('G' 'S' 0x4e):
// the filter of a sandbox with the network open answers it with
// ENOTRECOVERABLE, where the kernel would answer EBADF for the descriptor
// -1. A seccomp filter cannot be removed by the processes under it, so a
// guardsh started there can tell it is in such a sandbox (the agent's of
// guardsh --launch --confine) whatever its environment says.
const networkMarkIoctl = 0x4753004e

// InNetworkSandbox reports whether the calling thread is under the filter
// of a guardsh sandbox whose network is open (Config.Network) and no
// filter installed since refuses IPv4 and IPv6 sockets: commands run
// there as they are would have that network. (A sandbox stacked on it
// closes them; a process that closes them itself gains nothing by it.)
func InNetworkSandbox() bool {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, ^uintptr(0), networkMarkIoctl, 0)
	if e != unix.ENOTRECOVERABLE {
		return false
	}
	for _, fam := range []int{unix.AF_INET, unix.AF_INET6} {
		if fd, err := unix.Socket(fam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
			unix.Close(fd)
			return true
		}
	}
	return false
}

// loadSeccompFlags installs the filter with seccomp(2)'s flags: with
// SECCOMP_FILTER_FLAG_TSYNC on every thread of the process, without it on
// the calling thread alone.
func loadSeccompFlags(raw []bpf.RawInstruction, flags uintptr) error {
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		flags, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
