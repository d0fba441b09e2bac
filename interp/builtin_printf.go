package interp

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/interp"
)

// printfCall turns "printf -v NAME FORMAT ARGS" into an eval of the
// assignment (the only way to set a variable from outside the runner); a
// plain printf goes to guardsh's own printf, which knows %q, %f, widths
// and precisions like bash's.
func (g *Runner) printfCall(hc interp.HandlerContext, args []string) []string {
	rest := args[1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "-v" {
		return append([]string{internalPrefix + "printf"}, rest...)
	}
	if len(rest) < 2 {
		return []string{internalPrefix + "err", "2", "printf: -v: option requires an argument"}
	}
	name := rest[1]
	rest = rest[2:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if !isName(name) {
		return []string{internalPrefix + "err", "2", "printf: `" + name + "': not a valid identifier"}
	}
	var errs strings.Builder
	hc.Stderr = &errs
	out, st := g.printf(hc, rest)
	if st != 0 && st != 1 {
		return []string{internalPrefix + "err", strconv.Itoa(st), strings.TrimSuffix(errs.String(), "\n")}
	}
	return g.quietEval(name+"="+evalQuote(out), "true")
}

// printf formats like bash's printf builtin and returns the output and
// status; errors go to hc.Stderr.
func (g *Runner) printf(hc interp.HandlerContext, args []string) (string, int) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintf(hc.Stderr, "%s: printf: usage: printf [-v var] format [arguments]\n", g.name)
		return "", 2
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	st := 0
	for {
		n, stop, err := g.printfOnce(hc, &b, format, args, &st)
		if err != "" {
			g.errf(hc, "printf: %s", err)
			return b.String(), 1
		}
		args = args[n:]
		if stop || n == 0 || len(args) == 0 {
			break
		}
	}
	return b.String(), st
}

// printfOnce applies format once, consuming arguments; n is how many.
// stop is set by \c.
func (g *Runner) printfOnce(hc interp.HandlerContext, b *strings.Builder, format string, args []string, st *int) (n int, stop bool, errMsg string) {
	next := func() (string, bool) {
		if n < len(args) {
			n++
			return args[n-1], true
		}
		return "", false
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' {
			s, adv, stopped := escape(format[i:], false)
			b.WriteString(s)
			i += adv - 1
			if stopped {
				return n, true, ""
			}
			continue
		}
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		// %(strftime)T: a date
		if i+1 < len(format) && format[i+1] == '(' {
			if k := strings.Index(format[i+2:], ")T"); k >= 0 {
				a, _ := next()
				b.WriteString(strftime(format[i+2:i+2+k], dateArg(a, t0(g))))
				i += 2 + k + 1
				continue
			}
		}
		// %[flags][width][.precision]conv
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			j++
		}
		flags := format[i+1 : j]
		width, prec := "", ""
		if j < len(format) && format[j] == '*' {
			a, _ := next()
			width = strconv.Itoa(int(parseInt(a)))
			j++
		} else {
			k := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			width = format[k:j]
		}
		hasPrec := false
		if j < len(format) && format[j] == '.' {
			hasPrec = true
			j++
			if j < len(format) && format[j] == '*' {
				a, _ := next()
				prec = strconv.Itoa(int(parseInt(a)))
				j++
			} else {
				k := j
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				prec = format[k:j]
				if prec == "" {
					prec = "0"
				}
			}
		}
		// Length modifiers are accepted and ignored.
		for j < len(format) && strings.IndexByte("hlLjzt", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return n, false, "`" + format[i:] + "': missing format character"
		}
		conv := format[j]
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		i = j
		switch conv {
		case '%':
			if flags == "" && width == "" && !hasPrec {
				b.WriteByte('%')
			} else {
				return n, false, "`%': invalid format character"
			}
		case 's':
			a, _ := next()
			fmt.Fprintf(b, spec+"s", a)
		case 'q':
			a, _ := next()
			fmt.Fprintf(b, "%"+flags+width+"s", bashQuote(a))
		case 'b':
			a, _ := next()
			s, stopped := expandEscapes(a)
			fmt.Fprintf(b, spec+"s", s)
			if stopped {
				return n, true, ""
			}
		case 'c':
			a, _ := next()
			if a != "" {
				r, size := utf8.DecodeRuneInString(a)
				if r == utf8.RuneError {
					size = 1
				}
				a = a[:size]
			}
			fmt.Fprintf(b, "%"+flags+width+"s", a)
		case 'd', 'i':
			a, ok := next()
			v, good := parseNum(a)
			if r, out := numRange(a, true); out {
				// bash clamps as strtoimax does and warns
				g.errf(hc, "printf: warning: %s: Numerical result out of range", strings.TrimSpace(a))
				v, good = int64(r), true
			}
			if ok && !good {
				g.errf(hc, "printf: %s: invalid number", a)
				*st = 1
			}
			fmt.Fprintf(b, spec+"d", v)
		case 'u', 'o', 'x', 'X':
			a, ok := next()
			v, good := parseNum(a)
			if r, out := numRange(a, false); out {
				g.errf(hc, "printf: warning: %s: Numerical result out of range", strings.TrimSpace(a))
				v, good = int64(r), true
			}
			if ok && !good {
				g.errf(hc, "printf: %s: invalid number", a)
				*st = 1
			}
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			if strings.Contains(flags, "#") && conv == 'o' {
				spec = strings.Replace(spec, "#", "", 1)
				if v != 0 {
					fmt.Fprintf(b, spec+"s", "0"+strconv.FormatUint(uint64(v), 8))
					continue
				}
			}
			fmt.Fprintf(b, spec+verb, uint64(v))
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			a, ok := next()
			v, good := parseFloat(a)
			if ok && !good {
				g.errf(hc, "printf: %s: invalid number", a)
				*st = 1
			}
			verb := string(conv)
			if conv == 'F' {
				verb = "f"
			}
			if conv == 'a' || conv == 'A' {
				verb = map[byte]string{'a': "x", 'A': "X"}[conv]
			}
			s := fmt.Sprintf(spec+verb, v)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				s = strings.ToLower(s)
				if conv >= 'A' && conv <= 'Z' {
					s = strings.ToUpper(s)
				}
			}
			b.WriteString(s)
		default:
			return n, false, "`" + string(conv) + "': invalid format character"
		}
	}
	return n, false, ""
}

