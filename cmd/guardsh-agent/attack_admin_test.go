package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAttackAdminFromACommand: a guardsh-agent started by a command of a
// guardsh-agent run without the sandbox, with the session's marker removed
// (unset GUARDSH_AGENT, env -u, or a renamed copy the name rule does not
// know), must still refuse --admin: it is a descendant of a guardsh-agent
// process. Here the test binary plays both: it starts itself as the
// nested agent with GUARDSH_AGENT and GUARDSH_SANDBOX_RUN unset.
func TestAttackAdminFromACommand(t *testing.T) {
	dir, _ := setup(t)
	args := []string{"--admin", "--no-sandbox", "--host", "http://127.0.0.1:1", "--max-steps", "1", "--workdir", dir, "task"}
	cmd := exec.Command(os.Args[0])
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GUARDSH_AGENT=") && !strings.HasPrefix(kv, "GUARDSH_SANDBOX_RUN=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GUARDSH_AGENT_TEST_MAIN=1", "GUARDSH_AGENT_TEST_ARGS="+strings.Join(args, "\x1f"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	if !strings.Contains(errb.String(), "cannot be entered from inside") {
		t.Errorf("a guardsh-agent started by a guardsh-agent's command entered the admin context (exit %d):\nstdout: %s\nstderr: %s", cmd.ProcessState.ExitCode(), out.String(), errb.String())
	}
}
