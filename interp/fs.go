package interp

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp/jail"
	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// JailFS is the FS that puts the interpreter's own file access through the
// path jail and the policy: redirections and source (Open), cd and test
// (Stat), globbing (ReadDir).
//
//   - Open resolves the path (symlinks, "..", relative to the shell's
//     directory), asks the policy about the resolved truth (a
//     guardsh.Access with Via "redirect"; an ask goes to the runner's gate)
//     and opens exactly the file that was checked (jail.Open). A refusal is
//     an *os.PathError, so the shell prints "guardsh: denied [RULE]: PATH:
//     REASON. HINT" and the command fails with status 1, as after any
//     failed redirection.
//   - ReadDir (globbing) lists a directory's names: a read, Via "glob".
//   - Stat (cd, test -e and friends) reveals metadata only; it passes the
//     jail's syntax checks but does not ask the policy (a cd outside the
//     project is harmless by itself: every access after it is checked).
//   - Under StartupContext (the shell's own start-up files), reads are
//     Via "startup" and allowed without the policy.
//
// It also closes mvdan's bypass: the interpreter opens files named
// $TMPDIR/sh-interp-* itself, without the open handler (they are its
// process-substitution FIFOs). Each runner using a JailFS gets a private,
// freshly made directory as its FIFO directory instead of $TMPDIR, so no
// file the shell's commands use can be named that way; child processes
// still see the real $TMPDIR. See the jail README section for what remains.
type JailFS struct {
	jail    *jail.Jail
	fifoDir string

	// Classify decides an access; nil: the bound runner's policy
	// (Policy.ClassifyAccess). Tests set it.
	Classify func(guardsh.Access) guardsh.Verdict

	mu     sync.Mutex
	runner *Runner // the first runner built with this FS: its policy and gate decide
}

// NewJailFS returns the FS for a session whose project is rooted at project
// ("" means the working directory). It makes the private FIFO directory;
// Close removes it.
func NewJailFS(project string) (*JailFS, error) {
	j, err := jail.New(project)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "guardsh-fifo-")
	if err != nil {
		return nil, err
	}
	if err := j.AddPrivate(dir); err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &JailFS{jail: j, fifoDir: dir}, nil
}

// Jail is the jail this FS checks with (the agent's Session uses the same).
func (f *JailFS) Jail() *jail.Jail { return f.jail }

// FIFODir is the private directory the interpreter makes its
// process-substitution FIFOs in.
func (f *JailFS) FIFODir() string { return f.fifoDir }

// Close removes the private FIFO directory.
func (f *JailFS) Close() error { return os.RemoveAll(f.fifoDir) }

// jailOptions binds a JailFS to the runner being built: the policy and
// gate of the first runner decide for it, and the runner's FIFO directory
// becomes the private one. New calls it before interp.New.
func (g *Runner) jailOptions() []interp.RunnerOption {
	f, ok := g.cfg.FS.(*JailFS)
	if !ok {
		return nil
	}
	f.mu.Lock()
	if f.runner == nil {
		f.runner = g
	}
	f.mu.Unlock()
	if g.env != nil {
		g.env.list = fifoEnviron{Environ: g.env.list, dir: f.fifoDir}
	}
	return nil
}

// fifoEnviron answers mvdan's Runner.Reset, and only it, with the private
// FIFO directory for TMPDIR: Reset reads $TMPDIR once to choose where
// process substitution makes its FIFOs (the directory whose sh-interp-*
// files it later opens without the open handler). Everyone else, scripts
// and child processes, sees the real $TMPDIR.
type fifoEnviron struct {
	expand.Environ
	dir string
}

func (e fifoEnviron) Get(name string) expand.Variable {
	if name == "TMPDIR" && calledFromReset() {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: e.dir}
	}
	return e.Environ.Get(name)
}

func calledFromReset() bool {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function == "mvdan.cc/sh/v3/interp.(*Runner).Reset" {
			return true
		}
		if !more {
			return false
		}
	}
}

// classify decides a, by Classify, the bound runner's policy, or (no
// runner) inside-only.
func (f *JailFS) classify(a guardsh.Access) guardsh.Verdict {
	if f.Classify != nil {
		return f.Classify(a)
	}
	f.mu.Lock()
	g := f.runner
	f.mu.Unlock()
	if g != nil {
		return g.policy.ClassifyAccess(a)
	}
	if a.Inside {
		return guardsh.Verdict{Decision: guardsh.Allow, Rule: "jail.inside"}
	}
	return guardsh.Verdict{Decision: guardsh.Deny, Rule: jail.RuleOutside,
		Reason: "outside the project", Hint: "work inside " + f.jail.Root()}
}

