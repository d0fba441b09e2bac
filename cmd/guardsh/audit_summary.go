package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

// guardsh --audit: a summary of the audit log for a human tuning rules
// (or, with --json, for a program).
//
//	guardsh --audit [--since DURATION|DATE] [--json] [--file PATH|-] [--top N] [--recent N]
//
// The log is the one sessions write: [audit] path in the user config, else
// $XDG_STATE_HOME/guardsh/audit.jsonl, else ~/.local/state/guardsh/audit.jsonl.
// Exit status: 0 summary printed, 1 no log or a read error, 2 usage or
// configuration error.

func init() {
	registerMode("--audit", runAuditSummary)
}

const auditUsage = `usage: guardsh --audit [--since DURATION|DATE] [--json] [--file PATH|-] [--top N] [--recent N]
Summarises the audit log: commands by outcome and by rule, the latest refusals
and escalations, exit statuses, the advisor's ratings, each session's sandbox.
  --since 36h|7d|2w|1w2d|2026-11-30   only records from then on (times in UTC)
  --json                              one JSON object (schema guardsh-audit-summary/1)
  --file PATH                         read this log ("-": standard input)
  --top N                             rules listed (default 15)
  --recent N                          refusals, escalations, sessions listed (default 10)
Exit status: 0 summary printed, 1 no log or read error, 2 usage or configuration error.
`

// auditOptions is a parsed --audit command line.
type auditOptions struct {
	since  string
	json   bool
	file   string
	top    int
	recent int
}

func parseAuditArgs(args []string) (*auditOptions, error) {
	o := &auditOptions{top: 15, recent: 10}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		needVal := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s: option requires an argument", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--json":
			if hasVal {
				return nil, fmt.Errorf("--json takes no value")
			}
			o.json = true
		case "--since":
			o.since, err = needVal()
		case "--file", "--audit-file":
			o.file, err = needVal()
		case "--top", "--recent":
			var v string
			if v, err = needVal(); err == nil {
				n, perr := strconv.Atoi(v)
				if perr != nil || n < 0 {
					return nil, fmt.Errorf("%s: %q is not a count", name, v)
				}
				if name == "--top" {
					o.top = n
				} else {
					o.recent = n
				}
			}
		case "-h", "--help":
			return nil, errHelp
		default:
			return nil, fmt.Errorf("%s: unknown option or argument", a)
		}
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

// auditLogPath is the log a session here would write: the configuration's
// choice, as sessions resolve it.
func auditLogPath() (string, error) {
	home, _ := os.UserHomeDir()
	// The project file cannot move the log: only the user file is read.
	cfg, err := guardsh.LoadConfig(home, "", os.Getenv)
	if err != nil {
		return "", err
	}
	path := cfg.AuditLogPath(home, os.Getenv)
	if path == "" {
		return "", fmt.Errorf("the audit log is turned off ([audit] enabled = false in %s); give --file PATH to read a log",
			guardsh.UserConfigPath(home, os.Getenv))
	}
	return path, nil
}

