package audit

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecord appends rec as one JSON object, exactly as encoding/json
// would encode Record (same keys, order and omissions), without
// reflection: the audit log writes one per simple command.
func appendRecord(b []byte, rec *Record) []byte {
	if rec.Counts != nil || rec.Dropped != nil || rec.Connect != nil {
		// counts records: a few a session, encoded by encoding/json
		if j, err := json.Marshal(rec); err == nil {
			return append(b, j...)
		}
	}
	b = append(b, `{"time":`...)
	b = appendJSONString(b, rec.Time)
	b = append(b, `,"event":`...)
	b = appendJSONString(b, rec.Event)
	b = append(b, `,"id":`...)
	b = strconv.AppendUint(b, rec.ID, 10)
	b = append(b, `,"session":`...)
	b = appendJSONString(b, rec.Session)
	b = appendOptString(b, "cwd", rec.Cwd)
	b = appendOptString(b, "project", rec.Project)
	if len(rec.Argv) > 0 {
		b = append(b, `,"argv":`...)
		b = appendJSONStrings(b, rec.Argv)
	}
	b = appendOptString(b, "via", rec.Via)
	b = appendOptString(b, "mode", string(rec.Mode))
	b = appendOptString(b, "decision", rec.Decision)
	b = appendOptString(b, "rule", rec.Rule)
	b = appendOptString(b, "reason", rec.Reason)
	b = appendOptString(b, "gate", rec.Gate)
	if rec.Escalated {
		b = append(b, `,"escalated":true`...)
	}
	if e := rec.Effects; len(e.Reads) > 0 || len(e.Writes) > 0 || e.Network || e.Install || e.Reads != nil || e.Writes != nil {
		b = append(b, `,"effects":{`...)
		n := len(b)
		if len(e.Reads) > 0 {
			b = append(b, `"reads":`...)
			b = appendJSONStrings(b, e.Reads)
		}
		if len(e.Writes) > 0 {
			if len(b) > n {
				b = append(b, ',')
			}
			b = append(b, `"writes":`...)
			b = appendJSONStrings(b, e.Writes)
		}
		if e.Network {
			if len(b) > n {
				b = append(b, ',')
			}
			b = append(b, `"network":true`...)
		}
		if e.Install {
			if len(b) > n {
				b = append(b, ',')
			}
			b = append(b, `"install":true`...)
		}
		b = append(b, '}')
	}
	b = appendOptString(b, "sandbox", rec.Sandbox)
	b = appendOptString(b, "admin", rec.Admin)
	if a := rec.Advisor; a != nil {
		b = appendAdvisor(b, a)
	}
	if rec.EnvScrubbed != nil {
		b = append(b, `,"env_scrubbed":`...)
		b = appendJSONStrings(b, rec.EnvScrubbed)
	}
	if rec.Status != nil {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(*rec.Status), 10)
	}
	if rec.DurationMS != 0 {
		b = append(b, `,"duration_ms":`...)
		b = appendJSONFloat(b, rec.DurationMS)
	}
	return append(b, '}')
}

// appendAdvisor appends the "advisor" member (Advisor).
func appendAdvisor(b []byte, a *Advisor) []byte {
	b = append(b, `,"advisor":{`...)
	n := len(b)
	if a.Percent != nil {
		b = append(b, `,"percent":`...)
		b = strconv.AppendInt(b, int64(*a.Percent), 10)
	}
	b = appendOptString(b, "reason", a.Reason)
	b = appendOptString(b, "model", a.Model)
	if a.PromptTokens != 0 {
		b = append(b, `,"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(a.PromptTokens), 10)
	}
	if a.EvalTokens != 0 {
		b = append(b, `,"eval_tokens":`...)
		b = strconv.AppendInt(b, int64(a.EvalTokens), 10)
	}
	if a.LatencyMS != 0 {
		b = append(b, `,"latency_ms":`...)
		b = appendJSONFloat(b, a.LatencyMS)
	}
	if a.Cached {
		b = append(b, `,"cached":true`...)
	}
	b = appendOptString(b, "error", a.Error)
	if len(b) > n {
		// every member above was written with a leading comma
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

func appendOptString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendJSONString(b, s)
}

func appendJSONStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does (HTML characters
// escaped, invalid UTF-8 replaced by U+FFFD, U+2028/U+2029 escaped).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// auditTime is the record time: RFC 3339 with nanoseconds, UTC.
func auditTime() string { return time.Now().UTC().Format(time.RFC3339Nano) }
