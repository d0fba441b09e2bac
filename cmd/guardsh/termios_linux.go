package main

import "golang.org/x/sys/unix"

// The ioctls that read and set a terminal's termios (launch_approval.go).
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
