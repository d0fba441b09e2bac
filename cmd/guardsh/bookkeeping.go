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
// the privileged side makes the snapshot directory writable in this
// session's sandbox, and the confined interpreter takes the allowance only
// when the kernel lets it create a file there. A guardsh started from
// inside another session (the model's `bash -c -l '<the same script>'`,
// nested in the interpreter or run as a program with any environment) is
// in that session's sandbox, where the directory is read-only: it gets
// nothing. The process runs in auto mode when its mode asks more (its code
// is Claude Code's script and the user's own rc file, contained by the
// sandbox); every other write it makes is judged as usual.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

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
	dir  string // its directory, writable in this session's sandbox
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

// grant prepares the privileged side: the snapshot directory, which must
// be a real directory (no link on the way to it), becomes writable in the
// session's sandbox.
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
	c.Writable = append(c.Writable, b.dir)
	return nil
}

// confirmed reports, in a confined interpreter, whether its sandbox lets
// it write in the snapshot directory: only a session whose privileged side
// granted the script does (an anonymous file, O_TMPFILE, leaves nothing
// behind; a named one is removed at once where the file system has none).
func (b *bookkeeping) confirmed() bool {
	if fi, err := os.Lstat(b.dir); err != nil || !fi.IsDir() {
		return false
	}
	if ok, known := anonymousFileIn(b.dir); known {
		return ok
	}
	f, err := os.CreateTemp(b.dir, ".guardsh-probe-")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
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
