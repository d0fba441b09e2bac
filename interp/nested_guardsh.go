package interp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/shellargs"
	"mvdan.cc/sh/v3/interp"
)

// A guardsh that a command of the session starts (`guardsh -c CMD`,
// `guardsh script.sh`) runs in this interpreter, like a nested bash: with
// the session's policy (or the stricter mode it asks for), handlers,
// advisor and audit log. Started as a program inside the session's
// sandbox it could do neither of the last two (the advisor's privileged
// side and the audit log are out of a confined process's reach), so the
// commands of `guardsh x.sh` would run unrated and unlogged. Its tools
// (--check, --hook, --audit, ...), --help, --version, interactive use and
// options this runner does not know still start the program.

// selfInfo is this program's file, to recognise it under any name.
var selfInfo = sync.OnceValue(func() os.FileInfo {
	p, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	return fi
})

// isSelf reports whether the program at path is guardsh: this binary (a
// hard link or rename of it), or by identity a copy of it or of the
// installed guardsh (guardsh.IsGuardshBinary: the Go build ID).
func isSelf(path string) bool {
	if me := selfInfo(); me != nil {
		if fi, err := os.Stat(path); err == nil && os.SameFile(me, fi) {
			return true
		}
	}
	return guardsh.IsGuardshBinary(path)
}

// judgeAsGuardsh decides a guardsh started under another name found on
// PATH (cp guardsh ./gs; PATH=.:$PATH gs ...) as the guardsh it is: the
// policy judged the name, which says nothing. Names that say guardsh, and
// paths (which the policy resolves and recognises itself), were judged so
// already. nil means it may run.
func (g *Runner) judgeAsGuardsh(ctx context.Context, hc interp.HandlerContext, path string, args []string) error {
	if filepath.Base(args[0]) == "guardsh" || strings.Contains(args[0], "/") {
		return nil
	}
	if v := g.decide(ctx, g.command(hc, append([]string{path}, args[1:]...))); v.Decision != guardsh.Allow {
		fmt.Fprintln(hc.Stderr, v.Message())
		return interp.ExitStatus(126)
	}
	return nil
}

// nestedLongOpts are the long options of guardsh's shell command line
// (cmd/guardsh's guardshLongOpts).
var nestedLongOpts = map[string]bool{"--mode": true, "--scrub-env!": true}

// nestedGuardsh parses a nested guardsh's command line for runInvocation:
// the invocation, the policy when it asks for a stricter mode than the
// session's (nil: the session's), and the environment changes (nil: none;
// --scrub-env removes the secret-looking variables with the built-in
// patterns). ok is false when the program must run instead.
func (g *Runner) nestedGuardsh(hc interp.HandlerContext, args []string) (inv *shellargs.Invocation, pol *guardsh.Policy, env []string, ok bool) {
	inv, err := shellargs.Parse(args[1:], args[0], nestedLongOpts)
	if err != nil || inv.Version || inv.Help || inv.Interactive {
		return nil, nil, nil, false
	}
	for _, l := range inv.Long {
		switch {
		case strings.HasPrefix(l, "--mode="):
			m, err := guardsh.ParseMode(strings.TrimPrefix(l, "--mode="))
			if err != nil {
				return nil, nil, nil, false // the program says why
			}
			if modeRank[m] > modeRank[g.policy.Mode] {
				sessionMu.RLock()
				p := *g.policy
				p.Session = slices.Clone(p.Session)
				sessionMu.RUnlock()
				p.Mode = m
				pol = &p
			}
		case l == "--scrub-env":
			var ec guardsh.EnvConfig
			_, removed := ec.Scrub(execEnv(hc))
			for _, name := range removed {
				env = append(env, envUnsetPrefix+name) // applyEnv
			}
		default:
			return nil, nil, nil, false
		}
	}
	return inv, pol, env, true
}
