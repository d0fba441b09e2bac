package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// Audit summaries (guardsh --audit).
//
// Summarize reads an audit log (see Record) line by line and
// counts what a user tuning rules wants to know: every decided command by
// its final outcome (Outcome) and by rule, the latest refusals and
// escalations, exit statuses, the advisor's ratings, and each session's
// sandbox. It holds one line at a time, plus a small record per session and
// per rule: a log of any length is summarised in bounded memory (as long as
// the number of sessions and rules is).
//
// Lines it cannot read (not JSON, no time or event, a bad time) are counted
// with the line numbers of the first few, never fatal; fields it does not
// know are ignored.

// SummarySchema names the layout of Summary's JSON encoding.
const SummarySchema = "guardsh-audit-summary/1"

// auditAdvisorRule is the rule ID of a refusal by the advisor.
const auditAdvisorRule = "advisor.destructive"

// Outcome is the final fate of one decided command.
type Outcome string

// The outcomes, in the order summaries list them.
const (
	OutcomeAllowed         Outcome = "allowed"            // the rules allowed it
	OutcomeApprovedOnce    Outcome = "approved_once"      // asked; a human allowed it once
	OutcomeApprovedSession Outcome = "approved_session"   // asked; a human allowed it for the session
	OutcomeApprovedEarlier Outcome = "approved_earlier"   // asked; an earlier "allow for this session" matched
	OutcomeRefusedByHuman  Outcome = "refused_by_human"   // asked; a human refused
	OutcomeNoTerminal      Outcome = "no_terminal"        // asked; nobody could be asked: refused
	OutcomeAskedElsewhere  Outcome = "asked_elsewhere"    // asked; no gate recorded (the hook: the agent's own prompt decides)
	OutcomeDeniedByRule    Outcome = "denied_by_rule"     // a rule denied it
	OutcomeRefusedAdvisor  Outcome = "refused_by_advisor" // the advisor refused it (rule advisor.destructive)
	OutcomeOther           Outcome = "other"              // a decision or gate this version does not know
)

// Outcomes lists every outcome in display order.
var Outcomes = []Outcome{
	OutcomeAllowed, OutcomeApprovedOnce, OutcomeApprovedSession, OutcomeApprovedEarlier,
	OutcomeRefusedByHuman, OutcomeNoTerminal, OutcomeAskedElsewhere, OutcomeDeniedByRule,
	OutcomeRefusedAdvisor, OutcomeOther,
}

// Refused reports whether the command did not run because of this outcome.
func (o Outcome) Refused() bool {
	switch o {
	case OutcomeRefusedByHuman, OutcomeNoTerminal, OutcomeDeniedByRule, OutcomeRefusedAdvisor:
		return true
	}
	return false
}

// Label is the outcome in words, for people.
func (o Outcome) Label() string {
	switch o {
	case OutcomeAllowed:
		return "allowed by the rules"
	case OutcomeApprovedOnce:
		return "asked: approved once"
	case OutcomeApprovedSession:
		return "asked: approved for the session"
	case OutcomeApprovedEarlier:
		return "approved earlier in the session"
	case OutcomeRefusedByHuman:
		return "asked: refused by a human"
	case OutcomeNoTerminal:
		return "asked: no terminal, refused"
	case OutcomeAskedElsewhere:
		return "asked: settled by the agent"
	case OutcomeDeniedByRule:
		return "denied by a rule"
	case OutcomeRefusedAdvisor:
		return "refused by the advisor"
	}
	return "other"
}

// Short is a one-word label for lists.
func (o Outcome) Short() string {
	switch o {
	case OutcomeRefusedByHuman:
		return "human-refused"
	case OutcomeNoTerminal:
		return "no-terminal"
	case OutcomeDeniedByRule:
		return "denied"
	case OutcomeRefusedAdvisor:
		return "advisor"
	case OutcomeApprovedOnce, OutcomeApprovedSession, OutcomeApprovedEarlier:
		return "approved"
	case OutcomeAskedElsewhere:
		return "asked"
	}
	return string(o)
}

