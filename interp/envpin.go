package interp

import (
	"fmt"
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
	// start is the whole environment at session start: in strict mode a
	// program receives a variable the policy does not let scripts set
	// (LD_PRELOAD, GIT_*, PAGER, HOME ...) only with this value.
	start map[string]string
}

// newEnvPin records the session's settings from its starting environment.
func newEnvPin(env []string) envPin {
	p := envPin{set: true, start: map[string]string{}}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p.start[k] = v
		}
		if v, ok := strings.CutPrefix(kv, "GUARDSH_CONFIG="); ok {
			p.config = v
		}
	}
	return p
}

// modeRank orders modes from the most permissive to the strictest.
var modeRank = map[guardsh.Mode]int{guardsh.ModeBypass: 0, guardsh.ModeAuto: 1, guardsh.ModeEdits: 2, guardsh.ModeDefault: 3, guardsh.ModePlan: 4, guardsh.ModeStrict: 5}

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
	if dirs := g.policy.StrictProgramDirs(); dirs != nil {
		out = g.strictEnv(out, dirs)
	}
	if mode != "" {
		out = append(out, "GUARDSH_MODE="+string(mode))
	}
	if g.cfg.pin.config != "" {
		out = append(out, "GUARDSH_CONFIG="+g.cfg.pin.config)
	}
	return out
}

// strictEnv is the strict-mode part of pinEnv: PATH is the program
// directories (a wrapper such as timeout or env looks its command up
// there, never in the project), and a variable the policy does not let
// scripts set keeps its value from the session start (dropped if it had
// none), whatever the script assigned or exported. Each variable reset is
// reported once on the session's stderr.
func (g *Runner) strictEnv(list []string, dirs []string) []string {
	out := list[:0:0]
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" {
			continue
		}
		if !g.policy.StrictEnvAllowed(k) {
			if sv, ok := g.cfg.pin.start[k]; !ok || sv != v {
				if _, seen := g.sh.strictEnvWarned.LoadOrStore(k, true); !seen && g.cfg.Stderr != nil {
					what := "is not passed to"
					if ok {
						what = "keeps its value from the session start for"
					}
					fmt.Fprintf(g.cfg.Stderr, "guardsh: strict: %s %s the programs this script runs (a human may allow it: [strict] env = [%q])\n", k, what, k)
				}
				if ok {
					out = append(out, k+"="+sv)
				}
				continue
			}
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+strings.Join(dirs, ":"))
}
