package guardsh

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// A shell is a shell by identity too, not by name: a copy, hard link or
// link of bash (cp /bin/bash ./b; ./b -c CMD) is bash, whose -c text the
// rules judge and the runner runs in its own interpreter. Identity is the
// file: the same file as the shell a name resolves to, or a file of the
// same size and content (sha256). Only files as large as one of the
// installed shells are read.

// identityShells are the shells recognised under another name, in the
// order a match is reported (sh is usually dash or bash itself).
var identityShells = []string{"bash", "dash", "sh", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash", "posh", "rbash"}

type shellFile struct {
	name string
	path string
	fi   os.FileInfo
	sum  func() [sha256.Size]byte
}

// installedShells are the shells found on the PATH guardsh started with, in
// /bin and /usr/bin, and the real shells a launcher set aside (RealShells).
var installedShells = sync.OnceValue(func() []shellFile {
	var out []shellFile
	seen := map[string]bool{}
	for _, name := range identityShells {
		cands := []string{"/bin/" + name, "/usr/bin/" + name}
		if p, err := exec.LookPath(name); err == nil {
			cands = append([]string{p}, cands...)
		}
		if p := RealShells()[name]; p != "" {
			// under guardsh --launch, /bin/bash is guardsh: the real
			// shell it replaced is still bash by identity
			cands = append(cands, p)
		}
		for _, p := range cands {
			rp, err := filepath.EvalSymlinks(p)
			if err != nil || seen[name+"\x00"+rp] {
				continue
			}
			fi, err := os.Stat(rp)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			seen[name+"\x00"+rp] = true
			out = append(out, shellFile{name: name, path: rp, fi: fi, sum: sync.OnceValue(func() [sha256.Size]byte {
				s, _ := fileSum(rp)
				return s
			})})
		}
	}
	return out
})

func fileSum(p string) ([sha256.Size]byte, bool) {
	f, err := openRegular(p)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [sha256.Size]byte{}, false
	}
	var s [sha256.Size]byte
	copy(s[:], h.Sum(nil))
	return s, true
}

// ShellByIdentity returns the name of the installed shell that the program
// file at path is (the same file, or a copy of it), "" if it is none.
func ShellByIdentity(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	var sum *[sha256.Size]byte
	for _, s := range installedShells() {
		if os.SameFile(fi, s.fi) {
			return s.name
		}
		if fi.Size() != s.fi.Size() {
			continue
		}
		if sum == nil {
			v, ok := fileSum(path)
			if !ok {
				return ""
			}
			sum = &v
		}
		if want := s.sum(); bytes.Equal(sum[:], want[:]) {
			return s.name
		}
	}
	return ""
}
