package main

// Escalation: a command a human approved that needs more than the session
// sandbox (the network, a write outside the project) is run by the agent's
// process, the privileged side, which decides again by itself. This follows
// cmd/guardsh's broker (session.go there): the confined session cannot
// obtain rights the agent's own policy and gate would not give.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
	"mvdan.cc/sh/v3/expand"
	shinterp "mvdan.cc/sh/v3/interp"
)

// brokerCheck is the agent's decision on an escalation request: the
// command is classified again by the agent's policy; a denied command is
// refused; rights that no rule grants need a human's yes at the agent's
// gate.
func brokerCheck(local *interp.Runner, policy *guardsh.Policy, project, home string) func(sandbox.Request) (sandbox.Rights, error) {
	return func(req sandbox.Request) (sandbox.Rights, error) {
		lookup := func(name string) string {
			for _, e := range slices.Backward(req.Env) {
				if v, ok := strings.CutPrefix(e, name+"="); ok {
					return v
				}
			}
			return ""
		}
		c := guardsh.Command{Args: req.Args, Dir: req.Dir, Project: project, Home: home, Env: lookup, Via: "broker"}
		v := policy.Classify(c)
		if v.Decision == guardsh.Deny {
			return sandbox.Rights{}, errors.New(v.Message())
		}
		want := sandbox.Rights{Network: req.Network, Writes: req.Writes}
		if v.Decision == guardsh.Allow && covered(want, policy, v.Rule) {
			return want, nil
		}
		ask := guardsh.Verdict{Decision: guardsh.Ask, Rule: v.Rule,
			Reason:  "the privileged side runs it outside the sandbox with " + rightsText(want),
			Effects: guardsh.Effects{Network: want.Network, Writes: want.Writes}}
		if local.Gatekeep(context.Background(), c, ask, "").Decision == guardsh.Allow {
			return want, nil
		}
		return sandbox.Rights{}, fmt.Errorf("guardsh: not run: %q needs %s beyond the sandbox and no human at the terminal approved it. Ask the user to approve it interactively, or to add a rule granting these rights to the config", strings.Join(req.Args, " "), rightsText(want))
	}
}

// covered reports whether a rule of the policy grants want.
func covered(want sandbox.Rights, p *guardsh.Policy, ruleID string) bool {
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
					if rel, err := filepath.Rel(rw, w); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
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

func rightsText(r sandbox.Rights) string {
	var parts []string
	if r.Network {
		parts = append(parts, "network access")
	}
	if len(r.Writes) > 0 {
		parts = append(parts, "writes to "+strings.Join(r.Writes, ", "))
	}
	if len(parts) == 0 {
		return "nothing more"
	}
	return strings.Join(parts, " and ")
}

// escalateThrough is the session's interp.Config.Escalate: the approved
// command runs on the agent's side, which decides again.
func escalateThrough(c *sandbox.Client) func(ctx context.Context, hc shinterp.HandlerContext, args []string, v guardsh.Verdict) error {
	return func(ctx context.Context, hc shinterp.HandlerContext, args []string, v guardsh.Verdict) error {
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
			return shinterp.ExitStatus(126)
		}
		resp, err := c.Run(sandbox.Request{Args: args, Dir: hc.Dir, Env: env, Network: v.Effects.Network, Writes: v.Effects.Writes},
			files[0], files[1], files[2])
		cleanup()
		if err != nil {
			fmt.Fprintf(hc.Stderr, "guardsh: %s: privileged side unreachable: %v\n", args[0], err)
			return shinterp.ExitStatus(126)
		}
		if resp.Err != "" {
			fmt.Fprintln(hc.Stderr, resp.Err)
		}
		if resp.Status != 0 {
			return shinterp.ExitStatus(uint8(resp.Status))
		}
		return nil
	}
}

// stdioFiles turns the handler's stdio into files that can be passed to
// the broker, with pipes and copiers where they are not files.
func stdioFiles(hc shinterp.HandlerContext) ([3]*os.File, func(), error) {
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
