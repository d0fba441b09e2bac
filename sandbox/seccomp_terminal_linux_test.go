package sandbox

import (
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestTerminalInputProgram runs the launcher's TIOCSTI filter on
// seccomp_data as the kernel passes it: TIOCSTI and TIOCLINUX refused in
// every ABI the kernel runs, everything else let through.
func TestTerminalInputProgram(t *testing.T) {
	if !seccompSupported {
		t.Skip("no seccomp filter for this architecture")
	}
	raw, err := terminalInputProgram()
	if err != nil {
		t.Fatal(err)
	}
	ins := make([]bpf.Instruction, len(raw))
	for i, r := range raw {
		ins[i] = r.Disassemble()
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatal(err)
	}
	const otherArch = 0x40000003 // AUDIT_ARCH_I386, a 32-bit ABI beside the native one
	eperm := uint32(retErrno | uint32(unix.EPERM))
	cases := []struct {
		name     string
		arch, nr uint32
		arg1     uint64
		want     uint32
	}{
		{"ioctl TIOCSTI", auditArch, unix.SYS_IOCTL, unix.TIOCSTI, eperm},
		{"ioctl TIOCLINUX", auditArch, unix.SYS_IOCTL, unix.TIOCLINUX, eperm},
		{"ioctl TIOCSTI, high bits set", auditArch, unix.SYS_IOCTL, 0xffffffff00000000 | unix.TIOCSTI, eperm},
		{"ioctl TIOCGWINSZ", auditArch, unix.SYS_IOCTL, unix.TIOCGWINSZ, retAllow},
		{"read", auditArch, unix.SYS_READ, unix.TIOCSTI, retAllow},
		{"32-bit ioctl TIOCSTI", otherArch, compatIoctl, unix.TIOCSTI, eperm},
		{"32-bit ioctl TCGETS", otherArch, compatIoctl, unix.TCGETS, retAllow},
		{"32-bit other call", otherArch, 3, unix.TIOCSTI, retAllow},
	}
	if x32Mask != 0 {
		cases = append(cases, struct {
			name     string
			arch, nr uint32
			arg1     uint64
			want     uint32
		}{"x32 ioctl TIOCSTI", auditArch, x32Mask | x32Ioctl, unix.TIOCSTI, eperm})
	}
	for _, c := range cases {
		got, err := vm.Run(seccompData(c.arch, uintptr(c.nr), 0, c.arg1))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: filter returns %#x, want %#x", c.name, got, c.want)
		}
	}
}
