package interp

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ClearInitialEnviron blanks, in this process's memory, the entries of
// the environment it was started with for which remove(name, value) is
// true, and returns how many it blanked. That block of memory is what
// /proc/<pid>/environ (and ps e) shows: unsetting a variable, which only
// changes the Go runtime's copy, leaves it there, so without the sandbox
// a command could read the secrets a scrubbing session removed with
// cat /proc/$$/environ. Each entry is overwritten with NUL
// bytes where it lies (nothing moves: libc's environ array keeps pointing
// at valid, now empty, strings); the Go runtime's copy (os.Getenv) is
// untouched, so the process itself keeps what it needs. The writes go
// through /proc/self/mem, which a process may always do to itself.
func ClearInitialEnviron(remove func(name, value string) bool) (int, error) {
	// A first look through /proc/self/environ (the same bytes): most
	// sessions have nothing to blank and stop here.
	seen, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return 0, err
	}
	if len(blankable(seen, remove)) == 0 {
		return 0, nil
	}
	start, end, err := environBounds()
	if err != nil {
		return 0, err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return 0, fmt.Errorf("reading the initial environment: %v", err)
	}
	n := 0
	for _, e := range blankable(block, remove) {
		if _, err := mem.WriteAt(make([]byte, e[1]-e[0]), start+int64(e[0])); err != nil {
			return n, fmt.Errorf("blanking the initial environment: %v", err)
		}
		n++
	}
	return n, nil
}

// blankable returns the [start, end) offsets of the NUL-separated entries
// of block for which remove is true.
func blankable(block []byte, remove func(name, value string) bool) [][2]int {
	var out [][2]int
	for off := 0; off < len(block); {
		i := bytes.IndexByte(block[off:], 0)
		if i < 0 {
			i = len(block) - off
		}
		if i > 0 {
			name, value, _ := strings.Cut(string(block[off:off+i]), "=")
			if remove(name, value) {
				out = append(out, [2]int{off, off + i})
			}
		}
		off += i + 1
	}
	return out
}

// environBounds reads where the initial environment lies from
// /proc/self/stat (fields 50 and 51, env_start and env_end, Linux 3.5+).
func environBounds() (start, end int64, err error) {
	st, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/self/stat: unexpected format")
	}
	f := strings.Fields(string(st[i+1:])) // f[0] is field 3
	if len(f) < 49 {
		return 0, 0, fmt.Errorf("/proc/self/stat has no env_start/env_end (kernel older than 3.5)")
	}
	start, err1 := strconv.ParseInt(f[47], 10, 64)
	end, err2 := strconv.ParseInt(f[48], 10, 64)
	if err1 != nil || err2 != nil || end < start || end-start > 1<<26 {
		return 0, 0, fmt.Errorf("/proc/self/stat: bad env_start/env_end %q %q", f[47], f[48])
	}
	return start, end, nil
}
