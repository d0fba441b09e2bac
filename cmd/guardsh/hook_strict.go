package main

import (
	"fmt"
	"os"

	"github.com/guardsh/guardsh/guardsh"
)

// strictHookRewrite turns --rewrite on for a hook decision in strict mode.
// The checker's strict verdicts rely on guardsh's runner: it decides the
// commands of bash ./x.sh one by one, resets variables such as LD_PRELOAD
// and PATH that scripts may not set, and runs programs only from the
// system directories. The agent's own shell does none of that, so in
// strict mode an allowed command always runs under guardsh -c.
func strictHookRewrite(opts hookOptions, mode guardsh.Mode) (hookOptions, error) {
	if mode != guardsh.ModeStrict || opts.rewrite {
		return opts, nil
	}
	exe, err := defaultExe()
	if err != nil {
		return opts, fmt.Errorf("strict mode runs allowed commands under guardsh, whose binary cannot be found: %v", err)
	}
	opts.rewrite, opts.exe = true, exe
	return opts, nil
}

// defaultExe is guardsh's own binary, as --rewrite names it.
func defaultExe() (string, error) { return os.Executable() }
