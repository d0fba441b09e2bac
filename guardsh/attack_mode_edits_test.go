package guardsh

import "testing"

// TestAttackEditsModeLoosening: from inside an edits-mode session no
// spelling of a laxer mode reaches a nested guardsh, and from default mode
// edits itself is a loosening (in every spelling of its name); asking for
// a stricter mode is not refused. Verdicts only.
func TestAttackEditsModeLoosening(t *testing.T) {
	tests := []struct {
		mode Mode
		src  string
		deny bool
	}{
		{ModeEdits, "guardsh --mode auto -c ls", true},
		{ModeEdits, "guardsh --mode=bypass -c ls", true},
		{ModeEdits, "export GUARDSH_MODE=auto", true},
		{ModeEdits, "declare -x GUARDSH_MODE=AUTO", true},
		{ModeEdits, "env GUARDSH_MODE=auto guardsh -c ls", true},
		{ModeEdits, "bash -c 'GUARDSH_MODE=bypass guardsh -c ls'", true},
		{ModeDefault, "GUARDSH_MODE=accept-edits guardsh -c ls", true},
		{ModeDefault, "GUARDSH_MODE=acceptEdits guardsh -c ls", true},
		{ModeDefault, "guardsh --mode edits -c ls", true},
		{ModePlan, "export GUARDSH_MODE=edits", true},
		{ModeEdits, "GUARDSH_MODE=default guardsh -c ls", false},
		{ModeEdits, "guardsh --mode plan -c ls", false},
	}
	for _, tt := range tests {
		sv := check(t, tt.mode, tt.src)
		if got := sv.Decision == Deny && mentions(sv, "guardsh.self"); got != tt.deny {
			t.Errorf("%s mode, %q: %s [%s], want guardsh.self deny %v", tt.mode, tt.src, sv.Decision, sv.Rule, tt.deny)
		}
	}
}
