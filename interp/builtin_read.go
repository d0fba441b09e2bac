package interp

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
	"mvdan.cc/sh/v3/interp"
)

// readCall is bash's read, which guardsh implements itself: mvdan's lacks
// -t, -n, -N, -d and writes the -p prompt on stdout (bash writes it on
// stderr, and only when reading from a terminal). It reads in the call
// handler and returns the assignments as an eval, the only way to set
// variables from outside the runner; the eval's status is read's.
func (g *Runner) readCall(hc interp.HandlerContext, args []string) []string {
	raw, silent, array := false, false, false
	prompt, delim := "", byte('\n')
	nchars, exact := -1, false
	timeout := time.Duration(-1)
	var names []string
	fail := func(status, msg string) []string {
		return []string{internalPrefix + "err", status, "read: " + msg}
	}
	i := 0
opts:
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch c {
			case 'r':
				raw = true
			case 's':
				silent = true
			case 'e':
			case 'a', 'p', 'd', 'n', 'N', 't', 'u', 'i':
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return fail("2", "-"+string(c)+": option requires an argument")
					}
					i++
					val = args[i]
				}
				switch c {
				case 'a':
					array = true
					names = []string{val}
				case 'p':
					prompt = val
				case 'd':
					delim = 0
					if val != "" {
						delim = val[0]
					}
				case 'n', 'N':
					n, err := strconv.Atoi(val)
					if err != nil || n < 0 {
						return fail("1", val+": invalid number")
					}
					nchars, exact = n, c == 'N'
				case 't':
					f, err := strconv.ParseFloat(val, 64)
					if err != nil || f < 0 {
						return fail("1", val+": invalid timeout specification")
					}
					timeout = time.Duration(f * float64(time.Second))
				case 'u':
					if val != "0" {
						n, err := strconv.Atoi(val)
						var r io.Reader
						if err == nil {
							r = g.fdReader(n)
						}
						if r == nil {
							return fail("1", val+": invalid file descriptor: Bad file descriptor")
						}
						hc.Stdin = r
					}
				}
				continue opts
			default:
				return fail("2", "-"+string(c)+": invalid option")
			}
		}
	}
	if !array {
		names = args[i:]
	}
	for _, n := range names {
		if !isName(n) || strings.Contains(n, "[") && array {
			return fail("1", "`"+n+"': not a valid identifier")
		}
	}
	in := hc.Stdin
	f, _ := in.(*os.File)
	fd := -1
	if f != nil {
		// Not f.Fd(): it would put the file in blocking mode for good.
		if sc, err := f.SyscallConn(); err == nil {
			sc.Control(func(d uintptr) { fd = int(d) })
		}
	}
	isTerm := fd >= 0 && term.IsTerminal(fd)
	if prompt != "" && isTerm {
		io.WriteString(hc.Stderr, prompt)
	}
	var data []byte
	status := 0
	switch {
	case in == nil:
		status = 1
	case silent && isTerm && delim == '\n' && nchars < 0:
		line, err := term.ReadPassword(fd)
		io.WriteString(hc.Stderr, "\n")
		data = line
		if err != nil {
			status = 1
		}
	default:
		if timeout >= 0 {
			if timeout == 0 {
				timeout = time.Millisecond
			}
			// Wait for each byte at most until the deadline (file
			// deadlines stop working once a child inherited the file). A
			// byte that arrives after a timeout is lost, which only
			// matters if the script reads on after one.
			in = &timeoutReader{r: in, deadline: time.Now().Add(timeout)}
		}
		buf := make([]byte, 1)
		escaped := false
		for nchars < 0 || len(data) < nchars {
			n, err := in.Read(buf)
			if n == 0 {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					status = 142
				} else if err != nil {
					status = 1
				} else {
					continue
				}
				break
			}
			c := buf[0]
			if !raw && !escaped && c == '\\' {
				escaped = true
				continue
			}
			if escaped {
				escaped = false
				if c == '\n' {
					continue // line continuation
				}
				data = append(data, '\\', c) // kept for field splitting, removed below
				continue
			}
			if c == delim && !exact {
				break
			}
			data = append(data, c)
		}
	}
	assign := readAssign(g.readIFS(hc), string(data), names, array, raw)
	if exact && len(names) > 0 && !array {
		assign = names[0] + "=" + evalQuote(unescape(string(data), raw)) // -N: not split
	}
	return g.quietEval(assign, statusCmd(status))
}

