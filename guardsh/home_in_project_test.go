package guardsh

import "testing"

// TestHomeInsideProject: when guardsh starts in a directory that holds the
// home directory (a project root of /tmp with HOME=/tmp/u/home, or /home
// with HOME=/home/u), home is still home: deleting it, or anything in it,
// is not a delete "inside the project", in any mode.
func TestHomeInsideProject(t *testing.T) {
	env := CheckEnv{Project: "/tmp", Dir: "/tmp", Home: "/tmp/u/home"}
	cases := []struct{ src, rule string }{
		{"rm -rf ~", "rm.recursive-home"},
		{"rm -rf $HOME", "rm.recursive-home"},
		{"rm -rf /tmp/u/home", "rm.recursive-home"},
		{"rm -rf ~/src", "rm.recursive-home"},
		{"python3 <<EOF\nimport os\nos.system(\"rm -rf ~\")\nEOF", ""},
	}
	for _, mode := range []Mode{ModeDefault, ModeAuto, ModeBypass} {
		p := NewPolicy(mode)
		for _, c := range cases {
			sv, err := p.CheckScript(c.src, env)
			if err != nil {
				t.Fatalf("%s: %v", c.src, err)
			}
			lv, refused := p.LineCheck(c.src, env)
			d := sv.Decision
			if refused && lv.Decision > d {
				d = lv.Decision
			}
			if d != Deny {
				t.Errorf("mode %s: %q: %s [%s], want deny", mode, c.src, d, sv.Rule)
			}
			if c.rule != "" && sv.Rule != c.rule {
				t.Errorf("mode %s: %q: rule %s, want %s", mode, c.src, sv.Rule, c.rule)
			}
		}
		// The runner's view: argv already expanded.
		for _, args := range [][]string{{"rm", "-rf", "/tmp/u/home"}, {"rm", "-r", "/tmp/u/home/src"}} {
			v := p.Classify(Command{Args: args, Dir: "/tmp", Project: "/tmp", Home: "/tmp/u/home"})
			if v.Decision != Deny {
				t.Errorf("mode %s: %v: %s [%s], want deny", mode, args, v.Decision, v.Rule)
			}
		}
	}
}
