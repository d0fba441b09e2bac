package agentloop

import (
	"fmt"
	"strings"
)

// Reaper is a Shell that can stop what its commands left running: a
// background job, a program that left run_shell's process groups (setsid,
// a daemon). Run calls Reap when the loop ends, before the final
// checkpoint, diff and verification are reported, so that nothing the
// model started changes the project after the run said what changed.
type Reaper interface {
	// Reap stops every process the commands started that still runs
	// and returns them as "pid (name)".
	Reap() []string
}

// reap stops what the shell's commands left running, and says so.
func (a *agent) reap() {
	r, ok := a.shell.(Reaper)
	if !ok {
		return
	}
	stopped := r.Reap()
	if len(stopped) == 0 {
		return
	}
	fmt.Fprintf(a.out, "stopped %d process(es) the commands left running: %s\n", len(stopped), strings.Join(stopped, ", "))
	a.log("reap", map[string]any{"stopped": stopped})
}