// statusCmd ends read's eval with its status. "! true" fails without
// firing the ERR trap a second time (the eval itself fires it, once, as
// bash's read would).
func statusCmd(status int) string {
	switch status {
	case 0:
		return "true"
	case 1:
		return "! true"
	}
	return "(exit " + strconv.Itoa(status) + ")"
}

func (g *Runner) readIFS(hc interp.HandlerContext) string {
	v := hc.Env.Get("IFS")
	if !v.IsSet() {
		return " \t\n"
	}
	return v.String()
}

// readAssign splits a line read by read into fields by IFS and returns the
// assignments, as bash does: the last name gets the rest of the line;
// backslashes (unless -r) quote the next character.
func readAssign(ifs, line string, names []string, array, raw bool) string {
	if len(names) == 0 && !array {
		// REPLY gets the line as is, without trimming.
		return "REPLY=" + evalQuote(unescape(line, raw))
	}
	isWS := func(c byte) bool { return (c == ' ' || c == '\t' || c == '\n') && strings.IndexByte(ifs, c) >= 0 }
	isSep := func(c byte) bool { return strings.IndexByte(ifs, c) >= 0 }
	// Work on the line with escape markers: "\\x" is a literal x.
	var fields []string
	pos := 0
	skipWS := func() {
		for pos < len(line) && isWS(line[pos]) {
			pos++
		}
	}
	skipWS()
	want := len(names)
	for pos < len(line) {
		if !array && len(fields) == want-1 {
			// the rest, without trailing IFS whitespace
			rest := line[pos:]
			end := len(rest)
			for end > 0 && isWS(rest[end-1]) && !(end >= 2 && rest[end-2] == '\\' && !raw) {
				end--
			}
			fields = append(fields, unescape(rest[:end], raw))
			pos = len(line)
			break
		}
		var b strings.Builder
		for pos < len(line) && !isSep(line[pos]) {
			if line[pos] == '\\' && !raw && pos+1 < len(line) {
				b.WriteByte(line[pos+1])
				pos += 2
				continue
			}
			b.WriteByte(line[pos])
			pos++
		}
		fields = append(fields, b.String())
		// one non-whitespace separator, with whitespace around it
		skipWS()
		if pos < len(line) && isSep(line[pos]) && !isWS(line[pos]) {
			pos++
			skipWS()
		}
	}
	if array {
		quoted := make([]string, len(fields))
		for i, f := range fields {
			quoted[i] = evalQuote(f)
		}
		return names[0] + "=(" + strings.Join(quoted, " ") + ")"
	}
	var b strings.Builder
	for i, n := range names {
		val := ""
		if i < len(fields) {
			val = fields[i]
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(n + "=" + evalQuote(val))
	}
	return b.String()
}

// unescape removes read's backslash quoting.
func unescape(s string, raw bool) string {
	if raw || !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// timeoutReader reads one byte at a time until a deadline.
type timeoutReader struct {
	r        io.Reader
	deadline time.Time
	pending  chan readResult
}

type readResult struct {
	b   byte
	n   int
	err error
}

func (t *timeoutReader) Read(p []byte) (int, error) {
	if t.pending == nil {
		t.pending = make(chan readResult, 1)
		go t.fetch()
	}
	select {
	case res := <-t.pending:
		if res.n > 0 {
			p[0] = res.b
			go t.fetch()
		}
		return res.n, res.err
	case <-time.After(time.Until(t.deadline)):
		return 0, os.ErrDeadlineExceeded
	}
}

func (t *timeoutReader) fetch() {
	var b [1]byte
	n, err := t.r.Read(b[:])
	t.pending <- readResult{b[0], n, err}
}
