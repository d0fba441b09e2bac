//go:build unix

package main

import "syscall"

// newSessionAttr starts a child in a new session: it has no controlling
// terminal, so /dev/tty cannot be opened.
func newSessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
