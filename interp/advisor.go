package interp

// The advisor's second opinion (docs/advisor.md): a command the rules
// allowed outright is also rated by a local model; a rating at or above
// the threshold refuses it. It adds, never replaces: a rule's deny is final
// and never reaches the advisor, asks are not rated, and a failure says
// "advisor unavailable: <why>" on stderr and in the audit record while the
// command goes on.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/sandbox"
)

// Advisor rates commands (Config.Advisor): *advisor.Advisor in-process,
// AdviseThrough in a confined interpreter.
type Advisor interface {
	// Ask returns the likelihood that q irreversibly destroys data, or
	// an error whose text says why there is no rating.
	Ask(ctx context.Context, q advisor.Request) (advisor.Rating, error)
	// Threshold is the percentage from which a command is refused.
	Threshold() int
}

// The advisor's rule IDs.
const (
	RuleAdvisorDestructive = "advisor.destructive"
	RuleAdvisorInterrupted = "advisor.interrupted"
	// RuleAdvisorDryRun refuses what the rules allowed when the threshold
	// is 0 ([advisor] threshold = 0, a dry run).
	RuleAdvisorDryRun = "advisor.dry-run"
)

// dryRunAudit is the audit record's advisor part of a dry-run refusal.
var dryRunAudit = audit.Advisor{Reason: "dry run: advisor.threshold = 0 refuses every command the rules allowed; the model was not asked"}

// DryRunVerdict is the refusal of a command the rules allowed (v) under
// threshold 0, and its audit part.
func DryRunVerdict(v guardsh.Verdict) (guardsh.Verdict, *audit.Advisor) {
	a := dryRunAudit
	return guardsh.Verdict{Decision: guardsh.Deny, Rule: RuleAdvisorDryRun,
		Reason:  "dry run: the advisor's threshold is 0%, so every command the rules allow is refused without running",
		Hint:    "Nothing ran. This session only shows what would run; the human sets [advisor] threshold above 0 to run commands.",
		Effects: v.Effects}, &a
}

// advise asks the advisor about c, which the policy allowed outright (v).
// It returns v, or a refusal, and the audit record's advisor part (nil:
// not rated). Builtins the runner treats as effect-free and calls of the
// script's functions (their commands are rated as they run) are not rated.
func (g *Runner) advise(ctx context.Context, c guardsh.Command, v guardsh.Verdict) (guardsh.Verdict, *audit.Advisor) {
	if c.Function || lazyAudit(c, v, guardsh.Allow) {
		return v, nil
	}
	if g.cfg.Advisor.Threshold() <= 0 {
		return DryRunVerdict(v)
	}
	q := advisor.Request{Command: c, Writes: writes(v)}
	if hc, ok := handlerCtx(ctx); ok {
		q.Statement = g.stmts.call(hc.Pos, c.Args[0])
	}
	r, err := g.cfg.Advisor.Ask(ctx, q)
	if ctx.Err() != nil {
		// Ctrl-C while the advisor thinks: the command does not run.
		return guardsh.Verdict{Decision: guardsh.Deny, Rule: RuleAdvisorInterrupted,
				Reason:  "interrupted while the advisor was rating this command, so it did not run",
				Effects: v.Effects},
			&audit.Advisor{Error: "advisor interrupted: " + ctx.Err().Error()}
	}
	if err != nil {
		why := "advisor unavailable: " + err.Error()
		w := g.cfg.Stderr
		if hc, ok := handlerCtx(ctx); ok && hc.Stderr != nil {
			w = hc.Stderr
		}
		fmt.Fprintf(w, "guardsh: %s\n", why)
		return v, &audit.Advisor{Error: why}
	}
	a := RatingAudit(r)
	if r.Percent >= g.cfg.Advisor.Threshold() {
		v = guardsh.Verdict{Decision: guardsh.Deny, Rule: RuleAdvisorDestructive,
			Reason:  fmt.Sprintf("the advisor rated this command %d%% likely to irreversibly destroy data", r.Percent),
			Hint:    "Narrow the target or run it yourself if this is intentional.",
			Effects: v.Effects}
	}
	return v, a
}

// writes reports whether a command the policy allowed with v writes or
// deletes, or may: everything but a read-only command without written
// paths. The cool-off after a timeout never skips those.
func writes(v guardsh.Verdict) bool {
	return v.Rule != ruleReadOnly || len(v.Effects.Writes) > 0
}

// ruleReadOnly is the policy's rule for commands that only read.
const ruleReadOnly = "read.only"

// RatingAudit is the audit record's part for a rating. A rating of a
// shortened command (advisor.MaxCommandText) says so in front of the
// model's reason.
func RatingAudit(r advisor.Rating) *audit.Advisor {
	p := r.Percent
	reason := r.Reason
	if r.Shortened {
		reason = fmt.Sprintf("[command longer than %d bytes: the model saw it shortened in the middle] %s", advisor.MaxCommandText, reason)
	}
	return &audit.Advisor{Percent: &p, Reason: reason, Model: r.Model, PromptTokens: r.PromptTokens,
		EvalTokens: r.EvalTokens, LatencyMS: float64(r.Latency.Microseconds()) / 1000, Cached: r.Cached}
}

