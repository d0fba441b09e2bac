package interp

import "syscall"

// modifiedSinceRead is test -N: modified since it was last read.
func modifiedSinceRead(st *syscall.Stat_t) bool {
	m, a := st.Mtim, st.Atim
	return m.Sec > a.Sec || m.Sec == a.Sec && m.Nsec > a.Nsec
}
