package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// SourceLogin reads the files a bash login shell reads, through guardsh
// itself: /etc/profile, then the first of ~/.bash_profile, ~/.bash_login
// and ~/.profile. A problem in them is a warning on stderr, never a changed
// exit status or an exit.
func (g *Runner) SourceLogin(ctx context.Context) {
	home := g.Var("HOME")
	files := []string{"/etc/profile"}
	for _, name := range []string{".bash_profile", ".bash_login", ".profile"} {
		p := filepath.Join(home, name)
		if _, err := os.Stat(p); err == nil && home != "" {
			files = append(files, p)
			break
		}
	}
	for _, f := range files {
		g.sourceQuiet(ctx, f)
	}
}

// SourceRC reads ~/.bashrc the way an interactive bash does.
func (g *Runner) SourceRC(ctx context.Context) {
	if home := g.Var("HOME"); home != "" {
		g.sourceQuiet(ctx, filepath.Join(home, ".bashrc"))
	}
}

// sourceQuiet sources a start-up file: it must not end the shell or change
// its status; failures are reported as a warning.
func (g *Runner) sourceQuiet(ctx context.Context, path string) {
	if _, err := os.Stat(path); err != nil {
		return
	}
	// Start-up files are written for bash and may use what guardsh does
	// not implement; their error output would greet every "bash -lc" an
	// agent runs, so it is dropped (stdout is kept).
	src := fmt.Sprintf("source %s 2>/dev/null\n", evalQuote(path))
	file, err := g.Parse(stringsReader(src), g.name)
	if err != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(g.cfg.Stderr, "%s: warning: %s: %v\n", g.name, path, r)
		}
	}()
	ctx = StartupContext(ctx) // fs.go: the jail lets start-up files be read
	for _, st := range file.Stmts {
		if err := g.r.Run(ctx, st); err != nil {
			if _, ok := isExit(err); !ok {
				fmt.Fprintf(g.cfg.Stderr, "%s: warning: %s: %v\n", g.name, path, err)
			}
		}
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// isExit returns the exit status err carries, if it carries one.
func isExit(err error) (uint8, bool) {
	st, ok := errors.AsType[interp.ExitStatus](err)
	return uint8(st), ok
}
