package interp

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
	"mvdan.cc/sh/v3/interp"
)

func escalationPolicy() *guardsh.Policy {
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	p.Rules = []guardsh.Rule{
		{ID: "test.touch-granted", Decision: guardsh.Allow, Prefix: []string{"touch", "/grant/*"}, Write: []string{"/grant"}},
		{ID: "test.fetch", Decision: guardsh.Allow, Prefix: []string{"fetchy"}, Network: true},
		{ID: "test.ask", Decision: guardsh.Ask, Prefix: []string{"asky"}, Reason: "needs approval", Network: true},
		{ID: "test.nope", Decision: guardsh.Deny, Prefix: []string{"nope"}, Reason: "never", Write: []string{"/"}},
	}
	p.Session = []guardsh.Rule{{ID: "session.1", Decision: guardsh.Allow, Prefix: []string{"sessiony"}, Write: []string{"/s"}}}
	return p
}

// TestRightsCovered: a rule grants exactly its network and the paths within
// its write list; a path beside it ("/grant..x", "/granted") or above it is
// not within.
func TestRightsCovered(t *testing.T) {
	p := escalationPolicy()
	tests := []struct {
		name string
		want sandbox.Rights
		rule string
		ok   bool
	}{
		{"write inside", sandbox.Rights{Writes: []string{"/grant/a"}}, "test.touch-granted", true},
		{"write the root itself", sandbox.Rights{Writes: []string{"/grant"}}, "test.touch-granted", true},
		{"a name starting with dots inside", sandbox.Rights{Writes: []string{"/grant/..x"}}, "test.touch-granted", true},
		{"write beside", sandbox.Rights{Writes: []string{"/granted"}}, "test.touch-granted", false},
		{"write above", sandbox.Rights{Writes: []string{"/"}}, "test.touch-granted", false},
		{"write out by ..", sandbox.Rights{Writes: []string{"/grant/../etc"}}, "test.touch-granted", false},
		{"one of two writes outside", sandbox.Rights{Writes: []string{"/grant/a", "/etc/x"}}, "test.touch-granted", false},
		{"network not granted", sandbox.Rights{Network: true}, "test.touch-granted", false},
		{"network granted", sandbox.Rights{Network: true}, "test.fetch", true},
		{"session rule", sandbox.Rights{Writes: []string{"/s/x"}}, "session.1", true},
		{"deny rule grants nothing", sandbox.Rights{Writes: []string{"/x"}}, "test.nope", false},
		{"no rule, nothing wanted", sandbox.Rights{}, "builtin.something", true},
		{"no rule, network wanted", sandbox.Rights{Network: true}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RightsCovered(tt.want, p, tt.rule); got != tt.ok {
				t.Errorf("RightsCovered(%+v, %s) = %v, want %v", tt.want, tt.rule, got, tt.ok)
			}
		})
	}
}

