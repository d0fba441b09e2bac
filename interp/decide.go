package interp

import (
	"context"

	"github.com/guardsh/guardsh/guardsh"
)

// decide asks the policy about one command; an ask goes to the gate, and an
// ask that no gate approves is refused.
func (g *Runner) decide(ctx context.Context, c guardsh.Command) guardsh.Verdict {
	v := g.policy.Classify(c)
	if v.Decision == guardsh.Ask && g.ask(ctx, c.Args, v) {
		v.Decision = guardsh.Allow
	}
	return v
}

// ask puts an ask verdict before the gate and reports whether it was
// approved. Placeholder until the gate lands (issue 3): nothing is approved.
func (g *Runner) ask(ctx context.Context, what []string, v guardsh.Verdict) bool {
	return false
}
