//go:build !linux

package interp

import "syscall"

// modifiedSinceRead is test -N; only known on Linux.
func modifiedSinceRead(st *syscall.Stat_t) bool { return false }
