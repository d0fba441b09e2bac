//go:build !linux

package interp

import "syscall"

// descendantLevels is only known on Linux; elsewhere guardsh ends its
// direct children only.
func descendantLevels(pid int) [][]int { return [][]int{nil} }

// processAlive reports whether pid exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
