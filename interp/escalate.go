package interp

// Escalation, both sides of it. A command a human approved that needs more
// than the session sandbox (the network, a write outside the project) is
// sent by the confined interpreter (EscalateThrough, its Config.Escalate)
// to the privileged side over the broker's socketpair; the privileged side
// decides again by itself (BrokerCheck, sandbox.NewBroker's check), so a
// compromised interpreter gains nothing. cmd/guardsh and cmd/guardsh-agent
// both use these; what differs between them (who is asked, and how the
// refusal reads) is their EscalationApprover.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/gitsafe"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// EscalateFunc is the type of Config.Escalate.
type EscalateFunc = func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error

// EscalationApprover asks a human on the privileged side about an
// escalation request that no rule of its policy grants. cmd is the request
// as the privileged side classified it (Via "broker"), v its own verdict on
// it (Allow without a rule granting want, or Ask), want the rights asked
// for. It returns nil when a human approved, else the refusal to send back
// to the interpreter (a message for whoever runs the command).
type EscalationApprover func(cmd guardsh.Command, v guardsh.Verdict, want sandbox.Rights) error

// BrokerCheck returns the privileged side's decision on an escalation
// request, for sandbox.NewBroker: the command is classified again by
// policy (the privileged side's own, out of the interpreter's reach), with
// the request's environment; a denied command is refused with the verdict's
// message; an allowed one whose rule grants the rights asked for
// (RightsCovered) gets them; anything else gets them only if approve says
// yes.
func BrokerCheck(policy *guardsh.Policy, project, home string, approve EscalationApprover) func(sandbox.Request) (sandbox.Rights, error) {
	return func(req sandbox.Request) (sandbox.Rights, error) {
		lookup := func(name string) string {
			for _, e := range slices.Backward(req.Env) {
				if v, ok := strings.CutPrefix(e, name+"="); ok {
					return v
				}
			}
			return ""
		}
		if norm := guardsh.NormalizeArgv(req.Args); len(norm) > 0 && norm[0] == "git" && filepath.Base(req.Args[0]) != "git" {
			// the broker hardens git it starts itself (gitsafe); a wrapper
			// (env X=y git, timeout git, sh -c) would start it unhardened
			return sandbox.Rights{}, fmt.Errorf("guardsh: not run: %q starts git through %s; an escalated git must be run as git itself (the privileged side turns its hooks and programs off): %s",
				strings.Join(req.Args, " "), req.Args[0], strings.Join(norm, " "))
		}
		cmd := guardsh.Command{Args: req.Args, Dir: req.Dir, Project: project, Home: home, Env: lookup, Via: "broker"}
		v := policy.Classify(cmd)
		if v.Decision == guardsh.Deny {
			return sandbox.Rights{}, errors.New(v.Message())
		}
		want := sandbox.Rights{Network: req.Network, Writes: req.Writes}
		if w, _ := gitsafe.ParseConfigWrite(req.Args[1:], lookup); w != nil && filepath.Base(req.Args[0]) == "git" {
			// a write of the repository's config, which the broker makes
			// itself: only a human's approval covers it, one that named
			// every option of the command line (an approval of git config
			// user.name X is not one of git config --unset user.name)
			if v.Decision == guardsh.Allow && RightsCovered(want, policy, v.Rule) && ruleNames(policy, v.Rule, w.NamedOptions()) {
				return want, nil
			}
			if v.Decision == guardsh.Allow {
				v.Decision, v.Reason = guardsh.Ask, "git writes the repository's config, which the sandbox protects: "+strings.Join(req.Args, " ")
			}
			if err := approve(cmd, v, want); err != nil {
				return sandbox.Rights{}, err
			}
			return want, nil
		}
		if v.Decision == guardsh.Allow && RightsCovered(want, policy, v.Rule) {
			return want, nil
		}
		if err := approve(cmd, v, want); err != nil {
			return sandbox.Rights{}, err
		}
		return want, nil
	}
}

