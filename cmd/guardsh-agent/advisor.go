package main

// The advisor's second opinion for the agent's commands (docs/advisor.md):
// the agent process (outside the sandbox) owns the advisor and its cache;
// the sandboxed session asks it over the broker's channel; with the
// sandbox off the local runner asks it directly.

import (
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// agentAdvisor is the agent's advisor, nil when the configuration leaves
// it off (set by run before the session starts).
var agentAdvisor interp.Advisor

// newAgentAdvisor returns the advisor cfg asks for (nil: off); getenv looks
// up OLLAMA_HOST, the default host (the agent's own Ollama).
func newAgentAdvisor(cfg *guardsh.Config, getenv func(string) string) interp.Advisor {
	if cfg == nil {
		return nil
	}
	return interp.NewAdvisor(cfg.Advisor, getenv)
}

// agentBrokerAdvise answers the sandboxed session's advise requests.
func agentBrokerAdvise(project, home string) sandbox.AdviseFunc {
	if agentAdvisor == nil {
		return nil
	}
	return interp.BrokerAdvise(agentAdvisor, project, home)
}

// sessionAdvisor is the sandboxed session's advisor: the agent's, through
// the broker channel cl (nil when the advisor is off or there is no
// channel).
func sessionAdvisor(cfg *guardsh.Config, cl *sandbox.Client) interp.Advisor {
	if cfg == nil || !cfg.Advisor.Enabled || cl == nil {
		return nil
	}
	return interp.AdviseThrough(cl, cfg.Advisor.Limit())
}
