package guardsh

import (
	"path/filepath"
	"time"
)

// The audit log.
//
// Every simple command guardsh decides is appended to the audit log as one
// JSON line before the command runs (event "decide"); when a command that
// ran as a program ends, a second line with the same id follows (event
// "exit") with its status and duration. A refused command has no exit line:
// its status is 126.
//
// The log lives at $XDG_STATE_HOME/guardsh/audit.jsonl, by default
// ~/.local/state/guardsh/audit.jsonl; the user config can move it
// ([audit] path = "...") or turn it off ([audit] enabled = false).

// AuditLogFile is the log's name under the state directory.
const AuditLogFile = "guardsh/audit.jsonl"

// Audit record events.
const (
	AuditDecide = "decide" // before the command runs
	AuditExit   = "exit"   // after it ended
	// AuditCounts records carry what the session counted instead of
	// logging it line by line: the builtins without effects that the
	// policy allowed (Counts, per name) and the records the session's cap
	// kept out of the file (Dropped). Written every AuditCountsEvery
	// while there is something new, and when the session ends.
	AuditCounts = "counts"
	// AuditLimit is written once, when the session reaches its cap
	// (AuditLimits.SessionBytes): from then on only refusals and asks are
	// written, each distinct one once; the rest is counted.
	AuditLimit = "limit"
	// AuditConnect records a connection a command opened through the
	// session's proxy (Via "proxy"), when it ended or was refused.
	AuditConnect = "connect"
)

// AuditRecord is one line of the audit log.
type AuditRecord struct {
	Time    string `json:"time"`  // RFC 3339 with nanoseconds, UTC
	Event   string `json:"event"` // AuditDecide or AuditExit
	ID      uint64 `json:"id"`    // per session; an exit record repeats its decide record's id
	Session string `json:"session"`

	// Set on decide records.
	Cwd      string   `json:"cwd,omitempty"`
	Project  string   `json:"project,omitempty"`
	Argv     []string `json:"argv,omitempty"`
	Via      string   `json:"via,omitempty"`
	Mode     Mode     `json:"mode,omitempty"`
	Decision string   `json:"decision,omitempty"` // allow, ask, deny: the final decision
	Rule     string   `json:"rule,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	// Gate says who decided an ask: "once", "session" (allowed by a human),
	// "denied" (refused by a human), "no-terminal" (nobody to ask),
	// "session-rule" (an earlier "allow for this session").
	Gate      string  `json:"gate,omitempty"`
	Escalated bool    `json:"escalated,omitempty"` // ran outside the session sandbox with extra rights
	Effects   Effects `json:"effects,omitzero"`
	Sandbox   string  `json:"sandbox,omitempty"` // e.g. "landlock+seccomp (abi 7)" or "off (--no-sandbox)"
	// Admin states the admin context a human granted the session
	// (AdminGrant.Describe), on every record of it; "" outside one.
	Admin string `json:"admin,omitempty"`
	// Advisor is the local model's rating of an allowed command, or why
	// there is none; nil when the advisor is off or not asked.
	Advisor *AdvisorAudit `json:"advisor,omitempty"`
	// EnvScrubbed lists the names of the variables the session removed
	// from its environment as secret-looking ([env] in the config), on the
	// session's first record; empty (not nil) when scrubbing was on and
	// removed nothing; nil when it was off. Never values.
	EnvScrubbed []string `json:"env_scrubbed,omitzero"`

	// Set on exit records.
	Status     *int    `json:"status,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`

	// Set on connect records.
	Connect *AuditConnectInfo `json:"connect,omitempty"`

	// Set on counts records: totals since the session began.
	Counts  map[string]uint64 `json:"counts,omitempty"`
	Dropped *AuditDropped     `json:"dropped,omitempty"`
}