// outcomeOf classifies a decide record.
func outcomeOf(decision, gate, rule string) Outcome {
	if rule == auditAdvisorRule {
		return OutcomeRefusedAdvisor
	}
	switch decision {
	case "allow":
		return OutcomeAllowed
	case "deny":
		return OutcomeDeniedByRule
	case "ask":
		switch gate {
		case "once":
			return OutcomeApprovedOnce
		case "session":
			return OutcomeApprovedSession
		case "session-rule":
			return OutcomeApprovedEarlier
		case "denied":
			return OutcomeRefusedByHuman
		case "no-terminal":
			return OutcomeNoTerminal
		case "":
			return OutcomeAskedElsewhere
		}
	}
	return OutcomeOther
}

// SandboxState classifies a record's sandbox description: "on" (a backend
// confined the session), "off" (the user turned it off, or an agent ran the
// command itself after the hook's answer) or "unknown" (no description).
func SandboxState(desc string) string {
	switch {
	case desc == "":
		return "unknown"
	case strings.HasPrefix(desc, "off"), strings.Contains(desc, "not sandboxed"):
		return "off"
	}
	return "on"
}

// Summary is what Summarize found. Its JSON encoding (schema
// SummarySchema) is the output of guardsh --audit --json.
type Summary struct {
	Schema string `json:"schema"`
	// Log is the file read (set by the caller).
	Log string `json:"log,omitempty"`
	// Since is the start of the window; zero: the whole log.
	Since time.Time `json:"since,omitzero"`
	// First and Last are the earliest and latest record times in the window.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`

	Lines     int `json:"lines"`                  // lines read, blank ones included
	Records   int `json:"records"`                // records in the window
	Before    int `json:"before"`                 // records skipped: older than Since
	Decisions int `json:"decisions"`              // decide records in the window (commands decided)
	Sessions  int `json:"sessions"`               // sessions with a record in the window
	Unsandbox int `json:"unsandboxed_sessions"`   // sessions with a record whose sandbox was off
	OtherEvts int `json:"other_events"`           // records of an event this version does not know
	Scrubbing int `json:"env_scrubbing_sessions"` // sessions that removed secrets from their environment

	// Counted is the builtins without effects that sessions counted
	// instead of logging them one by one (counts records), by name; the
	// latest counts record of each session counts.
	Counted map[string]uint64 `json:"counted,omitempty"`
	// Dropped is what sessions past their cap counted instead of logging.
	Dropped Dropped `json:"dropped,omitzero"`
	// Capped is the number of sessions that reached their cap.
	Capped int `json:"capped_sessions,omitempty"`

	// Outcomes counts decide records by final outcome; every Outcome
	// is present. They add up to Decisions.
	Outcomes map[Outcome]int `json:"outcomes"`
	// Rules counts decide records by rule and policy decision, most
	// frequent first.
	Rules []RuleCount `json:"rules"`
	// Refusals is the number of refused commands; Recent the latest of them
	// (oldest first, at most SummaryOptions.Recent).
	Refusals       int           `json:"refusals"`
	RecentRefusals []Entry       `json:"recent_refusals"`
	Escalations    int           `json:"escalations"`
	RecentEscal    []Entry       `json:"recent_escalations"`
	Exits          ExitSummary   `json:"exits"`
	Advisor        AdvisorCounts `json:"advisor"`
	// Sandboxes counts records and sessions by sandbox description.
	Sandboxes []SandboxCount `json:"sandboxes"`
	// SessionList is every session of the window, by first record time.
	SessionList []SessionSummary `json:"session_list"`
	Malformed   MalformedLines   `json:"malformed"`
}

// RuleCount is one rule's decide records.
type RuleCount struct {
	Rule     string          `json:"rule"`
	Decision string          `json:"decision"` // the policy's: allow, ask, deny
	Count    int             `json:"count"`
	Outcomes map[Outcome]int `json:"outcomes"` // only outcomes that occurred
}

// Entry is one command in a list of refusals or escalations.
type Entry struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	ID      uint64    `json:"id"`
	Outcome Outcome   `json:"outcome"`
	Rule    string    `json:"rule"`
	Argv    []string  `json:"argv"`
	// Command is Argv quoted for a shell (a line check's or the hook's
	// record holds the command line as one word: it is shown as written).
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	Reason  string `json:"reason,omitempty"`
	Via     string `json:"via,omitempty"`
}