func parseInt(s string) int64 { v, _ := parseNum(s); return v }

// parseNum parses a printf integer argument like bash: decimal, 0octal,
// 0xhex, 'c (character code), with surrounding blanks.
// numRange reports whether s is an integer out of the range of int64
// (signed) or uint64, and the value bash clamps it to (the bits of it,
// for the unsigned conversions).
func numRange(s string, signed bool) (uint64, bool) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] == '\'' || t[0] == '"' {
		return 0, false
	}
	if signed {
		if _, err := strconv.ParseInt(t, 0, 64); errors.Is(err, strconv.ErrRange) {
			if t[0] == '-' {
				return 1 << 63, true
			}
			return 1<<63 - 1, true
		}
		return 0, false
	}
	if t[0] == '-' {
		return 0, false // parseNum's value, as bash's (no warning)
	}
	if _, err := strconv.ParseUint(t, 0, 64); errors.Is(err, strconv.ErrRange) {
		return 1<<64 - 1, true
	}
	return 0, false
}

func parseNum(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, true
	}
	if t[0] == '\'' || t[0] == '"' {
		if len(t) == 1 {
			return 0, true
		}
		r, _ := utf8.DecodeRuneInString(t[1:])
		return int64(r), true
	}
	v, err := strconv.ParseInt(t, 0, 64)
	if err == nil {
		return v, true
	}
	if u, err := strconv.ParseUint(t, 0, 64); err == nil {
		return int64(u), true
	}
	// Leading digits count, the rest makes it invalid.
	k := 0
	if k < len(t) && (t[k] == '-' || t[k] == '+') {
		k++
	}
	for k < len(t) && t[k] >= '0' && t[k] <= '9' {
		k++
	}
	v, _ = strconv.ParseInt(t[:k], 10, 64)
	return v, false
}

func parseFloat(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, true
	}
	if t[0] == '\'' || t[0] == '"' {
		if len(t) == 1 {
			return 0, true
		}
		r, _ := utf8.DecodeRuneInString(t[1:])
		return float64(r), true
	}
	v, err := strconv.ParseFloat(t, 64)
	if err == nil {
		return v, true
	}
	if iv, ok := parseNum(t); ok {
		return float64(iv), true
	}
	return 0, false
}

