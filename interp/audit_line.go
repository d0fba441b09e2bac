package interp

import (
	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

// auditLine records the refusal of a whole script or command line by the
// line check (Policy.LineCheck: fork bombs, code fed to a shell), which no
// simple command's decision shows. The runner calls it where it refuses the
// line.
func (g *Runner) auditLine(src string, v guardsh.Verdict) {
	a := g.cfg.Audit
	if a == nil {
		return
	}
	if len(src) > 4096 {
		src = src[:4096] + "..."
	}
	a.Decide(&audit.Record{
		Cwd: g.r.Dir, Project: g.cfg.Project, Argv: []string{src}, Via: "line",
		Mode: g.policy.Mode, Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason,
		Effects: v.Effects, Sandbox: g.cfg.Sandbox,
	})
}
