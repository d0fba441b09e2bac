package audit

import (
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// Audit record events.
const (
	EventDecide = "decide" // before the command runs
	EventExit   = "exit"   // after it ended
	// EventCounts records carry what the session counted instead of
	// logging it line by line: the builtins without effects that the
	// policy allowed (Counts, per name) and the records the session's cap
	// kept out of the file (Dropped). Written every CountsEvery
	// while there is something new, and when the session ends.
	EventCounts = "counts"
	// EventLimit is written once, when the session reaches its cap
	// (guardsh.AuditLimits.SessionBytes): from then on only refusals and asks are
	// written, each distinct one once; the rest is counted.
	EventLimit = "limit"
	// EventConnect records a connection a command opened through the
	// session's proxy (Via "proxy"), when it ended or was refused.
	EventConnect = "connect"
)

// Record is one line of the audit log.
type Record struct {
	Time    string `json:"time"`  // RFC 3339 with nanoseconds, UTC
	Event   string `json:"event"` // EventDecide or EventExit
	ID      uint64 `json:"id"`    // per session; an exit record repeats its decide record's id
	Session string `json:"session"`

	// Set on decide records.
	Cwd      string       `json:"cwd,omitempty"`
	Project  string       `json:"project,omitempty"`
	Argv     []string     `json:"argv,omitempty"`
	Via      string       `json:"via,omitempty"`
	Mode     guardsh.Mode `json:"mode,omitempty"`
	Decision string       `json:"decision,omitempty"` // allow, ask, deny: the final decision
	Rule     string       `json:"rule,omitempty"`
	Reason   string       `json:"reason,omitempty"`
	// Gate says who decided an ask: "once", "session" (allowed by a human),
	// "denied" (refused by a human), "no-terminal" (nobody to ask),
	// "session-rule" (an earlier "allow for this session").
	Gate      string          `json:"gate,omitempty"`
	Escalated bool            `json:"escalated,omitempty"` // ran outside the session sandbox with extra rights
	Effects   guardsh.Effects `json:"effects,omitzero"`
	Sandbox   string          `json:"sandbox,omitempty"` // e.g. "landlock+seccomp (abi 7)" or "off (--no-sandbox)"
	// Admin states the admin context a human granted the session
	// (AdminGrant.Describe), on every record of it; "" outside one.
	Admin string `json:"admin,omitempty"`
	// Advisor is the local model's rating of an allowed command, or why
	// there is none; nil when the advisor is off or not asked.
	Advisor *Advisor `json:"advisor,omitempty"`
	// EnvScrubbed lists the names of the variables the session removed
	// from its environment as secret-looking ([env] in the config), on the
	// session's first record; empty (not nil) when scrubbing was on and
	// removed nothing; nil when it was off. Never values.
	EnvScrubbed []string `json:"env_scrubbed,omitzero"`

	// Set on exit records.
	Status     *int    `json:"status,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`

	// Set on connect records.
	Connect *ConnectInfo `json:"connect,omitempty"`

	// Set on counts records: totals since the session began.
	Counts  map[string]uint64 `json:"counts,omitempty"`
	Dropped *Dropped          `json:"dropped,omitempty"`
}

// ConnectInfo is a connection through the session's proxy: where to
// (the name and port asked for, the address dialled), who asked (the
// proxy user the session gave its commands), and the bytes each way.
type ConnectInfo struct {
	Host   string `json:"host"`
	Port   int    `json:"port"`
	Addr   string `json:"addr,omitempty"`
	Client string `json:"client,omitempty"`
	Up     int64  `json:"bytes_up"`
	Down   int64  `json:"bytes_down"`
	Error  string `json:"error,omitempty"`
}

// Dropped counts the records a session did not write once it had
// reached its cap, by the decision they recorded; Repeats are refusals and
// asks that repeated one already written (same rule and argv).
type Dropped struct {
	Allow   uint64 `json:"allow,omitempty"`
	Ask     uint64 `json:"ask,omitempty"`
	Deny    uint64 `json:"deny,omitempty"`
	Exit    uint64 `json:"exit,omitempty"`
	Repeats uint64 `json:"repeats,omitempty"`
}

// CountsEvery is how often a session writes its counts record while
// it has new counts.
const CountsEvery = 10 * time.Second

// Advisor is the advisor's part of a decide record: the rating, or
// Error "advisor unavailable: WHY" when there was none (the command then
// ran on the rules' word alone). A cached rating repeats the model, tokens
// and latency of the request that made it.
type Advisor struct {
	Percent      *int    `json:"percent,omitempty"` // 0-100; nil when unavailable
	Reason       string  `json:"reason,omitempty"`  // the model's one-sentence reason
	Model        string  `json:"model,omitempty"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`
	EvalTokens   int     `json:"eval_tokens,omitempty"`
	LatencyMS    float64 `json:"latency_ms,omitempty"`
	Cached       bool    `json:"cached,omitempty"` // rated earlier in this session
	Error        string  `json:"error,omitempty"`
}
