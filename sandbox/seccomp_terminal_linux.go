package sandbox

import (
	"errors"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// compatIoctl is ioctl's number in the 32-bit ABIs a 64-bit kernel also
// runs (i386 beside x86-64, arm EABI beside arm64): 54 in both.
const compatIoctl = 54

// x32Ioctl is ioctl's number in the x32 ABI, without its marker bit.
const x32Ioctl = 514

// DenyTerminalInput installs a seccomp filter, on every thread of the
// calling process and so on every process it starts from then on, that
// refuses ioctl TIOCSTI and TIOCLINUX (EPERM) and lets everything else
// through: no process of the tree can push keys into a terminal's input
// as if the human had typed them (the launcher's question is answered on
// the terminal the agent shares). Unlike the sandbox's filter it kills
// nothing: 32-bit and x32 programs run, their ioctl checked the same way.
// The caller needs CAP_SYS_ADMIN in its user namespace (the launcher's
// stage is root there); no_new_privs is not set, so setuid programs keep
// working in the tree.
func DenyTerminalInput() error {
	if !seccompSupported {
		return errors.New("seccomp: no tested filter for this architecture")
	}
	raw, err := terminalInputProgram()
	if err != nil {
		return err
	}
	return loadSeccompFlags(raw, unix.SECCOMP_FILTER_FLAG_TSYNC)
}

func terminalInputProgram() ([]bpf.RawInstruction, error) {
	a := &asm{fixups: map[int]string{}, labels: map[string]int{}}
	a.emit(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jeq(auditArch, "native")
	// another ABI the kernel runs (i386, arm): its ioctl number
	a.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	a.jeq(compatIoctl, "ioctl")
	a.emit(bpf.RetConstant{Val: retAllow})
	a.label("native")
	a.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	a.jeq(uint32(unix.SYS_IOCTL), "ioctl")
	if x32Mask != 0 {
		a.jeq(x32Mask|x32Ioctl, "ioctl")
	}
	a.emit(bpf.RetConstant{Val: retAllow})
	a.label("ioctl")
	a.emit(bpf.LoadAbsolute{Off: offArgLow(1), Size: 4})
	a.jeq(unix.TIOCSTI, "eperm")
	a.jeq(unix.TIOCLINUX, "eperm")
	a.emit(bpf.RetConstant{Val: retAllow})
	a.label("eperm")
	a.emit(bpf.RetConstant{Val: retErrno | uint32(unix.EPERM)})
	return a.assemble()
}
