package interp

import (
	"context"
	"os"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// BenchmarkJailOpen: one redirection's open through the jail and the
// policy (go test -bench JailOpen ./interp/).
func BenchmarkJailOpen(b *testing.B) {
	dir := b.TempDir()
	fs, err := NewJailFS(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	p := guardsh.NewPolicy(guardsh.ModeAuto)
	fs.Classify = p.ClassifyAccess
	hc := interp.HandlerContext{Dir: dir, Env: expand.ListEnviron("HOME=/nonexistent")}
	ctx := context.Background()
	for b.Loop() {
		f, err := fs.open(ctx, hc, "f", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkPlainOpen is the same open without the jail, for comparison.
func BenchmarkPlainOpen(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		f, err := os.OpenFile(dir+"/f", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
