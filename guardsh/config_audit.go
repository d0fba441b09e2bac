package guardsh

import (
	"path/filepath"
)

// Where the audit log lives and how large it may grow, as the
// configuration says ([audit]); the log itself is package audit.

// AuditLogFile is the log's name under the state directory.
const AuditLogFile = "guardsh/audit.jsonl"

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
