package main

import "strings"

// confinedAgentMark is in the sandbox description that guardsh --launch
// --confine gives the agent it confines (launch_confine.go).
const confinedAgentMark = "agent confined by guardsh --launch --confine"

// stacksOnOuter reports whether a guardsh started inside the guardsh
// sandbox that desc describes confines its commands again instead of
// running them in that sandbox as it is. It does inside an agent confined
// by --launch --confine: that sandbox is the agent's (its network open for
// the model, its state directories writable), not one made for the
// commands, so guardsh stacks its own Landlock domain and seccomp filter
// on it (the container level: the agent's sandbox refuses the namespaces
// the full level needs). Inside a session's own sandbox, a nested guardsh
// runs its commands there: that sandbox was made for them. The marker is
// the agent's environment, which it can change: a sandbox whose network is
// open is also told by its seccomp filter (sandbox.InNetworkSandbox), which
// the callers check as well.
func stacksOnOuter(desc string) bool { return strings.Contains(desc, confinedAgentMark) }