func runAuditSummary(args []string) int {
	o, err := parseAuditArgs(args)
	if err == errHelp {
		fmt.Print(auditUsage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --audit: %v\n%s", err, auditUsage)
		return 2
	}
	now := time.Now().UTC()
	opt := audit.SummaryOptions{Recent: max(o.recent, 1)}
	if o.since != "" {
		if opt.Since, err = audit.ParseSince(o.since, now); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: --since %v\n", err)
			return 2
		}
	}
	path := o.file
	if path == "" {
		if path, err = auditLogPath(); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
			return 2
		}
	}
	var in io.Reader = os.Stdin
	if path == "-" {
		path = "(standard input)"
	} else {
		// The log found by itself is opened without waiting: a FIFO in
		// its place (sessions write a regular file) is refused below
		// instead of blocking until a writer comes. --file reads what it
		// is told to, a pipe included.
		flag := os.O_RDONLY
		if o.file == "" {
			flag |= syscall.O_NONBLOCK
		}
		f, err := os.OpenFile(path, flag, 0)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "guardsh: no audit log at %s: no guardsh session has written one yet.\n"+
				"guardsh: (guardsh sessions, the hook and guardsh-agent write it; [audit] path in the user config moves it; --file PATH reads another)\n", path)
			return 1
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: audit log: %v\n", err)
			return 1
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			fmt.Fprintf(os.Stderr, "guardsh: audit log: %s is a directory\n", path)
			return 1
		} else if err == nil && o.file == "" && !st.Mode().IsRegular() {
			fmt.Fprintf(os.Stderr, "guardsh: audit log: %s is not a regular file (%s); guardsh sessions write a regular file: "+
				"something else replaced it (read it anyway with --file %s)\n", audit.Escape(path), fileKind(st.Mode()), audit.Escape(path))
			return 1
		}
		in = f
	}
	sum, rerr := audit.Summarize(in, opt)
	sum.Log = path
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	if o.json {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum) // cannot fail: plain values
	} else {
		writeAuditText(out, sum, o)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return 1
	}
	if rerr != nil {
		fmt.Fprintf(os.Stderr, "guardsh: reading %s: %v (the summary covers the lines before it)\n", path, rerr)
		return 1
	}
	return 0
}

// fileKind names a non-regular file's type for a message.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "type " + m.Type().String()
}

const auditTimeFormat = "2006-01-02 15:04:05"

