package interp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/guardsh/guardsh/guardsh"
	"golang.org/x/term"
	"mvdan.cc/sh/v3/syntax"
)

// Gate answers the policy's asks: a human (the terminal gate), the agent's
// own UI, or a test. A nil Config.Gate means nobody can be asked: every ask
// is refused with a message saying that a human must approve it and how.
type Gate interface {
	// Approve decides one ask. It must not return GateAllowOnce or
	// GateAllowSession unless a human said so.
	Approve(ctx context.Context, req GateRequest) GateAnswer
}

// GateRequest is one ask put before the gate.
type GateRequest struct {
	Command guardsh.Command
	Verdict guardsh.Verdict
	// Session is the normalised prefix rule "allow for this session" would
	// store.
	Session guardsh.Rule
	// Diff is the change a file write would make (unified diff), when the
	// caller has one.
	Diff string
}

// GateAnswer is the gate's decision.
type GateAnswer int

// The gate's answers.
const (
	GateDeny         GateAnswer = iota // a human refused
	GateAllowOnce                      // run this command this once
	GateAllowSession                   // run it, and store Session for the rest of the session
	GateNoHuman                        // nobody could be asked (no terminal, EOF)
)

// String names the answer as audit records do.
func (a GateAnswer) String() string {
	switch a {
	case GateDeny:
		return "denied"
	case GateAllowOnce:
		return "once"
	case GateAllowSession:
		return "session"
	case GateNoHuman:
		return "no-terminal"
	}
	return "answer(" + strconv.Itoa(int(a)) + ")"
}

// UserConfigHint is how refusal messages name the user config file.
var UserConfigHint = "~/.config/guardsh/config.toml"

// TerminalGate asks on a terminal (normally /dev/tty, the controlling
// terminal, which an agent cannot write to through the command's stdin):
// allow once, allow for this session, or deny. EOF, an error, Ctrl-C or
// Ctrl-D are a deny.
type TerminalGate struct {
	mu  sync.Mutex
	in  io.Reader
	out io.Writer
	fd  int // terminal file descriptor for raw mode; -1 for none
	rd  *bufio.Reader
}

// OpenTerminalGate opens /dev/tty. It fails when the process has no
// controlling terminal; the caller then leaves Config.Gate nil.
func OpenTerminalGate() (*TerminalGate, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if !term.IsTerminal(int(f.Fd())) {
		f.Close()
		return nil, fmt.Errorf("/dev/tty is not a terminal")
	}
	return NewTerminalGate(f), nil
}

// NewTerminalGate asks on tty. If tty is a terminal the answer is one key
// (raw mode); otherwise a line is read.
func NewTerminalGate(tty *os.File) *TerminalGate {
	fd := int(tty.Fd())
	if !term.IsTerminal(fd) {
		fd = -1
	}
	return &TerminalGate{in: tty, out: tty, fd: fd, rd: bufio.NewReaderSize(tty, 64)}
}

// Approve shows the command (and the diff, if any) and reads the answer.
func (t *TerminalGate) Approve(ctx context.Context, req GateRequest) GateAnswer {
	t.mu.Lock() // one prompt at a time (pipelines ask concurrently)
	defer t.mu.Unlock()
	if ctx.Err() != nil {
		return GateDeny
	}
	v := req.Verdict
	var b strings.Builder
	fmt.Fprintf(&b, "\r\nguardsh: approve? [%s] %s\r\n", sanitize(v.Rule), sanitize(strings.TrimRight(v.Reason, ".")))
	fmt.Fprintf(&b, "  $ %s\r\n", DisplayArgv(req.Command.Args))
	if req.Command.Dir != "" {
		fmt.Fprintf(&b, "  in %s\r\n", sanitize(req.Command.Dir))
	}
	if e := describeEffects(v.Effects); e != "" {
		fmt.Fprintf(&b, "  wants: %s\r\n", e)
	}
	if req.Diff != "" {
		for _, ln := range strings.Split(strings.TrimRight(req.Diff, "\n"), "\n") {
			fmt.Fprintf(&b, "  %s\r\n", sanitize(ln))
		}
	}
	sess := strings.Join(displayPrefix(req.Session.Prefix), " ")
	if sess != "" {
		fmt.Fprintf(&b, "  [o] allow once   [s] allow for this session (%s)   [d] deny: ", sess)
	} else {
		b.WriteString("  [o] allow once   [d] deny: ")
	}
	if t.fd >= 0 {
		flushInput(t.fd)
		t.rd.Reset(t.in)
	}
	io.WriteString(t.out, b.String())
	for {
		c, err := t.readKey(ctx)
		if err != nil {
			io.WriteString(t.out, "\r\nguardsh: no answer: denied\r\n")
			return GateNoHuman
		}
		switch unicode.ToLower(rune(c)) {
		case 'o', 'y', '1':
			io.WriteString(t.out, "allow once\r\n")
			return GateAllowOnce
		case 's', 'a', '2':
			if sess == "" {
				io.WriteString(t.out, "\r\n  a configured ask rule asks every time: o (once) or d (deny): ")
				continue
			}
			fmt.Fprintf(t.out, "allow for session\r\nguardsh: stored for this session: allow %s\r\n", sess)
			return GateAllowSession
		case 'd', 'n', '3', 0x1b:
			io.WriteString(t.out, "deny\r\n")
			return GateDeny
		case 3, 4: // Ctrl-C, Ctrl-D
			io.WriteString(t.out, "deny\r\n")
			return GateDeny
		case '\r', '\n', ' ':
		default:
			io.WriteString(t.out, "\r\n  please answer o (once), s (session) or d (deny): ")
		}
	}
}