// startupKey marks a context in which guardsh sources the shell's own
// start-up files.
type startupKey struct{}

// StartupContext marks ctx as guardsh reading the shell's own start-up
// files (/etc/profile, ~/.profile, ~/.bashrc), which bash reads without
// asking anyone: file reads under it (the files themselves and what they
// source) are Via "startup" and allowed without the policy, still through
// the jail's resolution and checked open. Writes are decided as always.
func StartupContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, startupKey{}, true)
}

// decide asks the policy (and, for an ask, the runner's gate) about a;
// nil means allowed, otherwise the *os.PathError the shell prints. Every
// access the policy did not simply allow (an ask, whatever the gate said,
// or a deny) is in the audit log.
func (f *JailFS) decide(ctx context.Context, a guardsh.Access) error {
	if a.Via == "startup" && !a.Write {
		return nil
	}
	v := f.classify(a)
	if v.Decision == guardsh.Allow {
		return nil
	}
	f.mu.Lock()
	g := f.runner
	f.mu.Unlock()
	verb := "read"
	if a.Write {
		verb = "write"
	}
	what := []string{a.Via, verb, a.Resolved}
	policyDecision := v.Decision
	answer := ""
	if g != nil {
		c := guardsh.Command{Args: what, Dir: a.Dir, Project: a.Project, Home: a.Home, Via: "shell"}
		if hc, ok := handlerCtx(ctx); ok {
			c = g.command(hc, what)
		}
		if v.Decision == guardsh.Ask {
			var ga GateAnswer
			v, ga = g.gatekeep(ctx, c, v, "")
			answer = ga.String()
		}
		if log := g.cfg.Audit; log != nil {
			log.Decide(&audit.Record{
				Cwd: a.Dir, Project: a.Project, Argv: what, Via: a.Via, Mode: g.policy.Mode,
				Decision: policyDecision.String(), Rule: v.Rule, Reason: v.Reason, Gate: answer,
				Effects: v.Effects, Sandbox: g.cfg.Sandbox,
			})
		}
	}
	if v.Decision == guardsh.Allow {
		return nil
	}
	return refusal(a.Path, v)
}

// refusal is the *os.PathError for a refused access: it prints as
// "guardsh: denied [RULE]: PATH: REASON. HINT" (or "needs approval").
func refusal(path string, v guardsh.Verdict) error {
	word := "denied"
	if v.Decision == guardsh.Ask {
		word = "needs approval"
	}
	msg := strings.TrimRight(v.Reason, ".")
	if v.Hint != "" {
		msg += ". " + jail.Capitalize(v.Hint)
	}
	if path == "" {
		path = `""`
	}
	return &os.PathError{Op: "guardsh: " + word + " [" + v.Rule + "]:", Path: path, Err: errors.New(msg)}
}

// pathError turns a jail error into the *os.PathError mvdan expects from
// an open handler (any other error type would end the whole script).
func pathError(op, path string, err error) error {
	var je *jail.Error
	if errors.As(err, &je) {
		if je.Rule != "" {
			return refusal(path, guardsh.Verdict{Decision: guardsh.Deny, Rule: je.Rule, Reason: je.Reason, Hint: je.Hint})
		}
		if je.Err != nil {
			var errno syscall.Errno
			if errors.As(je.Err, &errno) && je.Reason == "" {
				return &os.PathError{Op: op, Path: path, Err: errno}
			}
		}
		msg := strings.TrimRight(je.Reason, ".")
		if msg == "" && je.Err != nil {
			msg = je.Err.Error()
		}
		if je.Hint != "" {
			msg += ". " + jail.Capitalize(je.Hint)
		}
		return &os.PathError{Op: op, Path: path, Err: errors.New(msg)}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe
	}
	return &os.PathError{Op: op, Path: path, Err: err}
}