func TestRightsText(t *testing.T) {
	tests := []struct {
		r    sandbox.Rights
		want string
	}{
		{sandbox.Rights{}, ""},
		{sandbox.Rights{Network: true}, "network access"},
		{sandbox.Rights{Writes: []string{"/a", "/b"}}, "writes to /a, /b"},
		{sandbox.Rights{Network: true, Writes: []string{"/a"}}, "network access and writes to /a"},
	}
	for _, tt := range tests {
		if got := RightsText(tt.r); got != tt.want {
			t.Errorf("RightsText(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestBrokerCheck: the privileged side denies what its policy denies
// without asking, grants what a rule grants without asking, and asks the
// approver about the rest, giving exactly the rights requested on a yes.
func TestBrokerCheck(t *testing.T) {
	refused := errors.New("refused by the approver")
	tests := []struct {
		name    string
		req     sandbox.Request
		answer  error // the approver's
		asked   bool
		errHas  string
		granted sandbox.Rights
	}{
		{name: "denied, not asked", req: sandbox.Request{Args: []string{"nope"}, Writes: []string{"/x"}}, errHas: "never"},
		{name: "granted by rule", req: sandbox.Request{Args: []string{"touch", "/grant/a"}, Writes: []string{"/grant/a"}},
			granted: sandbox.Rights{Writes: []string{"/grant/a"}}},
		{name: "allowed but more than the rule grants: asked, yes", req: sandbox.Request{Args: []string{"touch", "/grant/a"}, Writes: []string{"/etc/x"}},
			asked: true, granted: sandbox.Rights{Writes: []string{"/etc/x"}}},
		{name: "ask rule: asked, no", req: sandbox.Request{Args: []string{"asky"}, Network: true}, answer: refused, asked: true, errHas: refused.Error()},
		{name: "ask rule: asked, yes", req: sandbox.Request{Args: []string{"asky"}, Network: true}, asked: true, granted: sandbox.Rights{Network: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			check := BrokerCheck(escalationPolicy(), "/project", "/home/u", func(cmd guardsh.Command, v guardsh.Verdict, want sandbox.Rights) error {
				asked = true
				if cmd.Via != "broker" || !slices.Equal(cmd.Args, tt.req.Args) || cmd.Project != "/project" {
					t.Errorf("approver got command %+v", cmd)
				}
				if want.Network != tt.req.Network || !slices.Equal(want.Writes, tt.req.Writes) {
					t.Errorf("approver got rights %+v for request %+v", want, tt.req)
				}
				return tt.answer
			})
			got, err := check(tt.req)
			if asked != tt.asked {
				t.Errorf("asked = %v, want %v", asked, tt.asked)
			}
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("err = %v, want one containing %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got.Network != tt.granted.Network || !slices.Equal(got.Writes, tt.granted.Writes) {
				t.Errorf("granted %+v, want %+v", got, tt.granted)
			}
		})
	}
}

// TestBrokerCheckSessionApproval: after a human approved `git push origin
// main` for the session, the privileged side grants the network to the
// same push of another branch without asking, but asks again for a push
// carrying what the human never saw (a program-running option or config,
// another option, GIT_SSH_COMMAND in the environment), and refuses git
// started through a wrapper (it would escape the broker's hardening).
func TestBrokerCheckSessionApproval(t *testing.T) {
	c := guardsh.Command{Args: []string{"git", "push", "origin", "main"}, Dir: "/project", Project: "/project", Home: "/home/u"}
	tests := []struct {
		args   []string
		env    []string
		asked  bool
		errHas string
	}{
		{args: []string{"git", "push", "origin", "feature"}},
		{args: []string{"git", "push", "origin", "main", "--receive-pack=python3 x.py; git-receive-pack"}, asked: true},
		{args: []string{"git", "push", "--exec=python3 x.py", "origin", "main"}, asked: true},
		{args: []string{"git", "-c", "core.sshCommand=python3 x.py", "push", "origin", "main"}, asked: true},
		{args: []string{"git", "push", "origin", "main", "--no-verify"}, asked: true},
		{args: []string{"git", "push", "origin", "main"}, env: []string{"GIT_SSH_COMMAND=python3 x.py"}, asked: true},
		{args: []string{"env", "GIT_SSH_COMMAND=python3 x.py", "git", "push", "origin", "main"}, errHas: "an escalated git must be run as git itself"},
		{args: []string{"timeout", "60", "git", "push", "origin", "main"}, errHas: "an escalated git must be run as git itself"},
	}
	for _, tt := range tests {
		p := guardsh.NewPolicy(guardsh.ModeAuto)
		p.Session = []guardsh.Rule{approvalRule(c, p.Classify(c))}
		asked := false
		check := BrokerCheck(p, "/project", "/home/u", func(guardsh.Command, guardsh.Verdict, sandbox.Rights) error {
			asked = true
			return errors.New("no")
		})
		_, err := check(sandbox.Request{Args: tt.args, Dir: "/project", Env: tt.env, Network: true})
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) || asked {
				t.Errorf("%q: err = %v (asked %v), want a refusal containing %q", tt.args, err, asked, tt.errHas)
			}
			continue
		}
		if asked != tt.asked {
			t.Errorf("%q env %q: asked = %v, want %v (err %v)", tt.args, tt.env, asked, tt.asked, err)
		}
		if !tt.asked && err != nil {
			t.Errorf("%q: %v", tt.args, err)
		}
	}
}

// TestBrokerCheckEnv: the privileged side classifies with the request's
// environment, the last assignment of a name winning.
func TestBrokerCheckEnv(t *testing.T) {
	var seen string
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	check := BrokerCheck(p, "/project", "/home/u", func(cmd guardsh.Command, _ guardsh.Verdict, _ sandbox.Rights) error {
		seen = cmd.Env("X")
		return nil
	})
	if _, err := check(sandbox.Request{Args: []string{"curl", "https://example.com"}, Env: []string{"X=1", "XY=2", "X=3"}, Network: true}); err != nil {
		t.Fatal(err)
	}
	if seen != "3" {
		t.Errorf("X = %q, want 3", seen)
	}
}

// TestStdioFiles: stdio that is not a file reaches the broker's command
// through pipes, and all of its output is copied back by cleanup's end.
func TestStdioFiles(t *testing.T) {
	var out, errb bytes.Buffer
	hc := interp.HandlerContext{Stdin: strings.NewReader("input"), Stdout: &out, Stderr: &errb}
	files, cleanup, err := stdioFiles(hc)
	if err != nil {
		t.Fatal(err)
	}
	in, err := io.ReadAll(files[0])
	if err != nil || string(in) != "input" {
		t.Errorf("stdin read %q, %v", in, err)
	}
	files[1].WriteString("out")
	files[2].WriteString("err")
	cleanup()
	if out.String() != "out" || errb.String() != "err" {
		t.Errorf("stdout %q stderr %q, want out, err", out.String(), errb.String())
	}
}
