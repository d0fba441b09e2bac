//go:build linux && !amd64 && !arm64

package sandbox

const (
	auditArch        = 0
	x32Mask          = 0
	seccompSupported = false // no tested filter for this architecture
)
