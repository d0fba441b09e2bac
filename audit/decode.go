package audit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// A fast path for reading audit lines: the log has one record per command,
// and encoding/json's reflection spends most of Summarize's time. The
// fast path reads the one flat object the writer produces (appendRecord in
// interp/audit_encode.go) and gives up, returning false, on anything it is
// not sure about — an escaped key, a number of another form, a key that
// differs from a known one only in case (encoding/json matches those) —
// after which encoding/json decodes the line as before. A fuzz test checks
// that both agree.

// fastDecoder holds the interned strings of the fast path: the same few
// event, decision, rule, gate and session values recur on every line.
type fastDecoder struct {
	strs map[string]string
}

// maxInterned bounds the interned strings.
const maxInterned = 1 << 14

func (d *fastDecoder) intern(b []byte) string {
	if s, ok := d.strs[string(b)]; ok { // no allocation: a lookup
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = map[string]string{}
	}
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
}

// decode fills l (reset by the caller) from data; false means "use
// encoding/json": l may be half filled then.
func (d *fastDecoder) decode(data []byte, l *auditLine) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipWS(data, i+1) == len(data)
	}
	for {
		// key
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return false
		}
		key := data[i+1 : i+1+end]
		if _, ok := plainString(data[i : i+2+end]); !ok {
			return false // escapes, control characters, non-ASCII: encoding/json
		}
		i = skipWS(data, i+2+end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWS(data, i+1)
		start := i
		i = skipValue(data, i, 0)
		if i < 0 {
			return false
		}
		val := data[start:i]
		if !d.field(key, val, l) {
			return false
		}
		i = skipWS(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return skipWS(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// field stores one value; false: let encoding/json do the line.
func (d *fastDecoder) field(key, val []byte, l *auditLine) bool {
	isNull := string(val) == "null"
	str := func(dst *string) bool {
		if isNull {
			return true // encoding/json leaves the field as it is
		}
		s, ok := plainString(val)
		if !ok {
			return false
		}
		*dst = d.intern(s)
		return true
	}
	raw := func(dst *json.RawMessage) bool {
		*dst = append((*dst)[:0], val...)
		return true
	}
	switch string(key) {
	case "time":
		if isNull {
			return true
		}
		s, ok := plainString(val)
		if !ok {
			return false
		}
		// A time in the writer's form is parsed here (l.t); any other
		// goes to the caller's time.Parse, which accepts or reports it.
		l.t, l.tOK = parseRFC3339UTC(s)
		l.Time = ""
		if !l.tOK {
			l.Time = string(s)
		}
		return true
	case "event":
		return str(&l.Event)
	case "session":
		return str(&l.Session)
	case "decision":
		return str(&l.Decision)
	case "rule":
		return str(&l.Rule)
	case "gate":
		return str(&l.Gate)
	case "id":
		if isNull {
			return true
		}
		n, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil {
			return false
		}
		l.ID = n
		return true
	case "escalated":
		switch string(val) {
		case "true":
			l.Escalated = true
		case "false":
			l.Escalated = false
		case "null":
		default:
			return false
		}
		return true
	case "status":
		if isNull {
			l.Status = nil
			return true
		}
		n, err := strconv.ParseInt(string(val), 10, 0)
		if err != nil {
			return false
		}
		st := int(n)
		l.Status = &st
		return true
	case "duration_ms":
		if isNull {
			return true
		}
		if len(val) == 0 || (val[0] != '-' && (val[0] < '0' || val[0] > '9')) {
			return false
		}
		f, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			return false
		}
		l.DurationMS = f
		return true
	case "cwd":
		return raw(&l.Cwd)
	case "project":
		return raw(&l.Project)
	case "argv":
		return raw(&l.Argv)
	case "via":
		return raw(&l.Via)
	case "mode":
		return raw(&l.Mode)
	case "reason":
		return raw(&l.Reason)
	case "sandbox":
		return raw(&l.Sandbox)
	case "advisor":
		return raw(&l.Advisor)
	case "env_scrubbed":
		return raw(&l.Scrubbed)
	case "counts", "dropped":
		return false // counts records: a few a session, encoding/json
	}
	// An unknown key is skipped, unless encoding/json would match it to
	// a field regardless of case.
	for _, k := range auditLineKeys {
		if bytes.EqualFold(key, []byte(k)) {
			return false
		}
	}
	return true
}

// auditLineKeys are auditLine's JSON keys.
var auditLineKeys = []string{"time", "event", "id", "session", "cwd", "project", "argv", "via", "mode",
	"decision", "rule", "reason", "gate", "escalated", "sandbox", "status", "duration_ms", "advisor", "env_scrubbed", "counts", "dropped"}

// plainString returns the content of a JSON string without escapes or
// control characters, valid UTF-8.
func plainString(val []byte) ([]byte, bool) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return nil, false
	}
	s := val[1 : len(val)-1]
	for _, c := range s {
		if c < 0x20 || c == '\\' || c == '"' || c >= utf8.RuneSelf {
			return nil, false
		}
	}
	return s, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxSkipDepth bounds the nesting skipValue follows (encoding/json allows
// 10,000; deeper values go to it).
const maxSkipDepth = 64

// skipValue returns the index just after the JSON value at b[i:], -1 if
// it is not one (or too deep).
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxSkipDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = skipString(b, i); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = skipValue(b, skipWS(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == '}' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			if b[i] == ']' {
				return i + 1
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	}
	return -1
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipString skips a JSON string (escapes checked; any UTF-8, as
// encoding/json accepts invalid bytes and replaces them).
func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

// skipNumber skips a JSON number (RFC 8259 grammar).
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return -1
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i
}

// parseRFC3339UTC parses the writer's time format,
// "2006-01-02T15:04:05.999999999Z", without allocating; false for any
// other form (time.Parse then decides).
func parseRFC3339UTC(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if rest := s[19 : len(s)-1]; len(rest) > 0 {
		if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
			return time.Time{}, false
		}
		n, ok := num(rest[1:])
		if !ok {
			return time.Time{}, false
		}
		for k := len(rest) - 1; k < 9; k++ {
			n *= 10
		}
		nsec = n
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // 31 November: time.Parse refuses it
		return time.Time{}, false
	}
	return t, true
}
