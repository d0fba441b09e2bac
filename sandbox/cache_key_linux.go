//go:build linux

package sandbox

import (
	"crypto/rand"
	"os"

	"golang.org/x/sys/unix"
)

// probeCacheKeyName is the description of the probe cache's key in the
// user's kernel keyring.
const probeCacheKeyName = "guardsh:probe-cache"

// probeCacheKey returns the key that authenticates probe cache files kept
// inside a writable root: 32 random bytes in the user's kernel keyring
// (made on first use; gone at reboot, when every cached probe is stale
// anyway). No confined process can read it: the seccomp filter refuses
// keyctl, add_key and request_key at every level, and a key's payload is
// in no file (/proc/keys lists names only). nil where the keyring cannot
// be used (a container runtime's seccomp profile refuses keyctl too).
func probeCacheKey() []byte {
	id, err := unix.KeyctlSearch(unix.KEY_SPEC_USER_KEYRING, "user", probeCacheKeyName, 0)
	if err != nil {
		var k [32]byte
		if _, err := rand.Read(k[:]); err != nil {
			return nil
		}
		if id, err = unix.AddKey("user", probeCacheKeyName, k[:], unix.KEY_SPEC_USER_KEYRING); err != nil {
			return nil
		}
	}
	buf := make([]byte, 64)
	n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
	if err != nil || n != 32 {
		return nil
	}
	return buf[:32]
}

// readNoSymlinks reads the regular file at path, refusing a symbolic link
// in any component and never blocking on a FIFO or device swapped in (the
// directory may lie where confined commands can write).
func readNoSymlinks(path string) ([]byte, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, os.ErrInvalid
	}
	b := make([]byte, fi.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && n != len(b) {
		return nil, err
	}
	return b[:n], nil
}

// writeNoSymlinks writes b as name in dir (made if missing), through a
// descriptor of dir opened without following any symbolic link: a new
// file (exclusive) renamed over name within that directory.
func writeNoSymlinks(dir, name string, b []byte) {
	os.MkdirAll(dir, 0o700)
	dfd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	var r [8]byte
	rand.Read(r[:])
	tmp := name + "." + string(hexBytes(r[:])) + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	_, werr := unix.Write(fd, b)
	unix.Close(fd)
	if werr != nil || unix.Renameat(dfd, tmp, dfd, name) != nil {
		unix.Unlinkat(dfd, tmp, 0)
	}
}

func hexBytes(b []byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return out
}