// writeAuditText prints the summary for people: short sections, aligned
// columns, text from the log escaped (it holds what the agent wrote).
func writeAuditText(w io.Writer, s *audit.Summary, o *auditOptions) {
	esc := audit.Escape
	fmt.Fprintf(w, "audit log  %s\n", esc(s.Log))
	if !s.Since.IsZero() {
		fmt.Fprintf(w, "since      %s UTC (--since %s)\n", s.Since.Format(auditTimeFormat), esc(o.since))
	}
	if s.Records == 0 {
		fmt.Fprintf(w, "period     no records")
		if s.Before > 0 {
			fmt.Fprintf(w, " (%d older ones before --since)", s.Before)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "period     %s to %s UTC (%s)\n", s.First.Format(auditTimeFormat), s.Last.Format(auditTimeFormat), shortDuration(s.Last.Sub(s.First)))
	}
	unsand := ""
	if s.Unsandbox > 0 {
		unsand = fmt.Sprintf(", %d of them UNSANDBOXED", s.Unsandbox)
	}
	if s.Scrubbing > 0 {
		unsand += fmt.Sprintf(", %d with secrets removed from their environment", s.Scrubbing)
	}
	fmt.Fprintf(w, "commands   %d decided in %s%s\n", s.Decisions, plural(s.Sessions, "session"), unsand)
	if s.Before > 0 && s.Records > 0 {
		fmt.Fprintf(w, "skipped    %s before --since\n", plural(s.Before, "record"))
	}
	if len(s.Counted) > 0 {
		var total uint64
		for _, n := range s.Counted {
			total += n
		}
		fmt.Fprintf(w, "counted    %d builtins without effects (counted per name, not logged one by one)\n", total)
	}
	if d := s.Dropped; s.Capped > 0 || d != (audit.Dropped{}) {
		fmt.Fprintf(w, "capped     %s reached the audit cap; not logged: %d allowed, %d asks, %d refusals, %d repeated refusals, %d exits\n",
			plural(s.Capped, "session"), d.Allow, d.Ask, d.Deny, d.Repeats, d.Exit)
	}
	if s.OtherEvts > 0 {
		fmt.Fprintf(w, "other      %d records of unknown events (ignored)\n", s.OtherEvts)
	}
	if m := s.Malformed; m.Count > 0 {
		var first []string
		for _, l := range m.First {
			first = append(first, strconv.Itoa(l.Line))
		}
		more := ""
		if m.Count > len(m.First) {
			more = ", ..."
		}
		fmt.Fprintf(w, "malformed  %s skipped (line %s%s; line %d: %s)\n", plural(m.Count, "line"), strings.Join(first, ", "), more, m.First[0].Line, esc(m.First[0].Error))
	}
	if s.Records == 0 {
		return
	}

	fmt.Fprintf(w, "\noutcomes\n")
	var rows [][]string
	for _, oc := range audit.Outcomes {
		n := s.Outcomes[oc]
		if n == 0 && (oc == audit.OutcomeOther || oc == audit.OutcomeRefusedAdvisor || oc == audit.OutcomeAskedElsewhere) {
			continue
		}
		rows = append(rows, []string{oc.Label(), strconv.Itoa(n), percent(n, s.Decisions)})
	}
	writeTable(w, "  ", "lrr", rows)

	if len(s.Rules) > 0 && o.top > 0 {
		n := min(o.top, len(s.Rules))
		fmt.Fprintf(w, "\nrules (%d of %d, most frequent first)\n", n, len(s.Rules))
		rows = [][]string{{"count", "decision", "rule", "outcomes"}}
		for _, r := range s.Rules[:n] {
			rows = append(rows, []string{strconv.Itoa(r.Count), orDash(r.Decision), esc(orDash(r.Rule)), ruleOutcomes(r)})
		}
		writeTable(w, "  ", "rlll", rows)
	}

	if s.Refusals > 0 && o.recent > 0 {
		writeRecent(w, "refused", s.Refusals, s.RecentRefusals, o.recent)
	}
	if s.Escalations > 0 && o.recent > 0 {
		writeRecent(w, "escalated: ran outside the sandbox with extra rights", s.Escalations, s.RecentEscal, o.recent)
	}

	if x := s.Exits; x.Count > 0 {
		fmt.Fprintf(w, "\nexits      %d: %d ok, %d failed, %d not found or not executable, %d killed by a signal; %s running\n",
			x.Count, x.OK, x.Failed, x.NotRun, x.Signalled, shortDuration(time.Duration(x.DurationMS*float64(time.Millisecond))))
	}

	if a := s.Advisor; a.Rated+a.Refused+a.Unavailable > 0 {
		fmt.Fprintf(w, "\nadvisor    %d rated (%d from the cache), %d refused (advisor.destructive), %d unavailable (no opinion: the command went on)\n",
			a.Rated, a.Cached, a.Refused, a.Unavailable)
		if a.Requests > 0 {
			fmt.Fprintf(w, "  cost         %d requests, %.0f ms and %d+%d tokens each on average\n", a.Requests,
				a.LatencyMS/float64(a.Requests), a.PromptTokens/a.Requests, a.EvalTokens/a.Requests)
		}
		var hist []string
		for i, n := range a.Histogram {
			if n == 0 {
				continue
			}
			if i == 10 {
				hist = append(hist, fmt.Sprintf("100%%: %d", n))
			} else {
				hist = append(hist, fmt.Sprintf("%d-%d%%: %d", i*10, i*10+9, n))
			}
		}
		if len(hist) > 0 {
			fmt.Fprintf(w, "  ratings      %s\n", strings.Join(hist, ", "))
		}
		if len(a.Models) > 0 {
			fmt.Fprintf(w, "  models       %s\n", namedCounts(a.Models, 5))
		}
		if len(a.Errors) > 0 {
			errs := make([]audit.NamedCount, len(a.Errors))
			for i, e := range a.Errors {
				errs[i] = audit.NamedCount{Name: strings.TrimPrefix(e.Name, "advisor unavailable: "), Count: e.Count}
			}
			fmt.Fprintf(w, "  unavailable  %s\n", namedCounts(errs, 3))
		}
	}

	if len(s.Sandboxes) > 0 {
		fmt.Fprintf(w, "\nsandbox\n")
		rows = [][]string{{"sessions", "commands", "sandbox", ""}}
		for _, sb := range s.Sandboxes {
			rows = append(rows, []string{strconv.Itoa(sb.Sessions), strconv.Itoa(sb.Records), esc(orDash(sb.Sandbox)), sandboxFlag(sb.State)})
		}
		writeTable(w, "  ", "rrll", rows)
	}

	if len(s.SessionList) > 0 && o.recent > 0 {
		list := s.SessionList[max(len(s.SessionList)-o.recent, 0):]
		fmt.Fprintf(w, "\nsessions (the latest %d of %d; ! = unsandboxed)\n", len(list), len(s.SessionList))
		rows = [][]string{{"", "started", "session", "mode", "commands", "refused", "sandbox", "secrets", "project"}}
		for _, ss := range list {
			mark := ""
			if ss.State == "off" {
				mark = "!"
			}
			secrets := "-"
			if ss.Scrubbed {
				secrets = fmt.Sprintf("%d removed", len(ss.EnvScrubbed))
			}
			rows = append(rows, []string{mark, ss.First.Format("2006-01-02 15:04"), esc(orDash(ss.Session)), esc(orDash(ss.Mode)),
				strconv.Itoa(ss.Decisions), strconv.Itoa(ss.Refused), esc(orDash(strings.Join(ss.Sandbox, "; "))), secrets, esc(ss.Project)})
		}
		if s.Scrubbing == 0 { // no session scrubbed: no column
			for i := range rows {
				rows[i] = append(rows[i][:7], rows[i][8])
			}
		}
		writeTable(w, "", "llllrrlll", rows)
	}
}

