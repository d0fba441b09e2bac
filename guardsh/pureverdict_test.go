package guardsh

import (
	"slices"
	"testing"
)

// TestPureVerdict: a pure builtin's verdict depends on its name alone only
// while no configured rule or session approval can match that name.
func TestPureVerdict(t *testing.T) {
	deny := func(prefix ...string) Rule { return Rule{ID: "user.x", Decision: Deny, Prefix: prefix} }
	tests := []struct {
		name    string
		rules   []Rule
		session []Rule
		cmd     string
		want    bool
	}{
		{"no rules", nil, nil, "[", true},
		{"not a builtin", nil, nil, "rm", false},
		{"function-ish name", nil, nil, "deploy", false},
		{"rule for another command", []Rule{deny("git", "push")}, nil, "echo", true},
		{"rule for the name", []Rule{deny("echo", "secret")}, nil, "echo", false},
		{"rule for the name, other builtin", []Rule{deny("echo", "secret")}, nil, "test", true},
		{"glob rule", []Rule{deny("ech?")}, nil, "echo", false},
		{"star rule", []Rule{deny("*", "x")}, nil, "[", false},
		{"bracket glob", []Rule{deny("[[]")}, nil, "[", false},
		{"malformed glob is conservative", []Rule{deny("[")}, nil, "true", false},
		{"session approval for the name", nil, []Rule{{ID: "session.approval", Decision: Allow, Prefix: []string{"cd", "/x", "$"}}}, "cd", false},
		{"session approval for another", nil, []Rule{{ID: "session.approval", Decision: Allow, Prefix: []string{"git", "push", "*"}}}, "cd", true},
		{"empty prefix matches nothing", []Rule{{ID: "user.empty", Decision: Deny}}, nil, "echo", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Policy{Mode: ModeAuto, Rules: tt.rules, Session: tt.session}
			v, ok := p.PureVerdict(tt.cmd)
			if ok != tt.want {
				t.Fatalf("PureVerdict(%q) ok = %v, want %v", tt.cmd, ok, tt.want)
			}
			if ok && (v.Decision != Allow || v.Rule != pureVerdict.Rule || v.Reason != pureVerdict.Reason) {
				t.Fatalf("PureVerdict(%q) = %+v", tt.cmd, v)
			}
		})
	}
}

// TestPureVerdictSameAsFullClassification: where PureVerdict answers, the
// full classification (rules applied) gives the same verdict, in every mode,
// so the shortcut never changes a decision (pwd excepted, see below).
func TestPureVerdictSameAsFullClassification(t *testing.T) {
	names := []string{"[", "test", "true", "false", ":", "echo", "printf", "cd", "pwd", "unset", "set", "shift",
		"return", "break", "continue", "read", "wait", "getopts", "let", "shopt", "umask", "jobs", "hash", "type",
		"times", "caller", "mapfile", "readarray"}
	argSets := [][]string{nil, {"hi"}, {"-f", "/etc/shadow", "]"}, {"/"}, {"-v", "GUARDSH_MODE", "bypass"},
		{"GUARDSH_MODE"}, {"-o", "posix"}, {"000"}, {"-p", "/bin/rm", "ls"}, {"~/.ssh"}, {"$HOME", "*"}}
	rules := []Rule{{ID: "user.push", Decision: Deny, Prefix: []string{"git", "push", "*"}},
		{ID: "user.rm", Decision: Ask, Prefix: []string{"rm", "*"}}}
	for _, m := range []Mode{ModeDefault, ModePlan, ModeAuto, ModeBypass} {
		p := &Policy{Mode: m, Rules: rules}
		for _, name := range names {
			if _, ok := p.PureVerdict(name); !ok {
				t.Fatalf("%s: PureVerdict(%q) not ok", m, name)
			}
			for _, a := range argSets {
				args := append([]string{name}, a...)
				c := Command{Args: args, Dir: "/tmp/p", Project: "/tmp/p", Home: "/root", Env: func(string) string { return "" }}
				full := p.classifyArgs(&c, args, 0, false) // rules applied
				got := p.Classify(c)
				if name == "pwd" {
					// The no-rules shortcut always allowed pwd as
					// shell.builtin; the full path calls it read.only,
					// which default mode asks for: with any rule
					// configured, pwd used to be asked in default mode.
					// It is allowed now, as without rules.
					continue
				}
				if full.Decision != got.Decision || full.Rule != got.Rule ||
					!slices.Equal(full.Effects.Reads, got.Effects.Reads) || !slices.Equal(full.Effects.Writes, got.Effects.Writes) {
					t.Errorf("%s %q: full %+v, shortcut %+v", m, args, full, got)
				}
			}
		}
	}
}

// TestPureVerdictOnlyInKnownModes: a mode PureVerdict does not know may
// judge builtins by their arguments; runners then ask Classify every time.
func TestPureVerdictOnlyInKnownModes(t *testing.T) {
	for _, m := range []Mode{ModeDefault, ModePlan, ModeAuto, ModeBypass} {
		if _, ok := (&Policy{Mode: m}).PureVerdict("cd"); !ok {
			t.Errorf("%s: no shortcut for cd", m)
		}
	}
	if _, ok := (&Policy{Mode: Mode("future")}).PureVerdict("cd"); ok {
		t.Error("unknown mode: shortcut for cd")
	}
}