// ExitSummary counts exit records.
type ExitSummary struct {
	Count      int     `json:"count"`
	OK         int     `json:"ok"`          // status 0
	Failed     int     `json:"failed"`      // status 1-125
	NotRun     int     `json:"not_run"`     // 126, 127: not executable, not found
	Signalled  int     `json:"signalled"`   // above 128: killed by a signal
	DurationMS float64 `json:"duration_ms"` // total
}

// AdvisorCounts counts the advisor's part in decide records (their
// "advisor" object: percent, model, error).
type AdvisorCounts struct {
	Rated       int `json:"rated"`       // records with a rating
	Cached      int `json:"cached"`      // of them, ratings from the session's cache
	Refused     int `json:"refused"`     // refusals by rule advisor.destructive
	Unavailable int `json:"unavailable"` // "advisor unavailable": no opinion
	// Requests counts the ratings the model made (not from the cache);
	// LatencyMS and the token counts are their totals.
	Requests     int     `json:"requests"`
	LatencyMS    float64 `json:"latency_ms"`
	PromptTokens int     `json:"prompt_tokens"`
	EvalTokens   int     `json:"eval_tokens"`
	// Histogram counts ratings by tens: [0] 0-9%, ... [9] 90-99%, [10] 100%.
	Histogram [11]int      `json:"histogram"`
	Models    []NamedCount `json:"models"`
	Errors    []NamedCount `json:"errors"` // the most frequent "unavailable" reasons
}

// NamedCount is a count with a name.
type NamedCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// SandboxCount is one sandbox description's records and sessions.
type SandboxCount struct {
	Sandbox  string `json:"sandbox"`
	State    string `json:"state"` // SandboxState
	Sessions int    `json:"sessions"`
	Records  int    `json:"records"` // decide records
}