// writeRecent prints the latest (at most recent) entries of list under
// "title (total; the latest n)".
func writeRecent(w io.Writer, title string, total int, list []audit.Entry, recent int) {
	list = list[max(len(list)-recent, 0):]
	fmt.Fprintf(w, "\n%s (%d; the latest %d)\n", title, total, len(list))
	var rows [][]string
	for _, e := range list {
		rows = append(rows, []string{e.Time.Format(auditTimeFormat), e.Outcome.Short(), audit.Escape(orDash(e.Rule)), clip(e.Command, 100), "in " + audit.Escape(e.Cwd)})
	}
	writeTable(w, "  ", "lllll", rows)
}

// writeTable prints rows in columns two spaces apart, each aligned as
// align says ('l' or 'r' per column; the last column is not padded).
func writeTable(w io.Writer, indent, align string, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			right := i < len(align) && align[i] == 'r'
			switch {
			case right:
				b.WriteString(pad + c)
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// plural is "1 session", "2 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func percent(n, total int) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

// ruleOutcomes lists what happened to an ask rule's commands ("" for rules
// whose commands all had one outcome that the decision says).
func ruleOutcomes(r audit.RuleCount) string {
	if len(r.Outcomes) == 1 {
		for oc := range r.Outcomes {
			if (r.Decision == "allow" && oc == audit.OutcomeAllowed) || (r.Decision == "deny" && oc == audit.OutcomeDeniedByRule) {
				return ""
			}
		}
	}
	var parts []string
	for _, oc := range audit.Outcomes {
		if n := r.Outcomes[oc]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", shortOutcome(oc), n))
		}
	}
	return strings.Join(parts, ", ")
}

func shortOutcome(oc audit.Outcome) string {
	switch oc {
	case audit.OutcomeApprovedOnce:
		return "approved once"
	case audit.OutcomeApprovedSession:
		return "approved for the session"
	case audit.OutcomeApprovedEarlier:
		return "approved earlier"
	case audit.OutcomeAllowed:
		return "allowed"
	}
	return oc.Short()
}

func namedCounts(list []audit.NamedCount, n int) string {
	var parts []string
	for i, c := range list {
		if i == n {
			parts = append(parts, fmt.Sprintf("(%d more)", len(list)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", c.Count, audit.Escape(c.Name)))
	}
	return strings.Join(parts, "; ")
}

func sandboxFlag(state string) string {
	switch state {
	case "off":
		return "UNSANDBOXED"
	case "unknown":
		return "(not recorded)"
	}
	return ""
}

// shortDuration prints d coarsely: 3d4h, 5h12m, 4m10s, 1.2s, 15ms.
func shortDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd%dh", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%dm", d/time.Hour, d%time.Hour/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%ds", d/time.Minute, d%time.Minute/time.Second)
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Millisecond).String()
}