// ruleNames reports whether the configured rule or session approval ruleID
// of p names every word of opts in its prefix (or, an approval, among the
// options the human saw).
func ruleNames(p *guardsh.Policy, ruleID string, opts []string) bool {
	for _, rules := range [][]guardsh.Rule{p.Rules, p.Session} {
		for _, r := range rules {
			if r.ID != ruleID || r.Decision == guardsh.Deny {
				continue
			}
			for _, o := range opts {
				if !slices.Contains(r.Prefix, o) && !slices.Contains(r.Options, o) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// RightsCovered reports whether the rule ruleID of p (a configured rule, or
// an "allow for this session" approval) grants want: the network if want
// has it, and every write in want lying within one of the rule's write
// paths. Without such a rule only wanting nothing is covered.
func RightsCovered(want sandbox.Rights, p *guardsh.Policy, ruleID string) bool {
	for _, rules := range [][]guardsh.Rule{p.Rules, p.Session} {
		for _, r := range rules {
			if r.ID != ruleID || r.Decision == guardsh.Deny {
				continue
			}
			if want.Network && !r.Network {
				return false
			}
			for _, w := range want.Writes {
				ok := false
				for _, rw := range r.Write {
					if rel, err := filepath.Rel(rw, w); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
						ok = true
					}
				}
				if !ok {
					return false
				}
			}
			return true
		}
	}
	return !want.Network && len(want.Writes) == 0
}

// EscalationEffects are the effects of a command that gets rights r, for
// the verdict an EscalationApprover puts before a gate.
func EscalationEffects(r sandbox.Rights) guardsh.Effects {
	return guardsh.Effects{Network: r.Network, Writes: r.Writes}
}

// RightsText says what r grants, for messages: "network access",
// "writes to /a, /b", or both joined by "and"; "" when r grants nothing
// (the caller words that case for its sentence).
func RightsText(r sandbox.Rights) string {
	var parts []string
	if r.Network {
		parts = append(parts, "network access")
	}
	if len(r.Writes) > 0 {
		parts = append(parts, "writes to "+strings.Join(r.Writes, ", "))
	}
	return strings.Join(parts, " and ")
}

// EscalateThrough returns the confined interpreter's Config.Escalate: the
// approved command is sent through c to the privileged side, with the
// exported environment, the working directory, the rights in v.Effects and
// the handler's stdio (as files; pipes and copiers where they are not), and
// its exit status comes back. A refusal is printed on the command's stderr;
// an unreachable privileged side or no stdio is status 126.
func EscalateThrough(c *sandbox.Client) EscalateFunc {
	return func(ctx context.Context, hc interp.HandlerContext, args []string, v guardsh.Verdict) error {
		var env []string
		hc.Env.Each(func(name string, vr expand.Variable) bool {
			if vr.Exported && vr.IsSet() {
				env = append(env, name+"="+vr.String())
			}
			return true
		})
		files, cleanup, err := stdioFiles(hc)
		if err != nil {
			fmt.Fprintf(hc.Stderr, "guardsh: %s: %v\n", args[0], err)
			return interp.ExitStatus(126)
		}
		resp, err := c.Run(sandbox.Request{Args: args, Dir: hc.Dir, Env: env, Network: v.Effects.Network, Writes: v.Effects.Writes},
			files[0], files[1], files[2])
		cleanup()
		if err != nil {
			fmt.Fprintf(hc.Stderr, "guardsh: %s: privileged side unreachable: %v\n", args[0], err)
			return interp.ExitStatus(126)
		}
		if resp.Err != "" {
			fmt.Fprintln(hc.Stderr, resp.Err)
		}
		if resp.Stopped {
			// The privileged side is stopping this command line (its
			// time limit): stop here, not at the next command once
			// the cancellation arrives.
			return context.Canceled
		}
		if resp.Status != 0 {
			return interp.ExitStatus(uint8(resp.Status))
		}
		return nil
	}
}

// stdioFiles turns the handler's stdio into files that can be passed to
// the broker, with pipes and copiers where they are not files. cleanup
// closes the pipes and waits for the copiers to finish.
func stdioFiles(hc interp.HandlerContext) ([3]*os.File, func(), error) {
	var files [3]*os.File
	var closers []io.Closer
	done := make(chan struct{}, 3)
	waits := 0
	cleanup := func() {
		for _, c := range closers {
			c.Close()
		}
		for ; waits > 0; waits-- {
			<-done
		}
	}
	if f, ok := hc.Stdin.(*os.File); ok && f != nil {
		files[0] = f
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return files, cleanup, err
		}
		files[0] = r
		closers = append(closers, r)
		go func() {
			if hc.Stdin != nil {
				io.Copy(w, hc.Stdin)
			}
			w.Close()
		}()
	}
	for i, wr := range []io.Writer{hc.Stdout, hc.Stderr} {
		if f, ok := wr.(*os.File); ok && f != nil {
			files[i+1] = f
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			return files, cleanup, err
		}
		files[i+1] = w
		closers = append(closers, w)
		waits++
		go func(dst io.Writer) {
			io.Copy(dst, r)
			r.Close()
			done <- struct{}{}
		}(wr)
	}
	return files, cleanup, nil
}