// readKey reads one key: in raw mode on a terminal, else the first
// character of a line. On a terminal it gives up when ctx ends (the shell
// is being stopped): the answer is then a deny.
func (t *TerminalGate) readKey(ctx context.Context) (byte, error) {
	if t.fd >= 0 {
		old, err := term.MakeRaw(t.fd)
		if err == nil {
			defer term.Restore(t.fd, old)
		}
		for {
			// Wait in slices, so that a stopped shell is not held by
			// its prompt.
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if t.rd.Buffered() > 0 || waitReadable(t.fd, 200*time.Millisecond) {
				break
			}
		}
		return t.rd.ReadByte()
	}
	for {
		line, err := t.rd.ReadString('\n')
		s := strings.TrimSpace(line)
		if s != "" {
			return s[0], nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// DisplayArgv quotes argv for showing to a human: shell-quoted, with
// control characters made visible so that an argument cannot redraw the
// prompt.
func DisplayArgv(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(a)
		}
		parts[i] = sanitize(q)
	}
	return strings.Join(parts, " ")
}

func displayPrefix(p []string) []string {
	out := make([]string, len(p))
	for i, w := range p {
		out[i] = sanitize(w)
	}
	return out
}

// sanitize replaces control characters (escape sequences, carriage
// returns, ...) with visible escapes.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func describeEffects(e guardsh.Effects) string {
	var parts []string
	if e.Network {
		parts = append(parts, "network")
	}
	if e.Install {
		parts = append(parts, "installs packages")
	}
	if len(e.Writes) > 0 {
		parts = append(parts, "writes "+sanitize(strings.Join(e.Writes, ", ")))
	}
	return strings.Join(parts, "; ")
}

// noHumanHint is the hint of an ask nobody could approve: the agent reads
// it, so it says plainly that a human must decide, and how. With the
// verdict's line it makes at most three lines: the rule and why, that
// nobody could approve it and what to do instead, and the configuration
// rule a human would add for this class of command (a prefix, not the
// literal command line).
func noHumanHint(v guardsh.Verdict, r guardsh.Rule, args []string) string {
	var b strings.Builder
	b.WriteString("\nNo human could be asked (no terminal), so it did not run; do not work around it")
	if v.Hint != "" {
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(v.Hint, "."))
	}
	if len(r.Prefix) == 0 {
		b.WriteString(".\nA configured rule asks for it every time: a human must approve it in an interactive guardsh session")
		return b.String()
	}
	if fileAccess(args) {
		b.WriteString(".\nA human can approve it in an interactive guardsh session")
		return b.String()
	}
	prefix := classPrefix(args)
	if len(prefix) == 0 {
		prefix = r.Prefix
	}
	b.WriteString(".\nA human can allow it: a [[rule]] in ")
	b.WriteString(UserConfigHint)
	b.WriteString(" with id = \"user.")
	b.WriteString(ruleIDWord(prefix))
	b.WriteString("\", decision = \"allow\", prefix = [")
	for i, w := range prefix {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(w))
	}
	b.WriteString("], or approve it in an interactive guardsh session")
	return b.String()
}

// fileAccess reports whether args stand for a file access of guardsh's
// own (VIA read|write PATH: a redirection, source, cd), which no
// configured rule matches.
func fileAccess(args []string) bool {
	return len(args) == 3 && (args[1] == "read" || args[1] == "write") &&
		(args[0] == "redirect" || args[0] == "source" || args[0] == "cd" || args[0] == "glob" || args[0] == "agent")
}

// classPrefix is the prefix a human would write for the class of args:
// the program and its subcommand word (git commit, pip install, kubectl
// get), then "*" for the rest. nil when args has
// no plain program name (a path, a word known only at run time).
func classPrefix(args []string) []string {
	norm := guardsh.NormalizeArgv(args)
	if len(norm) == 0 || !plainWord(norm[0]) {
		return nil
	}
	prefix := []string{norm[0]}
	for _, w := range norm[1:] {
		if len(prefix) == 2 || !plainWord(w) {
			break
		}
		prefix = append(prefix, w)
	}
	return append(prefix, "*")
}

// plainWord reports whether w is a command or subcommand word: lower-case
// letters, digits, "-" and "_", starting with a letter, not too long.
func plainWord(w string) bool {
	if w == "" || len(w) > 24 || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func ruleIDWord(prefix []string) string {
	var parts []string
	for _, w := range prefix {
		if w == "*" || w == "$" {
			continue
		}
		w = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
				return r
			}
			return -1
		}, w)
		if w = strings.Trim(w, "-_"); w != "" {
			parts = append(parts, w)
		}
	}
	if len(parts) == 0 {
		return "approved"
	}
	id := strings.Join(parts, "-")
	if len(id) > 32 {
		id = strings.TrimRight(id[:32], "-_")
	}
	return id
}