// escape decodes one backslash escape at the start of s (printf format
// syntax, or %b/echo -e syntax when inB). It returns the text, how many
// bytes it used, and whether it was \c.
func escape(s string, inB bool) (string, int, bool) {
	if len(s) < 2 {
		return "\\", 1, false
	}
	switch c := s[1]; c {
	case 'a':
		return "\a", 2, false
	case 'b':
		return "\b", 2, false
	case 'e', 'E':
		return "\x1b", 2, false
	case 'f':
		return "\f", 2, false
	case 'n':
		return "\n", 2, false
	case 'r':
		return "\r", 2, false
	case 't':
		return "\t", 2, false
	case 'v':
		return "\v", 2, false
	case '\\':
		return "\\", 2, false
	case '"':
		return "\"", 2, false
	case '\'':
		return "'", 2, false
	case '?':
		return "?", 2, false
	case 'c':
		if inB {
			return "", 2, true
		}
		return "\\c", 2, false
	case '0', '1', '2', '3', '4', '5', '6', '7':
		start, max := 1, 4
		if inB && c == '0' {
			start, max = 2, 5 // \0nnn in %b
		} else if !inB {
			max = 4 // \nnn
		}
		k := start
		for k < len(s) && k < max && s[k] >= '0' && s[k] <= '7' {
			k++
		}
		v, _ := strconv.ParseUint(s[start:k], 8, 16)
		if start == k {
			v = 0
		}
		return string([]byte{byte(v)}), k, false
	case 'x':
		k := 2
		for k < len(s) && k < 4 && isHex(s[k]) {
			k++
		}
		if k == 2 {
			return "\\x", 2, false
		}
		v, _ := strconv.ParseUint(s[2:k], 16, 8)
		return string([]byte{byte(v)}), k, false
	case 'u', 'U':
		max := 6
		if c == 'U' {
			max = 10
		}
		k := 2
		for k < len(s) && k < max && isHex(s[k]) {
			k++
		}
		if k == 2 {
			return s[:2], 2, false
		}
		v, _ := strconv.ParseUint(s[2:k], 16, 32)
		return string(rune(v)), k, false
	default:
		return s[:2], 2, false
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// expandEscapes expands %b's backslash escapes; stop is set by \c.
func expandEscapes(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		t, adv, stop := escape(s[i:], true)
		b.WriteString(t)
		if stop {
			return b.String(), true
		}
		i += adv - 1
	}
	return b.String(), false
}

// bashQuote quotes like bash's printf %q: backslashes for the special
// characters, $'...' when the string holds control characters.
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return ansiQuote(s)
		}
	}
	var b strings.Builder
	for i, r := range s {
		switch r {
		case ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>',
			'!', '{', '}', '*', '[', '?', ']', '^', '$', '`', ',':
			b.WriteByte('\\')
		case '~':
			if i == 0 || s[i-1] == '=' || s[i-1] == ':' {
				b.WriteByte('\\')
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func ansiQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\x1b':
			b.WriteString(`\E`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteString("'")
	return b.String()
}

// shellQuote quotes s for the shell with single quotes, as bash prints
// values (a single quote as quote, backslash, quote, quote): for output
// (alias, trap -p, declare -p, set -x).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// evalQuote quotes s for code guardsh hands mvdan's interpreter itself
// (eval bodies: read's and printf -v's assignments, the markers'
// results), which it runs without guardsh's rewrites: a single quote
// as '"'"', since mvdan keeps the backslash of \' in an assignment value.
func evalQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func t0(g *Runner) time.Time {
	if g == nil || g.start.IsZero() {
		return time.Now()
	}
	return g.start
}

// dateArg is %(...)T's argument: epoch seconds, -1 (or none) for now, -2
// for when the shell started.
func dateArg(a string, start time.Time) time.Time {
	switch strings.TrimSpace(a) {
	case "", "-1":
		return time.Now()
	case "-2":
		return start
	}
	n, _ := parseNum(a)
	return time.Unix(n, 0)
}

// strftimeLayouts are the strftime conversions that are a time.Format
// layout.
var strftimeLayouts = map[byte]string{
	'a': "Mon", 'A': "Monday", 'b': "Jan", 'h': "Jan", 'B': "January",
	'Z': "MST", 'z': "-0700", 'F': "2006-01-02", 'T': "15:04:05",
	'D': "01/02/06", 'R': "15:04", 'c': "Mon Jan  2 15:04:05 2006",
	'x': "01/02/06", 'X': "15:04:05",
}

// strftime formats t like C's strftime for the common conversions.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		if layout, ok := strftimeLayouts[f[i]]; ok {
			b.WriteString(t.Format(layout))
			continue
		}
		switch f[i] {
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'k':
			fmt.Fprintf(&b, "%2d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'l':
			fmt.Fprintf(&b, "%2d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			b.WriteString(strconv.Itoa(wd))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
