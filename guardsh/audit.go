package guardsh

import (
	"path/filepath"
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
