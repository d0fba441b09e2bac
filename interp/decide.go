package interp

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/gitsafe"
	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/interp"
)

// sessionMu guards Policy.Session: the gate appends to it while pipeline
// members classify concurrently.
var sessionMu sync.RWMutex

// classify asks the policy, safely against concurrent session approvals.
func (g *Runner) classify(c guardsh.Command) guardsh.Verdict {
	sessionMu.RLock()
	defer sessionMu.RUnlock()
	return g.policy.Classify(c)
}

// decide asks the policy about one command; an ask goes to the gate, and an
// ask that no gate approves is refused. The decision is in the audit log
// before decide returns (so before the command runs). An allowed command
// that needs more than the session sandbox is marked for Config.Escalate.
func (g *Runner) decide(ctx context.Context, c guardsh.Command) guardsh.Verdict {
	v := g.classify(c)
	policyDecision := v.Decision
	var advised *audit.Advisor
	if v.Decision == guardsh.Allow && g.cfg.Advisor != nil {
		// The advisor's second opinion on what the rules allowed outright
		// (advisor.go): it can only refuse.
		if v, advised = g.advise(ctx, c, v); v.Decision == guardsh.Deny {
			policyDecision = guardsh.Deny
		}
	}
	answer := ""
	if v.Decision == guardsh.Ask {
		var a GateAnswer
		v, a = g.gatekeep(ctx, c, v, "")
		answer = a.String()
	}
	escalate := false
	if v.Decision == guardsh.Allow {
		v.Effects = g.withRuleRights(v)
		escalate = g.cfg.Escalate != nil && (g.needsEscalation(v, policyDecision) || g.approvedConfigWrite(c, v, policyDecision))
	}
	var id uint64
	if a := g.cfg.Audit; a != nil && lazyAudit(c, v, policyDecision) {
		a.CountPure(c.Args[0], c.Project, g.policy.Mode, g.cfg.Sandbox)
	} else if a != nil {
		id = a.Decide(&audit.Record{
			Cwd:       c.Dir,
			Project:   c.Project,
			Argv:      c.Args,
			Via:       c.Via,
			Mode:      g.policy.Mode,
			Decision:  policyDecision.String(),
			Rule:      v.Rule,
			Reason:    v.Reason,
			Gate:      answer,
			Escalated: escalate,
			Effects:   v.Effects,
			Sandbox:   g.cfg.Sandbox,
			Advisor:   advised,
		})
	}
	if v.Decision == guardsh.Allow && (id != 0 || escalate) {
		g.handoff.track(c.Args, &pendingCmd{id: id, audit: g.cfg.Audit, escalate: escalate, v: v})
	}
	return v
}

// pureCache remembers Policy.PureVerdict per command name for as long as
// what that verdict depends on stays the same: the policy's Mode, and its
// Rules and Session slices (a configured rule or session approval that can
// match the name turns the shortcut off). Rules and Session are replaced
// or appended to, never edited in place (gatekeep appends under sessionMu),
// so their length and first element's address identify them. Should
// PureVerdict come to depend on more of the Policy, pureKey must hold it.
type pureCache struct {
	v atomic.Pointer[pureSnap]
}

type pureSnap struct {
	key   pureKey
	names map[string]pureEntry // copied on write: readers need no lock
}

type pureKey struct {
	policy         *guardsh.Policy
	mode           guardsh.Mode
	rules, session *guardsh.Rule
	nRules, nSess  int
}

type pureEntry struct {
	v  guardsh.Verdict
	ok bool
}

// pureKeyLocked is what the policy's verdicts depend on now; the caller
// holds sessionMu.
func (g *Runner) pureKeyLocked() pureKey {
	p := g.policy
	return pureKey{policy: p, mode: p.Mode, rules: first(p.Rules), nRules: len(p.Rules),
		session: first(p.Session), nSess: len(p.Session)}
}

