package interp

import (
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/expand"
)

// lookStrict is lookCommand in strict mode: a name without a slash is
// looked up only in the program directories, whatever $PATH says, and a
// name with a slash runs only if it lies in one of them. So neither
// ./bin/ls nor PATH=./bin:$PATH ever runs a file the script wrote.
func lookStrict(dirs []string, dir string, name string) (path string, status int, msg string) {
	if strings.Contains(name, "/") {
		if !guardsh.StrictProgramAllowed(dirs, dir, name) {
			return "", 126, "guardsh strict mode runs programs only from " + strings.Join(dirs, " ")
		}
		return lookCommand(dir, expand.ListEnviron(), name)
	}
	path, status, msg = lookCommand(dir, expand.ListEnviron("PATH="+strings.Join(dirs, ":")), name)
	if status == 127 {
		msg += " (strict mode looks programs up only in " + strings.Join(dirs, " ") + ")"
	}
	return path, status, msg
}
