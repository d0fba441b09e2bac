package guardsh

import (
	"strings"
	"testing"
)

// TestLaunchApprovalConfig: [launch] bind_sh and [approval]
// terminal_prompt come from the user file only; a project file's, trusted
// or not, are ignored with a warning naming the line.
func TestLaunchApprovalConfig(t *testing.T) {
	const both = "[launch]\nbind_sh = true\n\n[approval]\nterminal_prompt = true\n"
	for _, tc := range []struct {
		name          string
		user, project string
		trust         bool
		want          bool
		warn          []string
	}{
		{"none", "", "", false, false, nil},
		{"user file", both, "", false, true, nil},
		{"user file off", "[launch]\nbind_sh = false\n[approval]\nterminal_prompt = false\n", "", false, false, nil},
		{"project file", "", both, false, false, []string{".guardsh.toml:2:1: launch.bind_sh ignored", ".guardsh.toml:5:1: approval.terminal_prompt ignored"}},
		{"trusted project file", "", both, true, false, []string{"launch.bind_sh ignored", "approval.terminal_prompt ignored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadTestConfig(t, tc.user, tc.project, tc.trust, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if c.Launch.BindSh != tc.want || c.Approval.TerminalPrompt != tc.want {
				t.Errorf("bind_sh %v, terminal_prompt %v; want %v", c.Launch.BindSh, c.Approval.TerminalPrompt, tc.want)
			}
			all := strings.Join(c.Warnings, "\n")
			for _, w := range tc.warn {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
			if len(tc.warn) == 0 && all != "" {
				t.Errorf("unexpected warnings:\n%s", all)
			}
		})
	}
}
