//go:build !linux

package sandbox

import "os"

// probeCacheKey: no kernel keyring here; a cache inside a writable root is
// not used.
func probeCacheKey() []byte { return nil }

func readNoSymlinks(path string) ([]byte, error) { return nil, os.ErrNotExist }

func writeNoSymlinks(dir, name string, b []byte) {}
