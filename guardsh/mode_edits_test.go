package guardsh

import (
	"strings"
	"testing"
)

// TestModeEditsTable is edits mode's table of asks and allows beside
// default and auto: the agent's file tools change the project freely,
// every shell command (redirections included) asks as in default mode, and
// what asks or is denied in auto mode stays so.
func TestModeEditsTable(t *testing.T) {
	acc := func(path string, write bool, via string) Access {
		return Access{Path: path, Resolved: path, Inside: strings.HasPrefix(path, "/p/"), Write: write,
			Dir: "/p", Project: "/p", Home: "/h", Via: via}
	}
	accesses := []struct {
		name           string
		a              Access
		def, edits, au Decision
	}{
		{"agent writes a project file", acc("/p/src/a.go", true, "agent"), Ask, Allow, Allow},
		{"agent reads a project file", acc("/p/src/a.go", false, "agent"), Allow, Allow, Allow},
		{"agent reads outside", acc("/etc/hosts", false, "agent"), Ask, Ask, Ask},
		{"agent writes outside", acc("/srv/x", true, "agent"), Ask, Ask, Ask},
		{"agent writes the shared temp dir", acc("/tmp/x", true, "agent"), Ask, Ask, Allow},
		{"agent writes agent settings", acc("/p/.claude/settings.json", true, "agent"), Ask, Ask, Ask},
		{"agent reads credentials", acc("/h/.ssh/id_ed25519", false, "agent"), Ask, Ask, Ask},
		{"agent writes a git hook", acc("/p/.git/hooks/pre-commit", true, "agent"), Deny, Deny, Deny},
		{"shell redirect into the project", acc("/p/out.txt", true, "redirect"), Ask, Ask, Allow},
	}
	for _, tt := range accesses {
		for i, m := range []Mode{ModeDefault, ModeEdits, ModeAuto} {
			want := []Decision{tt.def, tt.edits, tt.au}[i]
			if v := NewPolicy(m).ClassifyAccess(tt.a); v.Decision != want {
				t.Errorf("%s mode, %s: %s [%s] %s, want %s", m, tt.name, v.Decision, v.Rule, v.Reason, want)
			}
		}
	}
	commands := []struct {
		src            string
		def, edits, au Decision
	}{
		{"ls", Ask, Ask, Allow},
		{"go test ./...", Ask, Ask, Allow},
		{"touch a.txt", Ask, Ask, Allow},
		{"sed -i s/a/b/ x.go", Ask, Ask, Allow},
		{"echo hi", Allow, Allow, Allow},
		{"curl https://example.com", Ask, Ask, Ask},
		{"rm -rf /", Deny, Deny, Deny},
		{"git reset --hard", Deny, Deny, Deny},
	}
	for _, tt := range commands {
		for i, m := range []Mode{ModeDefault, ModeEdits, ModeAuto} {
			want := []Decision{tt.def, tt.edits, tt.au}[i]
			if sv := check(t, m, tt.src); sv.Decision != want {
				t.Errorf("%s mode, %q: %s [%s], want %s", m, tt.src, sv.Decision, sv.Rule, want)
			}
		}
	}
}

// TestModeEditsParseAndRank: the mode's names, and its place between
// default and auto for everything that compares modes.
func TestModeEditsParseAndRank(t *testing.T) {
	for _, s := range []string{"edits", "EDITS", "accept-edits", "acceptEdits"} {
		if m, err := ParseMode(s); err != nil || m != ModeEdits {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if !laxer(ModeEdits, ModeDefault) || !laxer(ModeAuto, ModeEdits) || laxer(ModeEdits, ModeAuto) {
		t.Error("laxer does not put edits between default and auto")
	}
	if !(modeStrictness(ModeDefault) > modeStrictness(ModeEdits) && modeStrictness(ModeEdits) > modeStrictness(ModeAuto)) {
		t.Error("modeStrictness does not put edits between default and auto")
	}
	// From inside an edits session, asking for auto is loosening guardsh.
	if sv := check(t, ModeEdits, "GUARDSH_MODE=auto guardsh -c ls"); sv.Decision != Deny || !mentions(sv, "guardsh.self") {
		t.Errorf("GUARDSH_MODE=auto from edits mode: %s [%s]", sv.Decision, sv.Rule)
	}
}

// TestDefaultModeFileWritePrompt: a file write asked in default mode says
// it is a file change, not a shell command, and how edits mode frees it.
func TestDefaultModeFileWritePrompt(t *testing.T) {
	v := NewPolicy(ModeDefault).ClassifyAccess(Access{Path: "a.txt", Resolved: "/p/a.txt", Inside: true, Write: true, Dir: "/p", Project: "/p", Home: "/h", Via: "agent"})
	if v.Decision != Ask || strings.Contains(v.Reason, "shell command") || !strings.Contains(v.Reason, "file change") || !strings.Contains(v.Hint, "--mode edits") {
		t.Errorf("default-mode file write: %s [%s] reason %q hint %q", v.Decision, v.Rule, v.Reason, v.Hint)
	}
}