// pureVerdict is Policy.PureVerdict(name), cached. ok is false also when a
// rule or approval with the verdict's rule ID exists (withRuleRights would
// give it rights), and for names mvdan does not run as builtins (they may
// reach the exec handler, which writes their exit records).
func (g *Runner) pureVerdict(name string) (guardsh.Verdict, bool) {
	if !interp.IsBuiltin(name) {
		return guardsh.Verdict{}, false // and the cache holds builtins' names only: a few dozen
	}
	sessionMu.RLock()
	k := g.pureKeyLocked()
	sessionMu.RUnlock()
	snap := g.pure.v.Load()
	if snap != nil && snap.key == k {
		if e, hit := snap.names[name]; hit {
			return e.v, e.ok
		}
	}
	// The entry and its key from the same moment.
	var e pureEntry
	sessionMu.RLock()
	k = g.pureKeyLocked()
	e.v, e.ok = g.policy.PureVerdict(name)
	if e.ok && (hasRuleID(g.policy.Rules, e.v.Rule) || hasRuleID(g.policy.Session, e.v.Rule)) {
		e.ok = false
	}
	sessionMu.RUnlock()
	next := &pureSnap{key: k, names: map[string]pureEntry{name: e}}
	if snap != nil && snap.key == k {
		for n, old := range snap.names {
			next.names[n] = old
		}
	}
	g.pure.v.Store(next)
	return e.v, e.ok
}

func first(rules []guardsh.Rule) *guardsh.Rule {
	if len(rules) == 0 {
		return nil
	}
	return &rules[0]
}

func hasRuleID(rules []guardsh.Rule, id string) bool {
	for i := range rules {
		if rules[i].ID == id {
			return true
		}
	}
	return false
}

// decidePure is decide for a command whose verdict pureVerdict knows: an
// allowed builtin without effects. What decide would do with that verdict
// is done here without building the policy's view of the command: no
// gate, no rights, no escalation (withRuleRights and needsEscalation find
// nothing for it), it is counted in the audit log (lazyAudit), and
// builtins are not tracked for exit records.
func (g *Runner) decidePure(args []string) {
	if a := g.cfg.Audit; a != nil {
		a.CountPure(args[0], g.cfg.Project, g.policy.Mode, g.cfg.Sandbox)
	}
}

// lazyAudit reports whether an allowed command is counted in the audit log
// (audit.Log.CountPure) instead of recorded: a builtin the policy allowed
// outright and found without effects ([, test, true, echo ...). Everything
// else has its record on disk before it runs.
func lazyAudit(c guardsh.Command, v guardsh.Verdict, policyDecision guardsh.Decision) bool {
	e := v.Effects
	return policyDecision == guardsh.Allow && v.Decision == guardsh.Allow && len(c.Args) > 0 &&
		interp.IsBuiltin(c.Args[0]) && len(e.Reads) == 0 && len(e.Writes) == 0 && !e.Network && !e.Install
}

// Gatekeep puts an ask verdict before the session's gate, as the runner
// does for every ask; callers outside the runner (the agent's file tools)
// use it with the diff of the write they want to make. It returns the
// final verdict: Allow if a human approved (and, for "allow for this
// session", the approval is stored in Policy.Session), else a refusal whose
// hint tells the model what happened. Verdicts other than Ask come back
// unchanged.
func (g *Runner) Gatekeep(ctx context.Context, c guardsh.Command, v guardsh.Verdict, diff string) guardsh.Verdict {
	v, _ = g.gatekeep(ctx, c, v, diff)
	return v
}

func (g *Runner) gatekeep(ctx context.Context, c guardsh.Command, v guardsh.Verdict, diff string) (guardsh.Verdict, GateAnswer) {
	if v.Decision != guardsh.Ask {
		return v, GateAllowOnce
	}
	rule := approvalRule(c, v)
	if g.configuredAsk(v.Rule) {
		// A configured ask rule asks every time: a session approval would
		// never apply, so none is offered.
		rule = guardsh.Rule{}
	}
	answer := GateNoHuman
	if g.cfg.Gate != nil {
		answer = g.cfg.Gate.Approve(ctx, GateRequest{Command: c, Verdict: v, Session: rule, Diff: diff})
	}
	switch answer {
	case GateAllowOnce:
		v.Decision = guardsh.Allow
	case GateAllowSession:
		v.Decision = guardsh.Allow
		if len(rule.Prefix) == 0 {
			answer = GateAllowOnce
			break
		}
		sessionMu.Lock()
		g.policy.Session = append(g.policy.Session, rule)
		sessionMu.Unlock()
	case GateDeny:
		v.Decision = guardsh.Deny
		v.Hint = "A human refused it at the approval prompt. Do not retry it or work around it; ask the user how to proceed"
	default:
		answer = GateNoHuman
		v.Hint = noHumanHint(v, rule, c.Args)
	}
	return v, answer
}

