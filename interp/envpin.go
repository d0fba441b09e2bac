package interp

import (
	"strings"

	"github.com/guardsh/guardsh/guardsh"
)

// envPin holds the guardsh settings a session hands down to every program
// it starts, whatever the script exported: a guardsh started by a command
// of this session (through the bash/sh shims, a Makefile, a script's
// shebang) must not run with a laxer mode or another configuration file
// than the session's.
type envPin struct {
	set    bool
	config string // GUARDSH_CONFIG at session start ("" = none)
}

// newEnvPin records the session's settings from its starting environment.
func newEnvPin(env []string) envPin {
	p := envPin{set: true}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GUARDSH_CONFIG="); ok {
			p.config = v
		}
	}
	return p
}

// modeRank orders modes from the most permissive to the strictest.
var modeRank = map[guardsh.Mode]int{guardsh.ModeBypass: 0, guardsh.ModeAuto: 1, guardsh.ModeDefault: 2, guardsh.ModePlan: 3}

// pinEnv rewrites a child's environment: GUARDSH_MODE is the stricter of
// the session's mode and what the script asked for (a script may tighten,
// never loosen), and GUARDSH_CONFIG is the session's.
func (g *Runner) pinEnv(list []string) []string {
	mode := g.policy.Mode
	out := list[:0:0]
	for _, kv := range list {
		switch {
		case strings.HasPrefix(kv, "GUARDSH_MODE="):
			if m, err := guardsh.ParseMode(kv[len("GUARDSH_MODE="):]); err == nil && modeRank[m] > modeRank[mode] {
				mode = m
			}
			continue
		case strings.HasPrefix(kv, "GUARDSH_CONFIG="):
			continue
		}
		out = append(out, kv)
	}
	if mode != "" {
		out = append(out, "GUARDSH_MODE="+string(mode))
	}
	if g.cfg.pin.config != "" {
		out = append(out, "GUARDSH_CONFIG="+g.cfg.pin.config)
	}
	return out
}
