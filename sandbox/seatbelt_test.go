package sandbox

import (
	"strings"
	"testing"
)

func TestSeatbeltProfile(t *testing.T) {
	extra := canon(t.TempDir()) // an approved write must exist (see Config.With)
	c := Config{Project: "/Users/me/src/app", TmpDir: "/var/folders/x/T/guardsh-1", SharedTmp: true,
		Protected: []string{"/Users/me/src/app/.git/hooks", "/Users/me/src/app/.git/config", "/Users/me/.ssh"}}
	tests := []struct {
		name    string
		c       Config
		want    []string
		notWant []string
	}{
		{"default", c, []string{
			"(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n",
			`(subpath "/Users/me/src/app")`,
			`(subpath "/var/folders/x/T/guardsh-1")`, `(subpath "/private/var/folders/x/T/guardsh-1")`,
			`(subpath "/tmp")`, `(subpath "/private/tmp")`,
			`(literal "/dev/null")`,
			"(deny file-write*\n  (subpath \"/Users/me/src/app/.git/hooks\")\n  (subpath \"/Users/me/src/app/.git/config\")\n  (subpath \"/Users/me/.ssh\")\n",
			"(deny network*)\n",
			`(allow network-outbound (remote unix-socket (path-regex #"^/Users/me/src/app/")))`,
			`(allow network-outbound (remote unix-socket (path-regex #"^/private/tmp/")))`,
			"(deny process-info* (target others))", "(deny signal (target others))",
		}, []string{"mDNSResponder", "(allow network*)\n"}},
		{"network approved", c.With(Rights{Network: true, Writes: []string{extra}}),
			[]string{`(subpath "` + extra + `")`}, []string{"(deny network*)"}},
		{"no shared tmp", Config{Project: "/p", Protected: []string{`/p/we"ird\.x`}},
			[]string{`(subpath "/p/we\"ird\\.x")`}, []string{`(subpath "/tmp")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := SeatbeltProfile(tt.c)
			for _, w := range tt.want {
				if !strings.Contains(p, w) {
					t.Errorf("profile lacks %q:\n%s", w, p)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(p, w) {
					t.Errorf("profile has %q:\n%s", w, p)
				}
			}
			// The protected paths must be denied after the writable roots
			// are allowed: in SBPL the last matching rule wins.
			if i, j := strings.Index(p, "(allow file-write*"), strings.LastIndex(p, "(deny file-write*"); len(tt.c.Protected) > 0 && j < i {
				t.Errorf("protected paths denied before the roots are allowed:\n%s", p)
			}
			if strings.Count(p, "(") != strings.Count(p, ")") {
				t.Errorf("unbalanced parentheses:\n%s", p)
			}
		})
	}
}
