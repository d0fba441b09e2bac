package guardsh

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// guardsh is guardsh by identity, not by name: a copy, hard link or rename
// of the guardsh binary (cp $(command -v guardsh) ./gs) is judged like
// guardsh itself. Identity is the Go build ID the linker writes near the
// start of every Go binary (an ELF note, and the "Go build ID" string at
// the start of the text): a hash of the binary's inputs, the same in
// every copy of one build, different in any other program. Reading it
// costs one read of the file's first bytes. A binary changed so that its
// build ID differs (rebuilt from modified source, patched) is another
// program: it runs in the sandbox like any program, with rules of its own.

// idHead is how much of a file is searched for its build ID.
const idHead = 64 << 10

// goBuildID returns the Go build ID of the program at path, "" if it has
// none in its first idHead bytes (not a Go binary, or not a file).
func goBuildID(path string) string {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() < 1<<20 {
		return "" // a Go binary is a file larger than 1 MiB
	}
	f, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, idHead)
	n, _ := f.ReadAt(buf, 0)
	return buildIDIn(buf[:n])
}

// buildIDIn finds a Go build ID in the head of a binary: the ELF note
// (namesz 4, type 4, name "Go\0\0"), else the text's marker string
// "\xff Go build ID: \"...\"\n \xff".
func buildIDIn(b []byte) string {
	note := []byte("\x04\x00\x00\x00Go\x00\x00") // type 4, name "Go"
	if i := bytes.Index(b, note); i >= 8 && bytes.Equal(b[i-8:i-4], []byte{4, 0, 0, 0}) {
		size := int(binary.LittleEndian.Uint32(b[i-4 : i]))
		start := i + len(note)
		if size > 0 && size < 512 && start+size <= len(b) {
			return string(b[start : start+size])
		}
	}
	mark := []byte("\xff Go build ID: \"")
	if i := bytes.Index(b, mark); i >= 0 {
		rest := b[i+len(mark):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && j < 512 {
			return string(rest[:j])
		}
	}
	return ""
}

// guardshIDs are the build IDs that make a program guardsh: the running
// program's (guardsh, or a binary that embeds its interpreter) and those
// of the guardsh installed next to it and on the PATH it started with.
var guardshIDs = sync.OnceValue(func() map[string]bool {
	ids := map[string]bool{}
	add := func(p string) {
		if id := goBuildID(p); id != "" {
			ids[id] = true
		}
	}
	if exe, err := os.Executable(); err == nil {
		add(exe)
		add(filepath.Join(filepath.Dir(exe), "guardsh"))
	}
	if p, err := exec.LookPath("guardsh"); err == nil {
		add(p)
	}
	return ids
})

// IsGuardshBinary reports whether the program file at path is guardsh by
// identity (its Go build ID; see above), whatever its name.
func IsGuardshBinary(path string) bool {
	id := goBuildID(path)
	return id != "" && guardshIDs()[id]
}

// openRegular opens path for reading without blocking (a FIFO swapped in
// after a Stat would block an ordinary open until a writer comes) and only
// if it is a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, os.ErrInvalid
	}
	return f, nil
}
