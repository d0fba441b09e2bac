package interp

// What the advisor sees beyond a simple command's argv (docs/advisor.md):
// the statement as written that the command belongs to (a DROP piped into
// a database CLI is rated as the pipeline, not as "psql"), and the shell's
// own truncation of an existing file by a redirection (": > data.db",
// "exec 3>data.db"), which no argv shows.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"mvdan.cc/sh/v3/syntax"
)

// stmtSources remembers, while the advisor is on, the statement as
// written of every simple command and truncating redirection of the
// scripts a Runner parsed: the whole pipeline or &&/|| list it belongs
// to, with redirections and here-documents.
type stmtSources struct {
	calls  sync.Map // syntax.Pos of the command's first word -> stmtSrc
	mu     sync.Mutex
	redirs map[string][]stmtSrc // a truncating redirection's literal target -> its statements
}

type stmtSrc struct {
	name string // the command's first word as written, "" if not literal
	line uint
	text string
}

// maxNotedRedirs bounds the redirections remembered per target.
const maxNotedRedirs = 64

// noteStatements records the statements of a parsed script, before
// guardsh's rewrites, when the advisor is on (nothing otherwise).
func (g *Runner) noteStatements(f *syntax.File) {
	if g.cfg.Advisor == nil {
		return
	}
	s := &g.stmts
	top := map[*syntax.Stmt]*syntax.Stmt{}
	text := map[*syntax.Stmt]string{}
	src := func(st *syntax.Stmt) string {
		t := top[st]
		if t == nil {
			t = st
		}
		if s, ok := text[t]; ok {
			return s
		}
		var b strings.Builder
		syntax.NewPrinter().Print(&b, t)
		text[t] = strings.TrimSpace(b.String())
		return text[t]
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		t := top[st]
		if t == nil {
			t = st
		}
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
			// the operands of a pipeline or list belong to its statement
			top[b.X], top[b.Y] = t, t
		}
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 && (t != st || len(st.Redirs) > 0) {
			// a command alone, without redirections, says all in its
			// argv: no statement (and the cache key stays the argv)
			s.calls.Store(ce.Args[0].Pos(), stmtSrc{name: ce.Args[0].Lit(), text: src(st)})
		}
		for _, rd := range st.Redirs {
			if rd.Op != syntax.RdrOut && rd.Op != syntax.RdrClob && rd.Op != syntax.RdrAll || rd.Word == nil {
				continue
			}
			target := rd.Word.Lit()
			s.mu.Lock()
			if s.redirs == nil {
				s.redirs = map[string][]stmtSrc{}
			}
			list := s.redirs[target]
			if len(list) >= maxNotedRedirs {
				list = list[1:]
			}
			s.redirs[target] = append(list, stmtSrc{line: rd.Pos().Line(), text: src(st)})
			s.mu.Unlock()
		}
		return true
	})
}

// call returns the statement as written of the command at pos whose first
// word is name, or "".
func (s *stmtSources) call(pos syntax.Pos, name string) string {
	if !pos.IsValid() {
		return ""
	}
	v, ok := s.calls.Load(pos)
	if !ok {
		return ""
	}
	e := v.(stmtSrc)
	if e.name != "" && e.name != name {
		return "" // another script's command at the same position
	}
	return e.text
}

// redirect returns the statement as written of a truncating redirection
// to target (as the open handler gets it: expanded, not yet joined with
// the directory), or "" when the target is not written literally. Among
// several, the first at or after line (the last command's) wins.
func (s *stmtSources) redirect(target string, line int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.redirs[target]
	if len(list) == 0 {
		return ""
	}
	best := list[len(list)-1]
	for _, e := range list {
		if int64(e.line) >= line && (int64(best.line) < line || e.line < best.line) {
			best = e
		}
	}
	return best.text
}

// RuleRedirectTruncate is the audit rule of a redirection that truncates
// an existing file and that the advisor rated below the threshold (or
// could not rate).
const RuleRedirectTruncate = "redirect.truncate"

