//go:build !linux

package main

// anonymousFileIn: no anonymous files here; the caller tries a named one.
func anonymousFileIn(dir string) (ok, known bool) { return false, false }