// AuditConnectInfo is a connection through the session's proxy: where to
// (the name and port asked for, the address dialled), who asked (the
// proxy user the session gave its commands), and the bytes each way.
type AuditConnectInfo struct {
	Host   string `json:"host"`
	Port   int    `json:"port"`
	Addr   string `json:"addr,omitempty"`
	Client string `json:"client,omitempty"`
	Up     int64  `json:"bytes_up"`
	Down   int64  `json:"bytes_down"`
	Error  string `json:"error,omitempty"`
}

// AuditDropped counts the records a session did not write once it had
// reached its cap, by the decision they recorded; Repeats are refusals and
// asks that repeated one already written (same rule and argv).
type AuditDropped struct {
	Allow   uint64 `json:"allow,omitempty"`
	Ask     uint64 `json:"ask,omitempty"`
	Deny    uint64 `json:"deny,omitempty"`
	Exit    uint64 `json:"exit,omitempty"`
	Repeats uint64 `json:"repeats,omitempty"`
}

// AuditLimits bounds the audit log. The zero value of a field means its
// default (DefaultAuditLimits).
type AuditLimits struct {
	// SessionBytes is what one session writes in full; past it the
	// session writes only refusals and asks, each distinct one once, and
	// past twice it nothing but its counts records.
	SessionBytes int64
	// FileBytes: a log file larger than this when a session opens it is
	// rotated first (audit.jsonl -> audit.jsonl.1 -> ... ).
	FileBytes int64
	// Keep is how many rotated files are kept.
	Keep int
}

// Default audit limits: 16 MiB a session, files rotated past 64 MiB, three
// rotated files kept. What the log can hold at most is then about
// (Keep+1) x (FileBytes + 2 x SessionBytes x the sessions open at once).
const (
	DefaultAuditSessionBytes = 16 << 20
	DefaultAuditFileBytes    = 64 << 20
	DefaultAuditKeep         = 3
)

// AuditCountsEvery is how often a session writes its counts record while
// it has new counts.
const AuditCountsEvery = 10 * time.Second

// WithDefaults returns l with the defaults in place of zero fields.
func (l AuditLimits) WithDefaults() AuditLimits {
	if l.SessionBytes <= 0 {
		l.SessionBytes = DefaultAuditSessionBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = DefaultAuditFileBytes
	}
	if l.Keep <= 0 {
		l.Keep = DefaultAuditKeep
	}
	return l
}

// AuditLimits returns the limits the configuration sets (defaults where it
// sets none).
func (c *Config) AuditLimits() AuditLimits {
	if c == nil {
		return AuditLimits{}.WithDefaults()
	}
	return c.AuditLimit.WithDefaults()
}

// AuditLogPath returns the default audit log path for home and env.
func AuditLogPath(home string, env func(string) string) string {
	if env != nil {
		if x := env("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
			return filepath.Join(x, AuditLogFile)
		}
	}
	return filepath.Join(home, ".local", "state", AuditLogFile)
}

// AuditLogPath returns the audit log path the configuration chooses, ""
// when the log is turned off.
func (c *Config) AuditLogPath(home string, env func(string) string) string {
	switch {
	case c != nil && c.AuditOff:
		return ""
	case c != nil && c.AuditPath != "":
		return c.AuditPath
	}
	return AuditLogPath(home, env)
}

// AdvisorAudit is the advisor's part of a decide record: the rating, or
// Error "advisor unavailable: WHY" when there was none (the command then
// ran on the rules' word alone). A cached rating repeats the model, tokens
// and latency of the request that made it.
type AdvisorAudit struct {
	Percent      *int    `json:"percent,omitempty"` // 0-100; nil when unavailable
	Reason       string  `json:"reason,omitempty"`  // the model's one-sentence reason
	Model        string  `json:"model,omitempty"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`
	EvalTokens   int     `json:"eval_tokens,omitempty"`
	LatencyMS    float64 `json:"latency_ms,omitempty"`
	Cached       bool    `json:"cached,omitempty"` // rated earlier in this session
	Error        string  `json:"error,omitempty"`
}