// AdviseThrough is the confined interpreter's Advisor: the privileged side
// rates the command (the interpreter has no network) with its own advisor
// and cache; threshold is the session's. The ratings it got are also kept
// here, so that a repeated command costs no exchange with the privileged
// side.
func AdviseThrough(c *sandbox.Client, threshold int) Advisor {
	return &brokerAdvisor{c: c, threshold: threshold, seen: map[string]advisor.Rating{}}
}

type brokerAdvisor struct {
	c         *sandbox.Client
	threshold int
	mu        sync.Mutex
	seen      map[string]advisor.Rating
}

func (b *brokerAdvisor) Threshold() int { return b.threshold }

func (b *brokerAdvisor) Ask(ctx context.Context, c advisor.Request) (advisor.Rating, error) {
	key := advisor.Key(c)
	b.mu.Lock()
	r, ok := b.seen[key]
	b.mu.Unlock()
	if ok {
		r.Cached = true
		return r, nil
	}
	r, err := b.rate(ctx, c)
	if err == nil {
		b.mu.Lock()
		if len(b.seen) >= 10000 {
			clear(b.seen)
		}
		b.seen[key] = r
		b.mu.Unlock()
	}
	return r, err
}

func (b *brokerAdvisor) rate(ctx context.Context, c advisor.Request) (advisor.Rating, error) {
	a, err := b.c.Advise(ctx, sandbox.AdviseRequest{Args: c.Args, Dir: c.Dir, Statement: c.Statement,
		Truncates: c.Truncates, TruncSize: c.TruncSize, ReadOnly: !c.Writes})
	switch {
	case ctx.Err() != nil:
		return advisor.Rating{}, ctx.Err()
	case err != nil:
		return advisor.Rating{}, fmt.Errorf("privileged side unreachable: %v", err)
	case a.Err != "":
		return advisor.Rating{}, errors.New(a.Err)
	}
	return advisor.Rating{Percent: a.Percent, Reason: a.Reason, Model: a.Model, PromptTokens: a.PromptTokens,
		EvalTokens: a.EvalTokens, Latency: time.Duration(a.LatencyMS * float64(time.Millisecond)), Cached: a.Cached,
		Shortened: a.Shortened}, nil
}

// BrokerAdvise answers the advise requests of a confined interpreter
// (sandbox.Broker.Advise) with the privileged side's own advisor a (nil:
// none configured). project and home complete the command. What the
// interpreter sends (statement, truncated file, read-only) is its word:
// see sandbox.AdviseRequest for why that is safe.
func BrokerAdvise(a Advisor, project, home string) sandbox.AdviseFunc {
	return func(q sandbox.AdviseRequest) sandbox.Advice {
		if a == nil {
			return sandbox.Advice{Err: "the privileged side has no advisor configured"}
		}
		if !filepath.IsAbs(q.Dir) {
			return sandbox.Advice{Err: fmt.Sprintf("bad working directory %q", q.Dir)}
		}
		if q.Truncates != "" && !filepath.IsAbs(q.Truncates) {
			return sandbox.Advice{Err: fmt.Sprintf("bad truncated file %q", q.Truncates)}
		}
		c := advisor.Request{Command: guardsh.Command{Args: q.Args, Dir: filepath.Clean(q.Dir), Project: project, Home: home, Via: "broker"},
			Statement: q.Statement, Truncates: q.Truncates, TruncSize: q.TruncSize, Writes: !q.ReadOnly}
		r, err := a.Ask(context.Background(), c)
		if err != nil {
			return sandbox.Advice{Err: err.Error()}
		}
		return sandbox.Advice{Percent: r.Percent, Reason: r.Reason, Model: r.Model, PromptTokens: r.PromptTokens,
			EvalTokens: r.EvalTokens, LatencyMS: float64(r.Latency.Microseconds()) / 1000, Cached: r.Cached,
			Shortened: r.Shortened}
	}
}

// NewAdvisor returns the advisor c configures (nil when it is off), with
// getenv to look up OLLAMA_HOST; a configuration it cannot use gives an
// advisor that never rates and says why, so every command shows it.
func NewAdvisor(c guardsh.AdvisorConfig, getenv func(string) string) Advisor {
	if !c.Enabled {
		return nil
	}
	a, err := advisor.FromConfig(c, getenv)
	if err != nil || a == nil {
		why := "advisor not configured"
		if err != nil {
			why = err.Error()
		}
		return UnavailableAdvisor(why, c.Limit())
	}
	return a
}

// UnavailableAdvisor is an Advisor that never rates, saying why: a guardsh
// started inside another guardsh's sandbox has neither the network nor a
// privileged side to ask.
func UnavailableAdvisor(why string, threshold int) Advisor {
	return unavailable{why: why, threshold: threshold}
}

type unavailable struct {
	why       string
	threshold int
}

func (u unavailable) Threshold() int { return u.threshold }

func (u unavailable) Ask(context.Context, advisor.Request) (advisor.Rating, error) {
	return advisor.Rating{}, errors.New(u.why)
}