// adviseTruncate is the advisor's look at a redirection the open handler
// is about to do with O_TRUNC (">", "&>", "exec N>"): when it truncates an
// existing non-empty regular file outside the session's temp dir, the
// model rates it (as the statement as written, plus the file and its
// size). A rating at or above the threshold is an error: the file is not
// opened, so not truncated. Called only when the advisor is on.
func (g *Runner) adviseTruncate(ctx context.Context, path string) error {
	hc, ok := handlerCtx(ctx)
	if !ok {
		return nil
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(hc.Dir, abs)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil // nothing to lose (a new file, a device, an empty file)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if tmp := hc.Env.Get("TMPDIR").String(); tmp != "" && filepath.IsAbs(tmp) && filepath.Clean(tmp) != "/" {
		if real, err := filepath.EvalSymlinks(tmp); err == nil {
			tmp = real
		}
		if insideAny(abs, tmp) {
			return nil // the session's own scratch space
		}
	}
	q := advisor.Request{
		Command:   guardsh.Command{Dir: hc.Dir, Project: g.cfg.Project, Via: "redirect"},
		Statement: g.stmts.redirect(path, g.lastLine.Load()),
		Truncates: abs, TruncSize: fi.Size(), Writes: true,
	}
	what := fmt.Sprintf("truncates existing file %s (%d bytes)", abs, fi.Size())
	v := guardsh.Verdict{Decision: guardsh.Allow, Rule: RuleRedirectTruncate, Reason: "the shell redirection " + what,
		Effects: guardsh.Effects{Writes: []string{abs}}}
	var r advisor.Rating
	dry := g.cfg.Advisor.Threshold() <= 0
	if !dry {
		r, err = g.cfg.Advisor.Ask(ctx, q)
	}
	var adv *audit.Advisor
	switch {
	case dry:
		v, adv = DryRunVerdict(v)
		v.Reason += ": the redirection " + what
	case ctx.Err() != nil:
		v = guardsh.Verdict{Decision: guardsh.Deny, Rule: RuleAdvisorInterrupted,
			Reason:  "interrupted while the advisor was rating this redirection, so the file was not opened",
			Effects: v.Effects}
		adv = &audit.Advisor{Error: "advisor interrupted: " + ctx.Err().Error()}
	case err != nil:
		why := "advisor unavailable: " + err.Error()
		w := g.cfg.Stderr
		if hc.Stderr != nil {
			w = hc.Stderr
		}
		fmt.Fprintf(w, "guardsh: %s\n", why)
		adv = &audit.Advisor{Error: why}
	default:
		adv = RatingAudit(r)
		if r.Percent >= g.cfg.Advisor.Threshold() {
			v = guardsh.Verdict{Decision: guardsh.Deny, Rule: RuleAdvisorDestructive,
				Reason: fmt.Sprintf("the advisor rated this redirection %d%% likely to irreversibly destroy data: it %s",
					r.Percent, what),
				Hint:    "Narrow the target or run it yourself if this is intentional.",
				Effects: v.Effects}
		}
	}
	if a := g.cfg.Audit; a != nil {
		argv := []string{">", path}
		if q.Statement != "" {
			argv = []string{q.Statement}
		}
		a.Decide(&audit.Record{
			Cwd: hc.Dir, Project: g.cfg.Project, Argv: argv, Via: "redirect", Mode: g.policy.Mode,
			Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason, Effects: v.Effects,
			Sandbox: g.cfg.Sandbox, Advisor: adv,
		})
	}
	if v.Decision != guardsh.Allow {
		// an *os.PathError: mvdan reports it and goes on (another error
		// type would end the shell); it reads as v.Message()
		msg := v.Message()
		i := strings.Index(msg, abs)
		if i < 0 {
			return &os.PathError{Op: msg, Path: "", Err: errors.New("not opened")}
		}
		rest := msg[i+len(abs):]
		path, hint, _ := strings.Cut(rest, ". ")
		return &os.PathError{Op: strings.TrimSuffix(msg[:i], " "), Path: abs + path, Err: errors.New(hint)}
	}
	return nil
}

// dryRunWrite refuses, under threshold 0 (the dry run), a redirection that
// would write a file (">>", "<>", ">" of a new file): the builtins it
// serves are not rated, so the redirection is the only place their writes
// can be stopped. Writing an existing device or FIFO (/dev/null) is left
// alone. nil when not a dry run or nothing is written.
func (g *Runner) dryRunWrite(ctx context.Context, path string, flag int) error {
	if g.cfg.Advisor == nil || g.cfg.Advisor.Threshold() > 0 || flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) == 0 {
		return nil
	}
	hc, ok := handlerCtx(ctx)
	if !ok {
		return nil
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(hc.Dir, abs)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil
	}
	v, adv := DryRunVerdict(guardsh.Verdict{Effects: guardsh.Effects{Writes: []string{abs}}})
	v.Reason += ": the redirection writes " + abs
	if a := g.cfg.Audit; a != nil {
		a.Decide(&audit.Record{
			Cwd: hc.Dir, Project: g.cfg.Project, Argv: []string{"redirect", path}, Via: "redirect", Mode: g.policy.Mode,
			Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason, Effects: v.Effects,
			Sandbox: g.cfg.Sandbox, Advisor: adv,
		})
	}
	return &os.PathError{Op: v.Message(), Path: "", Err: errors.New("not opened")}
}