func (f *JailFS) access(hc interp.HandlerContext, path string, res jail.Resolved, write bool, via string) guardsh.Access {
	f.mu.Lock()
	r := f.runner
	f.mu.Unlock()
	env := hc.Env
	return guardsh.Access{Path: path, Resolved: res.Real, Inside: res.Inside, Link: res.Link,
		Write: write, Dir: hc.Dir, Project: f.jail.Root(), Home: r.policyHome(env.Get("HOME").String()), Via: via,
		Env: func(name string) string { return env.Get(name).String() }}
}

// stdioFile is one of the shell's current standard streams behind
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/0-2 and /proc/self/fd/0-2
// (as bash treats them): closing it does
// not close the stream.
type stdioFile struct {
	io.Reader
	io.Writer
}

func (stdioFile) Close() error { return nil }

// Open is the open handler: redirections, source, $(<file).
func (f *JailFS) Open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	return f.open(ctx, interp.HandlerCtx(ctx), path, flag, perm)
}

func (f *JailFS) open(ctx context.Context, hc interp.HandlerContext, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	switch path {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		if f, ok := dupFile(hc.Stdin); ok {
			return f, nil
		}
		return stdioFile{Reader: orEmpty(hc.Stdin)}, nil
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		if f, ok := dupFile(hc.Stdout); ok {
			return f, nil
		}
		return stdioFile{Writer: orDiscard(hc.Stdout)}, nil
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		if f, ok := dupFile(hc.Stderr); ok {
			return f, nil
		}
		return stdioFile{Writer: orDiscard(hc.Stderr)}, nil
	}
	res, err := f.jail.Resolve(hc.Dir, path)
	if err != nil {
		return nil, pathError("open", path, err)
	}
	write := jail.IsWrite(flag)
	via := "redirect"
	if ctx.Value(startupKey{}) != nil {
		via = "startup"
	}
	if err := f.decide(ctx, f.access(hc, path, res, write, via)); err != nil {
		return nil, err
	}
	// A FIFO is looked at first through a descriptor that does not count
	// as a reader or writer, then reopened to wait for the other end as
	// bash does (cancelled with ctx); opening it without blocking would
	// wake a waiting writer and lose what it writes.
	if res.Exists {
		p, err := f.jail.OpenFIFO(res)
		if err != nil {
			return nil, pathError("open", path, err)
		}
		if p != nil {
			return jail.ReopenBlocking(ctx, p, flag)
		}
	}
	file, err := f.jail.Open(res, flag, perm, jail.Options{})
	if err != nil {
		return nil, pathError("open", path, err)
	}
	return file, nil
}

// dupFile duplicates the descriptor of a stream that is an *os.File, as
// bash's /dev/stdin and friends do: the shell then reads and writes the
// same open file (nothing is copied through a pipe, no input is read
// ahead), and closing the copy leaves the stream open.
func dupFile(s any) (*os.File, bool) {
	f, ok := s.(*os.File)
	if !ok || f == nil {
		return nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	nfd := -1
	rc.Control(func(fd uintptr) {
		nfd, _ = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	})
	if nfd < 0 {
		return nil, false
	}
	return os.NewFile(uintptr(nfd), f.Name()), true
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Stat is the stat handler (cd, test): the jail's syntax checks, then the
// resolved file's metadata. It does not ask the policy (see JailFS).
func (f *JailFS) Stat(ctx context.Context, path string, followSymlinks bool) (fs.FileInfo, error) {
	hc := interp.HandlerCtx(ctx)
	if err := jail.CheckSyntax(path); err != nil {
		return nil, pathError("stat", path, err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(hc.Dir, path)
	}
	if followSymlinks {
		return os.Stat(path)
	}
	return os.Lstat(path)
}

// ReadDir is the read-directory handler (globbing): the directory is
// resolved, the policy asked (Via "glob"), and the checked directory read.
func (f *JailFS) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	res, err := f.jail.Resolve(hc.Dir, path)
	if err != nil {
		return nil, pathError("open", path, err)
	}
	if err := f.decide(ctx, f.access(hc, path, res, false, "glob")); err != nil {
		// The shell drops glob errors silently (the pattern stays as
		// written); say why, or the model sees an unexpanded pattern only.
		if hc.Stderr != nil {
			io.WriteString(hc.Stderr, err.Error()+"\n")
		}
		return nil, err
	}
	d, err := f.jail.OpenDir(res)
	if err != nil {
		return nil, pathError("open", path, err)
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, k int) bool { return ents[i].Name() < ents[k].Name() })
	return ents, nil
}
