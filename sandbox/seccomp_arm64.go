//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch        = unix.AUDIT_ARCH_AARCH64
	x32Mask          = 0
	seccompSupported = true
)
