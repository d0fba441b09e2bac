//go:build !linux

package interp

import "time"

// flushInput is a no-op where TCFLSH is not available the Linux way.
func flushInput(fd int) {}

// waitReadable does not wait: the read blocks.
func waitReadable(fd int, d time.Duration) bool { return true }
