package guardsh

import (
	"os"
	"strings"
	"testing"
)

// TestDebugCommand prints the checker's verdicts for GUARDSH_DEBUG (one
// script per line, in auto mode unless GUARDSH_DEBUG_MODE is set).
func TestDebugCommand(t *testing.T) {
	src := os.Getenv("GUARDSH_DEBUG")
	if src == "" {
		t.Skip("set GUARDSH_DEBUG to a script to see its verdicts")
	}
	mode := Mode(os.Getenv("GUARDSH_DEBUG_MODE"))
	if mode == "" {
		mode = ModeAuto
	}
	p := NewPolicy(mode)
	for _, line := range strings.Split(src, "\n") {
		line = strings.ReplaceAll(line, `\n`, "\n")
		sv, err := p.CheckScript(line, corpusEnv)
		t.Logf("%q => %s [%s] %s (err %v)", line, sv.Decision, sv.Rule, sv.Reason, err)
		for _, c := range sv.Commands {
			t.Logf("    %d:%d %q => %s [%s] %s", c.Line, c.Col, c.Args, c.Decision, c.Rule, c.Reason)
		}
	}
}
