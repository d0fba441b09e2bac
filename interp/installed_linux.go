package interp

import "golang.org/x/sys/unix"

// readOnlyMount reports whether the mount that holds path is read-only.
func readOnlyMount(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return st.Flags&unix.ST_RDONLY != 0
}
