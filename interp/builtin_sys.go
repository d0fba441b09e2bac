package interp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// umask is bash's umask: it reads and sets the process's file mode mask,
// which guardsh's redirections and every child use.
func (g *Runner) umask(hc interp.HandlerContext, args []string) int {
	symbolic, reusable := false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		for _, c := range args[0][1:] {
			switch c {
			case 'S':
				symbolic = true
			case 'p':
				reusable = true
			default:
				g.errf(hc, "umask: -%c: invalid option", c)
				fmt.Fprintln(hc.Stderr, "umask: usage: umask [-p] [-S] [mode]")
				return 2
			}
		}
		args = args[1:]
	}
	cur := syscall.Umask(0)
	syscall.Umask(cur)
	if len(args) == 0 {
		switch {
		case symbolic:
			fmt.Fprintln(hc.Stdout, symbolicMask(cur))
		case reusable:
			fmt.Fprintf(hc.Stdout, "umask %04o\n", cur)
		default:
			fmt.Fprintf(hc.Stdout, "%04o\n", cur)
		}
		return 0
	}
	m := args[0]
	if m == "" {
		// bash: an empty mask is a symbolic mode without an operator
		g.errf(hc, "umask: `\x00': invalid symbolic mode operator") // bash prints the NUL it read
		return 1
	}
	if m[0] >= '0' && m[0] <= '9' {
		v, err := strconv.ParseUint(m, 8, 32)
		if err != nil || v > 0o777 {
			g.errf(hc, "umask: %s: octal number out of range", m)
			return 1
		}
		syscall.Umask(int(v))
		return 0
	}
	v, ok := applySymbolic(0o777&^cur, m)
	if !ok {
		g.errf(hc, "umask: `%c': invalid symbolic mode operator", m[len(m)-1])
		return 1
	}
	syscall.Umask(0o777 &^ v)
	if symbolic {
		fmt.Fprintln(hc.Stdout, symbolicMask(0o777&^v))
	}
	return 0
}

func symbolicMask(mask int) string {
	perm := 0o777 &^ mask
	part := func(shift int) string {
		s := ""
		bits := perm >> shift & 7
		if bits&4 != 0 {
			s += "r"
		}
		if bits&2 != 0 {
			s += "w"
		}
		if bits&1 != 0 {
			s += "x"
		}
		return s
	}
	return fmt.Sprintf("u=%s,g=%s,o=%s", part(6), part(3), part(0))
}

// applySymbolic applies a chmod-style symbolic mode ("u=rwx,g+w") to perm.
func applySymbolic(perm int, mode string) (int, bool) {
	for _, clause := range strings.Split(mode, ",") {
		who := 0
		i := 0
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			switch clause[i] {
			case 'u':
				who |= 0o700
			case 'g':
				who |= 0o070
			case 'o':
				who |= 0o007
			case 'a':
				who |= 0o777
			}
		}
		if who == 0 {
			who = 0o777
		}
		if i >= len(clause) || strings.IndexByte("=+-", clause[i]) < 0 {
			return 0, false
		}
		op := clause[i]
		bits := 0
		for _, c := range clause[i+1:] {
			switch c {
			case 'r':
				bits |= 0o444
			case 'w':
				bits |= 0o222
			case 'x':
				bits |= 0o111
			default:
				return 0, false
			}
		}
		bits &= who
		switch op {
		case '=':
			perm = perm&^who | bits
		case '+':
			perm |= bits
		case '-':
			perm &^= bits
		}
	}
	return perm, true
}

// times prints the shell's and its children's user and system times.
func (g *Runner) times(hc interp.HandlerContext) int {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	fmt.Fprintf(hc.Stdout, "%s %s\n%s %s\n",
		minSec(tv(self.Utime)), minSec(tv(self.Stime)), minSec(tv(kids.Utime)), minSec(tv(kids.Stime)))
	return 0
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

func minSec(d time.Duration) string {
	m := int(d / time.Minute)
	s := (d - time.Duration(m)*time.Minute).Seconds()
	return fmt.Sprintf("%dm%.3fs", m, s)
}

// timeMark is the start of a "time" pipeline.
type timeMark struct {
	start     time.Time
	user, sys time.Duration
	posix     bool
}

func childTimes() (user, sys time.Duration) {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return tv(self.Utime) + tv(kids.Utime), tv(self.Stime) + tv(kids.Stime)
}

func (s *shared) timeStart(posix bool) {
	u, sy := childTimes()
	s.mu.Lock()
	s.times = append(s.times, timeMark{start: time.Now(), user: u, sys: sy, posix: posix})
	s.mu.Unlock()
}

// timeEnd prints the report of the innermost "time" on stderr, as bash.
func (s *shared) timeEnd(w io.Writer) {
	s.mu.Lock()
	if len(s.times) == 0 {
		s.mu.Unlock()
		return
	}
	m := s.times[len(s.times)-1]
	s.times = s.times[:len(s.times)-1]
	s.mu.Unlock()
	real := time.Since(m.start)
	u, sy := childTimes()
	u, sy = u-m.user, sy-m.sys
	if m.posix {
		fmt.Fprintf(w, "real %.2f\nuser %.2f\nsys %.2f\n", real.Seconds(), u.Seconds(), sy.Seconds())
		return
	}
	fmt.Fprintf(w, "\nreal\t%s\nuser\t%s\nsys\t%s\n", minSec(real), minSec(u), minSec(sy))
}

// statDir checks a cd target like bash: status 0 when it can be entered.
func statDir(dir, target string) (string, int, string) {
	p := target
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		if strings.Contains(target, "/") || !strings.Contains(os.Getenv("CDPATH"), ":") {
			var pe *os.PathError
			if ok := asPathError(err, &pe); ok {
				return p, 1, errnoText(pe.Err)
			}
			return p, 1, "No such file or directory"
		}
		return p, 0, ""
	case !fi.IsDir():
		return p, 1, "Not a directory"
	}
	return p, 0, ""
}

func asPathError(err error, pe **os.PathError) bool {
	e, ok := err.(*os.PathError)
	if ok {
		*pe = e
	}
	return ok
}
