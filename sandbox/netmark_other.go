//go:build !linux

package sandbox

// InNetworkSandbox reports whether the calling thread is under the filter
// of a guardsh sandbox whose network is open; only Linux's seccomp filter
// can say so.
func InNetworkSandbox() bool { return false }
