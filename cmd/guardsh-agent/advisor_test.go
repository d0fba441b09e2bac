package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

// TestAgentAdvisor: with [advisor] on, the agent's commands are rated, in
// the sandboxed session (through the agent process: the session has no
// network) and with --no-sandbox; a command rated 90% does not run.
func TestAgentAdvisor(t *testing.T) {
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		if slices.Contains(argv, "truncate") {
			return advisortest.Rating(90, "empties the readme")
		}
		return advisortest.Rating(0, "harmless")
	})
	config := "[advisor]\nenabled = true\nmodel = \"judge:1b\"\nhost = \"" + srv.URL + "\"\n"
	for _, noSandbox := range []bool{false, true} {
		var args []string
		if noSandbox {
			args = []string{"--no-sandbox"}
		}
		before := srv.Hits()
		out, errs, audit := agentRun(t, config, []string{shellTurn("touch made; truncate -s 0 README.md; echo status $?", 0)}, args...)
		if !strings.Contains(out, "guardsh: refused [advisor.destructive]: the advisor rated this command 90% likely to irreversibly destroy data") ||
			!strings.Contains(out, "status 126") {
			t.Errorf("noSandbox=%v: no refusal in the tool result:\n%s\n%s", noSandbox, out, errs)
		}
		if !strings.Contains(audit, `"rule":"advisor.destructive"`) || !strings.Contains(audit, `"model":"judge:1b"`) {
			t.Errorf("noSandbox=%v: audit log:\n%s", noSandbox, audit)
		}
		if n := srv.Hits() - before; n != 2 {
			t.Errorf("noSandbox=%v: %d ratings asked, want 2 (touch, truncate)", noSandbox, n)
		}
		if sb := `"sandbox":"landlock`; noSandbox == strings.Contains(audit, sb) {
			t.Errorf("noSandbox=%v: the audit log's sandbox is not what this case tests:\n%s", noSandbox, audit)
		}
	}
}
