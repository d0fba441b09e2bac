package main

// Escalation: a command a human approved that needs more than the session
// sandbox (the network, a write outside the project) is run by the agent's
// process, the privileged side, which decides again by itself. The logic is
// interp's (escalate.go there), shared with cmd/guardsh's broker: the
// confined session cannot obtain rights the agent's own policy and gate
// would not give. What is the agent's own is who is asked: its gate.

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// brokerCheck is the agent's decision on an escalation request
// (interp.BrokerCheck): the command is classified again by the agent's
// policy; a denied command is refused; rights that no rule grants need a
// human's yes at the agent's gate.
func brokerCheck(local *interp.Runner, policy *guardsh.Policy, project, home string) func(sandbox.Request) (sandbox.Rights, error) {
	return interp.BrokerCheck(policy, project, home, func(c guardsh.Command, v guardsh.Verdict, want sandbox.Rights) error {
		rights := cmp.Or(interp.RightsText(want), "nothing more")
		ask := guardsh.Verdict{Decision: guardsh.Ask, Rule: v.Rule,
			Reason:  "the privileged side runs it outside the sandbox with " + rights,
			Effects: interp.EscalationEffects(want)}
		if local.Gatekeep(context.Background(), c, ask, "").Decision == guardsh.Allow {
			return nil
		}
		return fmt.Errorf("guardsh: not run: %q needs %s beyond the sandbox and no human at the terminal approved it. Ask the user to approve it interactively, or to add a rule granting these rights to the config", strings.Join(c.Args, " "), rights)
	})
}

// escalateThrough is the session's interp.Config.Escalate: the approved
// command runs on the agent's side, which decides again (brokerCheck).
func escalateThrough(c *sandbox.Client) interp.EscalateFunc {
	return interp.EscalateThrough(c)
}
