//go:build !linux

package interp

import "syscall"

// descendants is only known on Linux; elsewhere guardsh ends its direct
// children only.
func descendants(pid int) []int { return nil }

// processAlive reports whether pid exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
