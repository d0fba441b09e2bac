package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentGitSandboxEscape: the model, through its sandboxed shell, copies
// the repository's data to a directory of its own with a config whose
// core.fsmonitor is its script, and points .git/commondir at it. The
// agent's checkpoint git runs outside the sandbox: before gitsafe it ran
// the script there (uid 0, no no_new_privs), which wrote a file the
// sandbox forbids. Now the agent refuses the redirected repository, says
// why, and the file is never written.
func TestAgentGitSandboxEscape(t *testing.T) {
	target := outsideTarget(t, ".guardsh-agent-git-escape-")
	dir, env := setup(t)
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "start")
	script := filepath.Join(dir, "tools", "c", "fsm")
	plant := `mkdir -p tools/c && cp -r .git/HEAD .git/objects .git/refs tools/c/ && ` +
		`printf '#!/bin/sh\necho escaped > ` + target + `\n' > tools/c/fsm && chmod +x tools/c/fsm && ` +
		`printf '[core]\n\tfsmonitor = ` + script + `\n' > tools/c/config && echo ../tools/c > .git/commondir; echo planted=$?`
	q, _ := json.Marshal(plant)
	out, errs := runAgentTurns(t, env, []string{"--workdir", dir, "--mode", "auto", "--test-cmd", "true", "task"},
		`[{"function":{"name":"write_file","arguments":{"path":"NOTES.md","content":"one\n"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":`+string(q)+`}}}]`,
		`[{"function":{"name":"write_file","arguments":{"path":"NOTES.md","content":"two\n"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":"true"}}}]`,
		`[{"function":{"name":"finish","arguments":{"summary":"notes"}}}]`)
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("the model's core.fsmonitor ran in the agent's own git, outside the sandbox:\n%s\n%s", out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "commondir")); err != nil {
		t.Logf("the plant itself was refused (rules or sandbox):\n%s", out)
		return
	}
	if !strings.Contains(out, "commondir") {
		t.Errorf("the agent did not say why it stopped using git:\n%s\n%s", out, errs)
	}
}
