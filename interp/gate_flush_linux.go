package interp

import "golang.org/x/sys/unix"

// flushInput discards what was typed on the terminal before the prompt
// appeared, so that type-ahead cannot answer it.
func flushInput(fd int) { unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
