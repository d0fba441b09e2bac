package guardsh

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Under guardsh --launch the agent runs in a private mount namespace in
// which /bin/bash, /usr/bin/bash and the login shell are guardsh (bind
// mounts of the launcher's copy). The real shells stay reachable for
// guardsh alone to find: each is bind-mounted onto a file in a directory
// named RealShellDir inside the launcher's private shim directory, which
// no session can write. guardsh finds them in its mount table (what is
// mounted, not a variable a process could set) and checks each is a
// program that is not guardsh.

// RealShellDir is the name of the directory, inside the launcher's shim
// directory, where the launcher binds the real shells it replaced.
const RealShellDir = "guardsh-real"

// RealShells returns the real shells the launcher set aside in this mount
// namespace, by the name they replaced (bash, sh, zsh, ...): nil outside a
// launcher's namespace.
func RealShells() map[string]string { return realShells() }

var realShells = sync.OnceValue(func() map[string]string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out map[string]string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		p := unescapeMountPath(f[4])
		if filepath.Base(filepath.Dir(p)) != RealShellDir {
			continue
		}
		name := filepath.Base(p)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 || IsGuardshBinary(p) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = p
	}
	return out
})

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space,
// \011, \012, \134).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
