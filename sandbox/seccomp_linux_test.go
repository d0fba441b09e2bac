//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data as the filter sees it on a
// little-endian machine: x/net/bpf's VM loads words big-endian, the kernel
// in native order, so each 32-bit word is stored big-endian here, with the
// low half of each 64-bit argument first.
func seccompData(arch uint32, nr uintptr, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}

func TestSeccompProgram(t *testing.T) {
	eperm := uint32(retErrno | uint32(unix.EPERM))
	tests := []struct {
		name   string
		c      Config
		unixOK bool
		arch   uint32
		nr     uintptr
		args   []uint64
		want   uint32
	}{
		{"write allowed", Config{}, false, auditArch, unix.SYS_WRITE, nil, retAllow},
		{"ptrace", Config{}, false, auditArch, unix.SYS_PTRACE, nil, eperm},
		{"mount", Config{}, false, auditArch, unix.SYS_MOUNT, nil, eperm},
		{"io_uring_setup", Config{}, false, auditArch, unix.SYS_IO_URING_SETUP, nil, eperm},
		{"socket inet", Config{}, true, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, eperm},
		{"socket inet high bits", Config{}, true, auditArch, unix.SYS_SOCKET, []uint64{1<<32 | unix.AF_INET}, eperm},
		{"socket netlink", Config{}, true, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_NETLINK}, eperm},
		{"socket unix allowed", Config{}, true, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, retAllow},
		{"socket unix refused", Config{}, false, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, eperm},
		{"socket inet with network", Config{Network: true}, false, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET6}, retAllow},
		{"ioctl TIOCSTI", Config{}, false, auditArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCSTI high bits", Config{}, false, auditArch, unix.SYS_IOCTL, []uint64{0, 0xffffffff00000000 | unix.TIOCSTI}, eperm},
		{"ioctl TIOCLINUX", Config{}, false, auditArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX}, eperm},
		{"ioctl TCGETS", Config{}, false, auditArch, unix.SYS_IOCTL, []uint64{0, unix.TCGETS}, retAllow},
		{"clone thread", Config{}, false, auditArch, unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD}, retAllow},
		{"clone newuser", Config{}, false, auditArch, unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER}, eperm},
		{"clone3", Config{}, false, auditArch, unix.SYS_CLONE3, nil, retErrno | uint32(unix.ENOSYS)},
		{"prlimit self", Config{}, false, auditArch, unix.SYS_PRLIMIT64, []uint64{0}, retAllow},
		{"prlimit other", Config{}, false, auditArch, unix.SYS_PRLIMIT64, []uint64{1234}, eperm},
		{"foreign arch", Config{}, false, 0x40000003, 1, nil, retKillProcess},
	}
	if x32Mask != 0 {
		tests = append(tests, struct {
			name   string
			c      Config
			unixOK bool
			arch   uint32
			nr     uintptr
			args   []uint64
			want   uint32
		}{"x32 abi", Config{}, false, auditArch, x32Mask | unix.SYS_SOCKET, []uint64{unix.AF_INET}, retKillProcess})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := seccompProgram(tt.c, tt.unixOK, false)
			if err != nil {
				t.Fatal(err)
			}
			ins, ok := bpf.Disassemble(raw)
			if !ok {
				t.Fatal("disassemble")
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(seccompData(tt.arch, tt.nr, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tt.want {
				t.Errorf("got %#x, want %#x", got, tt.want)
			}
		})
	}
}
