package main

// The advisor's second opinion in guardsh --hook (docs/advisor.md): a
// command the rules allow is also rated by the configured model before
// the agent runs it itself (outside guardsh, unsandboxed). A rating at or
// above the threshold turns the answer into a deny (advisor.destructive);
// no rating leaves the allow and says "advisor unavailable: <why>" in the
// answer's reason and on stderr. With --rewrite the hook does not ask:
// the command runs under guardsh -c, which rates each command as it runs
// (with the values of variables).

import (
	"context"
	"fmt"
	"io"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/interp"
)

// hookAdvise asks the advisor about d's command when the rules allowed it
// and the configuration turns the advisor on; it updates d (verdict,
// audit part, note for the answer).
// getenv looks up OLLAMA_HOST (the default host).
func hookAdvise(ctx context.Context, opts hookOptions, ev hookEvent, d *hookDecision, getenv func(string) string, stderr io.Writer) {
	if d.v.Decision != guardsh.Allow || opts.rewrite || d.cfg == nil || !d.cfg.Advisor.Enabled {
		return
	}
	var a interp.Advisor
	if adv, err := advisor.FromConfig(d.cfg.Advisor, getenv); err != nil || adv == nil {
		why := "advisor not configured"
		if err != nil {
			why = err.Error()
		}
		a = interp.UnavailableAdvisor(why, d.cfg.Advisor.Limit())
	} else {
		a = adv
	}
	q := advisor.Request{
		Command:   guardsh.Command{Dir: ev.Dir, Project: d.project, Home: d.home, Via: "hook"},
		Statement: ev.Command,
		Writes:    true,
	}
	if a.Threshold() <= 0 {
		d.v, d.advised = interp.DryRunVerdict(d.v)
		return
	}
	r, err := a.Ask(ctx, q)
	if err != nil {
		why := "advisor unavailable: " + err.Error()
		fmt.Fprintf(stderr, "guardsh: %s\n", why)
		d.advised = &audit.Advisor{Error: why}
		d.note = why
		return
	}
	d.advised = interp.RatingAudit(r)
	if r.Percent >= a.Threshold() {
		d.v = guardsh.Verdict{Decision: guardsh.Deny, Rule: interp.RuleAdvisorDestructive,
			Reason:  fmt.Sprintf("the advisor rated this command %d%% likely to irreversibly destroy data", r.Percent),
			Hint:    "Narrow the target or run it yourself if this is intentional.",
			Effects: d.v.Effects}
		return
	}
	d.note = fmt.Sprintf("advisor: %d%% (threshold %d%%)", r.Percent, a.Threshold())
}
