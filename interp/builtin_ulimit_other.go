//go:build !linux

package interp

import (
	"fmt"

	"mvdan.cc/sh/v3/interp"
)

// ulimit is only implemented on Linux.
func (g *Runner) ulimit(hc interp.HandlerContext, args []string) int {
	fmt.Fprintln(hc.Stdout, "unlimited")
	return 0
}