// configuredAsk reports whether id is a configured (user or project) ask
// rule.
func (g *Runner) configuredAsk(id string) bool {
	for _, r := range g.policy.Rules {
		if r.ID == id && r.Decision == guardsh.Ask {
			return true
		}
	}
	return false
}

func handlerCtx(ctx context.Context) (hc interp.HandlerContext, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return interp.HandlerCtx(ctx), true
}

// withRuleRights adds the rights of the configured or session rule that
// decided v (network, write paths) to its effects: an approved command
// receives exactly those.
func (g *Runner) withRuleRights(v guardsh.Verdict) guardsh.Effects {
	e := v.Effects
	sessionMu.RLock()
	defer sessionMu.RUnlock()
	for _, rules := range [][]guardsh.Rule{g.policy.Rules, g.policy.Session} {
		for _, r := range rules {
			if r.ID != v.Rule || r.Decision == guardsh.Deny {
				continue
			}
			if r.Network {
				e.Network = true
			}
		next:
			for _, w := range r.Write {
				for _, have := range e.Writes {
					if have == w {
						continue next
					}
				}
				e.Writes = append(append([]string{}, e.Writes...), w)
			}
		}
	}
	return e
}

// needsEscalation reports whether an allowed command needs more than the
// session sandbox: the network, or writes outside the project and the temp
// dirs. Only a human approval (an ask that was allowed) or a configured
// rule's explicit rights escalate: a mode that merely allows a command does
// not take it out of the sandbox.
func (g *Runner) needsEscalation(v guardsh.Verdict, policyDecision guardsh.Decision) bool {
	if policyDecision != guardsh.Ask && !g.ruleGrantsRights(v.Rule) {
		return false
	}
	if v.Effects.Network {
		return true
	}
	for _, w := range v.Effects.Writes {
		if !insideAny(w, append(tempDirs(), g.cfg.Project)...) {
			return true
		}
	}
	return false
}

// approvedConfigWrite reports whether an allowed command is git writing
// the config of the repository it runs in (gitsafe.ParseConfigWrite) that
// a human approved (at the gate, or by a configured or session rule): the
// sandbox keeps that file read-only, so the privileged side makes the
// write (sandbox.Broker) after deciding again by itself (BrokerCheck).
func (g *Runner) approvedConfigWrite(c guardsh.Command, v guardsh.Verdict, policyDecision guardsh.Decision) bool {
	if len(c.Args) == 0 || filepath.Base(c.Args[0]) != "git" {
		return false
	}
	if w, err := gitsafe.ParseConfigWrite(c.Args[1:], c.Env); w == nil && err == nil {
		return false
	}
	if policyDecision == guardsh.Ask {
		return true
	}
	sessionMu.RLock()
	defer sessionMu.RUnlock()
	return hasRuleID(g.policy.Rules, v.Rule) || hasRuleID(g.policy.Session, v.Rule)
}

func (g *Runner) ruleGrantsRights(id string) bool {
	sessionMu.RLock()
	defer sessionMu.RUnlock()
	for _, rules := range [][]guardsh.Rule{g.policy.Rules, g.policy.Session} {
		for _, r := range rules {
			if r.ID == id && r.Decision != guardsh.Deny && (r.Network || len(r.Write) > 0) {
				return true
			}
		}
	}
	return false
}

func tempDirs() []string {
	return []string{"/tmp", "/var/tmp", "/dev/null", strings.TrimRight(osTempDir(), "/")}
}

func insideAny(p string, roots ...string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		if p == r || strings.HasPrefix(p, strings.TrimRight(r, "/")+"/") {
			return true
		}
	}
	return false
}
