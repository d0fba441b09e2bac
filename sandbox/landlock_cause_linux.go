package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// landlockMissing says why Landlock cannot be used here (the kernel's ABI
// is abi, below the minimum), in words a user can act on: a seccomp
// profile that refuses the Landlock calls (EPERM: container engines before
// Landlock was added to their default profiles), a kernel without Landlock
// (ENOSYS), or Landlock built in but not enabled at boot (EOPNOTSUPP).
func landlockMissing(abi int) error {
	_, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	var why string
	switch {
	case e == 0:
		why = fmt.Sprintf("this kernel's Landlock ABI is %d, guardsh needs %d (Linux 5.19+)", abi, minLandlockABI)
	case errors.Is(e, syscall.EPERM):
		why = "a seccomp profile refuses Landlock here (landlock_create_ruleset: operation not permitted): container engines allow it in their default profiles since Docker 23.0 and containerd 1.6; use a newer engine or a profile that allows landlock_create_ruleset, landlock_add_rule and landlock_restrict_self"
	case errors.Is(e, syscall.ENOSYS):
		why = "this kernel has no Landlock (Linux 5.13+ built with CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(e, syscall.EOPNOTSUPP):
		why = "Landlock is built into this kernel but not enabled at boot (add landlock to the lsm= kernel parameter)"
	default:
		why = fmt.Sprintf("landlock_create_ruleset: %v", e)
	}
	return fmt.Errorf("landlock: %s: %w", why, ErrUnavailable)
}
