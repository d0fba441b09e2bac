// Package audit is guardsh's audit log: the record (Record), its encoder,
// the session's writer (Log), the summary's decoder and the summary itself
// (Summarize, for guardsh --audit), side by side.
//
// Every simple command guardsh decides is appended to the audit log as one
// JSON line before the command runs (event "decide"); when a command that
// ran as a program ends, a second line with the same id follows (event
// "exit") with its status and duration. A refused command has no exit line:
// its status is 126. Builtins without effects are counted per name
// ("counts" records), a session past its cap writes only distinct refusals
// and asks ("limit"), and connections through the session's proxy are
// "connect" records.
//
// The log lives at $XDG_STATE_HOME/guardsh/audit.jsonl, by default
// ~/.local/state/guardsh/audit.jsonl; the user config can move it
// ([audit] path = "...") or turn it off ([audit] enabled = false): see
// guardsh.Config.AuditLogPath and guardsh.AuditLimits. docs/audit.md
// describes the format for readers of the log.
package audit