// SessionSummary is one session.
type SessionSummary struct {
	Session   string    `json:"session"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	Decisions int       `json:"decisions"`
	Refused   int       `json:"refused"`
	Escalated int       `json:"escalated"`
	Failed    int       `json:"failed"` // exits with a non-zero status
	Mode      string    `json:"mode,omitempty"`
	Via       string    `json:"via,omitempty"`
	Project   string    `json:"project,omitempty"`
	// Sandbox lists the session's sandbox descriptions (normally one).
	Sandbox []string `json:"sandbox"`
	// State is "off" if any record ran unsandboxed, else "on" if any was
	// confined, else "unknown".
	State string `json:"state"`
	// EnvScrubbed lists the secret-looking variables the session removed
	// from its environment (names only); nil when its records do not say
	// that it scrubbed ([env], recorded on its first decide record).
	EnvScrubbed []string `json:"env_scrubbed,omitempty"`
	// Scrubbed reports whether the session scrubbed its environment.
	Scrubbed bool `json:"env_scrubbing"`
}

// MalformedLines counts lines that are not audit records.
type MalformedLines struct {
	Count int             `json:"count"`
	First []MalformedLine `json:"first"` // the first few
}

// MalformedLine is one unreadable line.
type MalformedLine struct {
	Line  int    `json:"line"` // 1-based
	Error string `json:"error"`
}

// SummaryOptions tunes Summarize.
type SummaryOptions struct {
	// Since skips records older than it; zero reads the whole log.
	Since time.Time
	// Recent is how many refusals and escalations to keep (default 10).
	Recent int
	// MaxLine is the longest line read (default 16 MiB); a longer one is
	// counted as malformed.
	MaxLine int
}

// maxMalformedShown bounds MalformedLines.First; maxNames bounds the distinct
// advisor models and errors counted.
const (
	maxMalformedShown = 5
	maxNames          = 64
	maxSessionSandbox = 4
)

// auditLine is a line as Summarize decodes it: the fields it needs,
// the ones it needs rarely kept raw (decoded only for the lines listed).
type auditLine struct {
	Time       string            `json:"time"`
	Event      string            `json:"event"`
	ID         uint64            `json:"id"`
	Session    string            `json:"session"`
	Cwd        json.RawMessage   `json:"cwd"`
	Project    json.RawMessage   `json:"project"`
	Argv       json.RawMessage   `json:"argv"`
	Via        json.RawMessage   `json:"via"`
	Mode       json.RawMessage   `json:"mode"`
	Decision   string            `json:"decision"`
	Rule       string            `json:"rule"`
	Reason     json.RawMessage   `json:"reason"`
	Gate       string            `json:"gate"`
	Escalated  bool              `json:"escalated"`
	Sandbox    json.RawMessage   `json:"sandbox"`
	Status     *int              `json:"status"`
	DurationMS float64           `json:"duration_ms"`
	Advisor    json.RawMessage   `json:"advisor"`
	Scrubbed   json.RawMessage   `json:"env_scrubbed"`
	Counts     map[string]uint64 `json:"counts"`
	Dropped    *Dropped          `json:"dropped"`

	t   time.Time // the time, when the fast path parsed it (tOK)
	tOK bool
}

func (l *auditLine) reset() {
	*l = auditLine{
		Cwd: l.Cwd[:0], Project: l.Project[:0], Argv: l.Argv[:0], Via: l.Via[:0], Mode: l.Mode[:0],
		Reason: l.Reason[:0], Sandbox: l.Sandbox[:0], Advisor: l.Advisor[:0], Scrubbed: l.Scrubbed[:0],
	}
}

// advisorRecord is the advisor object of a decide record, read leniently.
type advisorRecord struct {
	Percent      any     `json:"percent"` // a number; anything else is no rating
	Model        string  `json:"model"`
	Error        string  `json:"error"`
	Cached       bool    `json:"cached"`
	LatencyMS    float64 `json:"latency_ms"`
	PromptTokens int     `json:"prompt_tokens"`
	EvalTokens   int     `json:"eval_tokens"`
}

type ruleKey struct{ rule, decision string }

type sessionAcc struct {
	s       SessionSummary
	sandbox []string // raw JSON strings
	// the latest counts record's totals (they are totals since the
	// session began)
	counts  map[string]uint64
	dropped Dropped
}

type summarizer struct {
	opt      SummaryOptions
	sum      *Summary
	rules    map[ruleKey]*RuleCount
	sessions map[string]*sessionAcc
	sandbox  map[string]*SandboxCount // by raw JSON string
	models   map[string]int
	errs     map[string]int
	refusals ring
	escal    ring
	fast     fastDecoder
	partial  bool // the line is the log's last and has no newline
}

// Summarize reads the audit log r to its end and summarises it. Only a
// read error is returned as an error (with the summary so far); unreadable
// lines are counted in Malformed.
func Summarize(r io.Reader, opt SummaryOptions) (*Summary, error) {
	if opt.Recent <= 0 {
		opt.Recent = 10
	}
	if opt.MaxLine <= 0 {
		opt.MaxLine = 16 << 20
	}
	s := &summarizer{
		opt:      opt,
		sum:      &Summary{Schema: SummarySchema, Since: opt.Since, Outcomes: map[Outcome]int{}},
		rules:    map[ruleKey]*RuleCount{},
		sessions: map[string]*sessionAcc{},
		sandbox:  map[string]*SandboxCount{},
		models:   map[string]int{},
		errs:     map[string]int{},
		refusals: ring{max: opt.Recent},
		escal:    ring{max: opt.Recent},
	}
	br := bufio.NewReaderSize(r, 256<<10)
	var (
		long    []byte // a line longer than the reader's buffer
		line    auditLine
		readErr error
		tooLong bool
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !tooLong {
				if len(long)+len(chunk) > opt.MaxLine {
					tooLong, long = true, long[:0]
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		data := chunk
		if len(long)+len(chunk) > opt.MaxLine {
			tooLong = true
		} else if len(long) > 0 {
			long = append(long, chunk...)
			data = long
		}
		if len(chunk) > 0 || tooLong {
			s.sum.Lines++
			if tooLong {
				s.malformed(fmt.Sprintf("line longer than %d bytes", opt.MaxLine))
			} else {
				s.partial = err == io.EOF && data[len(data)-1] != '\n'
				s.line(data, &line)
			}
		}
		long, tooLong = long[:0], false
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	s.finish()
	return s.sum, readErr
}

func (s *summarizer) malformed(why string) {
	if s.partial {
		why = "the last line is incomplete (a session may be writing it): " + why
	}
	m := &s.sum.Malformed
	m.Count++
	if len(m.First) < maxMalformedShown {
		m.First = append(m.First, MalformedLine{Line: s.sum.Lines, Error: why})
	}
}

func (s *summarizer) line(data []byte, l *auditLine) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	l.reset()
	if !s.fast.decode(data, l) {
		l.reset()
		if err := json.Unmarshal(data, l); err != nil {
			s.malformed(jsonError(err))
			return
		}
	}
	if (l.Time == "" && !l.tOK) || l.Event == "" {
		s.malformed("not an audit record: no time or event")
		return
	}
	t := l.t
	if !l.tOK {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, l.Time); err != nil {
			s.malformed("bad time " + strconv.Quote(l.Time))
			return
		}
	}
	if !s.opt.Since.IsZero() && t.Before(s.opt.Since) {
		s.sum.Before++
		return
	}
	sum := s.sum
	sum.Records++
	if sum.First.IsZero() || t.Before(sum.First) {
		sum.First = t
	}
	if t.After(sum.Last) {
		sum.Last = t
	}
	sess := s.session(l.Session, t)
	switch l.Event {
	case EventDecide:
		s.decide(l, t, sess)
	case EventExit:
		s.exit(l, sess)
	case EventCounts:
		if l.Counts != nil {
			sess.counts = l.Counts
		}
		if l.Dropped != nil {
			sess.dropped = *l.Dropped
		}
	case EventLimit:
		sum.Capped++
	default:
		sum.OtherEvts++
	}
}

// jsonError shortens a decoding error for the malformed-lines list.
func jsonError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("not JSON: %v (offset %d)", se, se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q: %s instead of %s", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

func (s *summarizer) session(id string, t time.Time) *sessionAcc {
	a := s.sessions[id]
	if a == nil {
		a = &sessionAcc{s: SessionSummary{Session: id, First: t, Last: t}}
		s.sessions[id] = a
	}
	if t.Before(a.s.First) {
		a.s.First = t
	}
	if t.After(a.s.Last) {
		a.s.Last = t
	}
	return a
}

func (s *summarizer) decide(l *auditLine, t time.Time, sess *sessionAcc) {
	sum := s.sum
	sum.Decisions++
	out := outcomeOf(l.Decision, l.Gate, l.Rule)
	sum.Outcomes[out]++

	k := ruleKey{l.Rule, l.Decision}
	rc := s.rules[k]
	if rc == nil {
		rc = &RuleCount{Rule: l.Rule, Decision: l.Decision, Outcomes: map[Outcome]int{}}
		s.rules[k] = rc
	}
	rc.Count++
	rc.Outcomes[out]++

	ss := &sess.s
	ss.Decisions++
	if ss.Mode == "" && len(l.Mode) > 0 {
		ss.Mode = rawString(l.Mode)
	}
	if ss.Via == "" && len(l.Via) > 0 {
		ss.Via = rawString(l.Via)
	}
	if ss.Project == "" && len(l.Project) > 0 {
		ss.Project = rawString(l.Project)
	}
	if !ss.Scrubbed && len(l.Scrubbed) > 0 && !bytes.Equal(l.Scrubbed, []byte("null")) {
		var names []string
		if json.Unmarshal(l.Scrubbed, &names) == nil {
			ss.Scrubbed, ss.EnvScrubbed = true, names
			s.sum.Scrubbing++
		}
	}
	sb := s.sandbox[string(l.Sandbox)] // no allocation: a lookup
	if sb == nil {
		desc := rawString(l.Sandbox)
		sb = &SandboxCount{Sandbox: desc, State: SandboxState(desc)}
		s.sandbox[string(l.Sandbox)] = sb
	}
	sb.Records++
	known := false
	for _, d := range sess.sandbox {
		if d == string(l.Sandbox) {
			known = true
			break
		}
	}
	if !known && len(sess.sandbox) < maxSessionSandbox {
		sess.sandbox = append(sess.sandbox, string(l.Sandbox))
		sb.Sessions++
	}

	if out.Refused() {
		sum.Refusals++
		ss.Refused++
		s.refusals.add(s.entry(l, t, out))
	}
	if l.Escalated {
		sum.Escalations++
		ss.Escalated++
		s.escal.add(s.entry(l, t, out))
	}
	if out == OutcomeRefusedAdvisor {
		sum.Advisor.Refused++
	}
	if len(l.Advisor) > 0 && !bytes.Equal(l.Advisor, []byte("null")) {
		var a advisorRecord
		_ = json.Unmarshal(l.Advisor, &a) // lenient: keep what decodes
		adv := &sum.Advisor
		p, rated := a.Percent.(float64)
		if rated {
			adv.Rated++
			p := int(p)
			adv.Histogram[min(max(p/10, 0), 10)]++
		}
		if a.Model != "" {
			countName(s.models, a.Model)
		}
		if a.Error != "" {
			adv.Unavailable++
			countName(s.errs, a.Error)
		}
		switch {
		case rated && a.Cached:
			adv.Cached++
		case rated:
			adv.Requests++
			adv.LatencyMS += a.LatencyMS
			adv.PromptTokens += a.PromptTokens
			adv.EvalTokens += a.EvalTokens
		}
	}
}

func countName(m map[string]int, name string) {
	if _, ok := m[name]; ok || len(m) < maxNames {
		m[name]++
		return
	}
	m["(other)"]++
}

func (s *summarizer) exit(l *auditLine, sess *sessionAcc) {
	e := &s.sum.Exits
	e.Count++
	e.DurationMS += l.DurationMS
	st := 0
	if l.Status != nil {
		st = *l.Status
	}
	switch {
	case st == 0:
		e.OK++
	case st == 126 || st == 127:
		e.NotRun++
	case st > 128:
		e.Signalled++
	default:
		e.Failed++
	}
	if st != 0 {
		sess.s.Failed++
	}
}

func (s *summarizer) entry(l *auditLine, t time.Time, out Outcome) Entry {
	e := Entry{
		Time: t, Session: l.Session, ID: l.ID, Outcome: out, Rule: l.Rule,
		Cwd: rawString(l.Cwd), Reason: rawString(l.Reason), Via: rawString(l.Via),
	}
	if len(l.Argv) > 0 {
		_ = json.Unmarshal(l.Argv, &e.Argv)
	}
	e.Command = CommandLine(e.Argv, e.Via)
	return e
}

// CommandLine returns argv as a shell command line. A record of the line
// check (via "line") or of the hook (via "hook:...") holds the command line
// as one word: it comes back as written, control characters escaped.
func CommandLine(argv []string, via string) string {
	if len(argv) == 1 && (via == "line" || strings.HasPrefix(via, "hook")) {
		return Escape(argv[0])
	}
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		switch {
		case err != nil: // a NUL byte: cannot be in an argv, show it escaped
			q = strconv.Quote(a)
		case i > 0 && q != a && strings.Contains(a, "="):
			// "=" only matters in the first word (an assignment):
			// of=disk.img needs no quotes.
			if u, _ := syntax.Quote(strings.ReplaceAll(a, "=", "_"), syntax.LangBash); u == strings.ReplaceAll(a, "=", "_") {
				q = a
			}
		}
		b.WriteString(q)
	}
	return b.String()
}

// Escape makes s safe to print on a terminal and keeps it on one
// line: newlines, tabs and other non-printable characters (escape
// sequences, C1 controls, bidirectional overrides) come back escaped.
// Audit records hold what the agent wrote.
func Escape(s string) string {
	if !strings.ContainsFunc(s, notPrintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && notPrintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case notPrintable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func notPrintable(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }

// rawString decodes a raw JSON string; "" if it is not one.
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func (s *summarizer) finish() {
	sum := s.sum
	for _, a := range s.sessions {
		for name, n := range a.counts {
			if sum.Counted == nil {
				sum.Counted = map[string]uint64{}
			}
			if _, ok := sum.Counted[name]; !ok && len(sum.Counted) >= 4*maxNames {
				name = "(other)"
			}
			sum.Counted[name] += n
		}
		d := &sum.Dropped
		d.Allow += a.dropped.Allow
		d.Ask += a.dropped.Ask
		d.Deny += a.dropped.Deny
		d.Exit += a.dropped.Exit
		d.Repeats += a.dropped.Repeats
	}
	for _, o := range Outcomes {
		sum.Outcomes[o] += 0
	}
	sum.Rules = make([]RuleCount, 0, len(s.rules))
	for _, rc := range s.rules {
		sum.Rules = append(sum.Rules, *rc)
	}
	sort.Slice(sum.Rules, func(i, j int) bool {
		a, b := sum.Rules[i], sum.Rules[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Decision < b.Decision
	})
	sum.RecentRefusals = s.refusals.list()
	sum.RecentEscal = s.escal.list()
	sum.Sandboxes = make([]SandboxCount, 0, len(s.sandbox))
	for _, sb := range s.sandbox {
		sum.Sandboxes = append(sum.Sandboxes, *sb)
	}
	sort.Slice(sum.Sandboxes, func(i, j int) bool {
		a, b := sum.Sandboxes[i], sum.Sandboxes[j]
		if a.Records != b.Records {
			return a.Records > b.Records
		}
		return a.Sandbox < b.Sandbox
	})
	sum.SessionList = make([]SessionSummary, 0, len(s.sessions))
	for _, a := range s.sessions {
		ss := a.s
		ss.Sandbox = make([]string, 0, len(a.sandbox))
		ss.State = "unknown"
		for _, raw := range a.sandbox {
			d := s.sandbox[raw].Sandbox
			ss.Sandbox = append(ss.Sandbox, d)
			switch st := SandboxState(d); {
			case st == "off":
				ss.State = "off"
			case st == "on" && ss.State == "unknown":
				ss.State = "on"
			}
		}
		if ss.State == "off" {
			sum.Unsandbox++
		}
		sum.SessionList = append(sum.SessionList, ss)
	}
	sort.Slice(sum.SessionList, func(i, j int) bool {
		a, b := sum.SessionList[i], sum.SessionList[j]
		if !a.First.Equal(b.First) {
			return a.First.Before(b.First)
		}
		return a.Session < b.Session
	})
	sum.Sessions = len(sum.SessionList)
	sum.Advisor.Models = sortedNames(s.models)
	sum.Advisor.Errors = sortedNames(s.errs)
	if sum.Malformed.First == nil {
		sum.Malformed.First = []MalformedLine{}
	}
}

func sortedNames(m map[string]int) []NamedCount {
	out := make([]NamedCount, 0, len(m))
	for n, c := range m {
		out = append(out, NamedCount{n, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ring keeps the latest max entries.
type ring struct {
	max   int
	items []Entry
	next  int
}

func (r *ring) add(e Entry) {
	if len(r.items) < r.max {
		r.items = append(r.items, e)
		return
	}
	r.items[r.next] = e
	r.next = (r.next + 1) % r.max
}

// list returns the entries oldest first.
func (r *ring) list() []Entry {
	out := make([]Entry, 0, len(r.items))
	out = append(out, r.items[r.next:]...)
	return append(out, r.items[:r.next]...)
}

// ParseSince reads --since: a duration back from now (Go's syntax,
// "90m", "36h", plus days and weeks: "7d", "2w", "1w3d12h"), or a UTC date
// or time ("2026-11-30", "2026-11-30T08:00:00Z"). It returns the start of
// the window.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty duration")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	d, err := parseLongDuration(s)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-d), nil
}

// parseLongDuration is time.ParseDuration with d (24h) and w (7d) units.
func parseLongDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q: not a duration (e.g. 30m, 36h, 7d, 2w) or date (2026-11-30)", s)
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || (rest[i] != 'd' && rest[i] != 'w') {
			break
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil || n > 100000 {
			return 0, bad
		}
		unit := 24 * time.Hour
		if rest[i] == 'w' {
			unit *= 7
		}
		total += time.Duration(n) * unit
		rest = rest[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil {
			return 0, bad
		}
		total += d
	}
	if total <= 0 {
		return 0, fmt.Errorf("%q: the duration must be positive", s)
	}
	return total, nil
}
