package main

// The agents' own bookkeeping, allowed narrowly by what it is.
//
// Claude Code, at the start of a session, runs its shell as
//
//	$SHELL -c -l 'SNAPSHOT_FILE=~/.claude/shell-snapshots/snapshot-bash-<ms>-<rand>.sh
//	  source "$HOME/.bashrc" < /dev/null
//	  echo "# Snapshot file" >| "$SNAPSHOT_FILE"
//	  ... (functions, shell options, aliases, PATH appended to it)'
//
// with CLAUDECODE=1 in its environment, and sources that file before each
// command it runs. Under guardsh the writes to the snapshot are outside the
// project (asks nobody can answer), so the user's functions and aliases
// were missing and /etc/profile's PATH (without the launcher's shims)
// stayed. guardsh recognises that script from its own command line and
// lets that process, and only it, write that one file by redirection:
// the privileged side creates that file (a name that did not exist) and
// makes it, alone, writable in this session's sandbox, and the confined
// interpreter takes the allowance only when the kernel lets it write it. A guardsh started from
// inside another session (the model's `bash -c -l '<the same script>'`,
// nested in the interpreter or run as a program with any environment) is
// in that session's sandbox, where the file is read-only: it gets
// nothing. One started at the top level (the model's command where a hook
// judges it and the agent's bash runs it) may write only a snapshot of a
// new name, which no agent sources. The process runs in auto mode when its mode asks more (its code
// is Claude Code's script and the user's own rc file, contained by the
// sandbox); every other write it makes is judged as usual.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
)

// sessionBookkeeping is the bookkeeping this process's command line is
// (nil: none), set by shell before the sandbox starts.
var sessionBookkeeping *bookkeeping

// bookkeeping is one agent bookkeeping script's allowance.
type bookkeeping struct {
	what string // for messages
	file string // the one file it may write (canonical)
	dir  string // its directory (a plain one, checked by grant)
}

// snapshotName is how Claude Code names its snapshots (built on first use:
// nothing is compiled at start-up).
var snapshotName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^snapshot-(bash|zsh|sh)-[0-9]{1,20}-[a-z0-9]{1,16}\.sh$`)
})

// claudeSnapshotScript recognises Claude Code's shell-snapshot script in this
// invocation: `-c -l SCRIPT` with CLAUDECODE=1, SCRIPT opening with
// SNAPSHOT_FILE=<a literal path named like Claude Code's snapshots, in
// its configuration directory's shell-snapshots>, then the user's rc file
// sourced (or none), and Claude Code's markers.
func claudeSnapshotScript(inv *invocation, getenv func(string) string) *bookkeeping {
	if inv.Command == nil || !inv.Login || getenv("CLAUDECODE") != "1" {
		return nil
	}
	script := *inv.Command
	if !strings.Contains(script, `echo "# Snapshot file" >| "$SNAPSHOT_FILE"`) ||
		!strings.Contains(script, `echo "Error: Snapshot file was not created at $SNAPSHOT_FILE" >&2`) {
		return nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) < 2 {
		return nil
	}
	snap, ok := snapshotAssign(f.Stmts[0])
	if !ok {
		return nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	cfgDir := filepath.Join(home, ".claude")
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		cfgDir = d
	}
	if !filepath.IsAbs(snap) || filepath.Clean(snap) != snap ||
		filepath.Dir(snap) != filepath.Join(filepath.Clean(cfgDir), "shell-snapshots") || !snapshotName().MatchString(filepath.Base(snap)) {
		return nil
	}
	return &bookkeeping{what: "Claude Code's shell snapshot", file: snap, dir: filepath.Dir(snap)}
}

// snapshotAssign reads `SNAPSHOT_FILE=<literal>` (no command, no
// redirection, no expansion in the value).
func snapshotAssign(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 0 || len(call.Assigns) != 1 || len(st.Redirs) != 0 || st.Background || st.Negated {
		return "", false
	}
	as := call.Assigns[0]
	if as.Name == nil || as.Name.Value != "SNAPSHOT_FILE" || as.Append || as.Index != nil || as.Value == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range as.Value.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			// Claude Code quotes with shell-quote, which escapes
			// characters such as : @ , with a backslash
			for i := 0; i < len(p.Value); i++ {
				c := p.Value[i]
				if c == '\\' {
					if i+1 == len(p.Value) || p.Value[i+1] == '\n' {
						return "", false
					}
					i++
					c = p.Value[i]
				}
				b.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, `\$`+"`") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// grant prepares the privileged side: the snapshot directory must be a
// real directory (no link on the way to it) and the snapshot a name that
// does not exist yet (Claude Code names each session's snapshot afresh:
// an existing one is a snapshot an agent already sources, which a script
// of this shape started by anyone else, e.g. the model's command where a
// hook judges it, must not rewrite). The privileged side creates it, and
// that one file, not its directory, becomes writable in the session's
// sandbox: nothing the script runs can write another snapshot.
func (b *bookkeeping) grant(c *sandbox.Config) error {
	real, err := filepath.EvalSymlinks(b.dir)
	if err != nil {
		return err
	}
	if real != sandbox.Canon(b.dir) || real != b.dir {
		return fmt.Errorf("%s is not a plain directory (it resolves to %s)", b.dir, real)
	}
	if fi, err := os.Lstat(b.dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", b.dir)
	}
	if err := b.claim(); err != nil {
		return err
	}
	c.Writable = append(c.Writable, b.file)
	return nil
}

// claim creates the snapshot, which must not exist yet: every session
// that takes the allowance, confined or not (the sandbox turned off),
// writes only a snapshot it made.
func (b *bookkeeping) claim() error {
	f, err := os.OpenFile(b.file, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists already (a snapshot is written once, by the session that names it)", b.file)
		}
		return err
	}
	return f.Close()
}

// confirmed reports, in a confined interpreter, whether its sandbox lets
// it write the snapshot: only a session whose privileged side granted the
// script does, where the snapshot is the empty file that side created
// (opened for writing without truncation, then closed: it changes
// nothing). Where no privileged side of guardsh's made the sandbox (an
// agent's own, under --launch --confine) the snapshot does not exist yet
// and its directory must be writable (an anonymous file, O_TMPFILE, leaves
// nothing behind; a named one is removed at once where the file system
// has none). An existing snapshot with content is one an agent already
// sources: never.
func (b *bookkeeping) confirmed() bool {
	f, err := os.OpenFile(b.file, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err == nil {
		defer f.Close()
		fi, err := f.Stat()
		return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
	}
	if _, err := os.Lstat(b.file); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if fi, err := os.Lstat(b.dir); err != nil || !fi.IsDir() {
		return false
	}
	if ok, known := anonymousFileIn(b.dir); known {
		return ok
	}
	t, err := os.CreateTemp(b.dir, ".guardsh-probe-")
	if err != nil {
		return false
	}
	t.Close()
	os.Remove(t.Name())
	return true
}

// apply gives the policy the allowance.
func (b *bookkeeping) apply(p *guardsh.Policy) {
	p.Bookkeeping = append(p.Bookkeeping, b.file)
	switch p.Mode {
	case guardsh.ModeDefault, guardsh.ModePlan, guardsh.ModeEdits:
		p.Mode = guardsh.ModeAuto
	}
}
