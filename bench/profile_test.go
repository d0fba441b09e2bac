// Package bench holds in-process benchmarks used to profile guardsh's hot
// paths with pprof (bench/run --profile runs them with -cpuprofile). The
// end-to-end comparison with bash is bench/run itself.
package bench

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"mvdan.cc/sh/v3/expand"
	mvinterp "mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// loopSrc is the builtin loop of bench/run, 10,000 iterations.
const loopSrc = `i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done`

func runGuardsh(b *testing.B, src string) {
	b.Helper()
	dir := b.TempDir()
	env := append(os.Environ(), "HOME="+dir)
	for b.Loop() {
		r, err := interp.New(interp.Config{Dir: dir, Project: dir, Env: env, Stdout: io.Discard, Stderr: io.Discard,
			Policy: guardsh.NewPolicy(guardsh.ModeDefault)})
		if err != nil {
			b.Fatal(err)
		}
		if st := r.Run(context.Background(), strings.NewReader(src), "bench"); st != 0 {
			b.Fatalf("exit status %d", st)
		}
	}
}

// runSession runs src the way the guardsh binary runs a script: auto mode,
// the path jail for in-process file access, and the audit log written to a
// file.
func runSession(b *testing.B, src string) {
	b.Helper()
	dir := b.TempDir()
	env := append(os.Environ(), "HOME="+dir)
	f, err := os.Create(dir + "/audit.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	log := audit.New(f, "bench")
	for b.Loop() {
		jfs, err := interp.NewJailFS(dir)
		if err != nil {
			b.Fatal(err)
		}
		r, err := interp.New(interp.Config{Dir: dir, Project: dir, Env: env, Stdout: io.Discard, Stderr: io.Discard,
			FS: jfs, Audit: log, Policy: guardsh.NewPolicy(guardsh.ModeAuto)})
		if err != nil {
			b.Fatal(err)
		}
		if st := r.Run(context.Background(), strings.NewReader(src), "bench"); st != 0 {
			b.Fatalf("exit status %d", st)
		}
		log.Flush()
		jfs.Close()
	}
}

func runMvdan(b *testing.B, src string, opts ...mvinterp.RunnerOption) {
	b.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "bench")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := mvinterp.New(append([]mvinterp.RunnerOption{mvinterp.Env(expand.ListEnviron(os.Environ()...)),
			mvinterp.StdIO(nil, io.Discard, io.Discard)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Run(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuiltinLoopGuardsh is the builtin loop through guardsh's runner
// (policy, handlers, jail as configured by default).
func BenchmarkBuiltinLoopGuardsh(b *testing.B) { runGuardsh(b, loopSrc) }

// BenchmarkBuiltinLoopSession is the builtin loop as the guardsh binary
// runs it: auto mode, path jail, audit log (bench/run's row 3, in process).
func BenchmarkBuiltinLoopSession(b *testing.B) { runSession(b, loopSrc) }

// BenchmarkBuiltinLoopMvdan is the same loop in mvdan's interpreter with
// its default handlers: the floor guardsh's runner adds to.
func BenchmarkBuiltinLoopMvdan(b *testing.B) { runMvdan(b, loopSrc) }

// BenchmarkBuiltinLoopMvdanHandler is the loop in mvdan's interpreter with
// a call handler that changes nothing: the floor of any guard that sees
// every command through mvdan's CallHandler.
func BenchmarkBuiltinLoopMvdanHandler(b *testing.B) {
	runMvdan(b, loopSrc, mvinterp.CallHandler(func(ctx context.Context, args []string) ([]string, error) { return args, nil }))
}

// BenchmarkTrue is a runner's set-up plus one builtin: the in-process part
// of guardsh -c true.
func BenchmarkTrueGuardsh(b *testing.B) { runGuardsh(b, "true") }

// BenchmarkTrueMvdan is the same in plain mvdan.
func BenchmarkTrueMvdan(b *testing.B) { runMvdan(b, "true") }

// BenchmarkExternal100Guardsh runs 100 external commands.
func BenchmarkExternal100Guardsh(b *testing.B) {
	runGuardsh(b, `i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done`)
}

// BenchmarkExternal100Mvdan is the same in plain mvdan.
func BenchmarkExternal100Mvdan(b *testing.B) {
	runMvdan(b, `i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done`)
}
