package agentloop

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// TestShellChangesOutsideGit: outside a git repository, files a shell
// command changed, created or deleted in the project count as changes for
// the verification gate, and undo puts them back (and removes what the
// commands created), with the file tools' changes.
func TestShellChangesOutsideGit(t *testing.T) {
	p := newProject(t, "gofix", false)
	origCalc, origReadme := p.read(t, "calc.go"), p.read(t, "README.md")
	f := newFake(t,
		calls(goTest),
		calls(call("run_shell", `{"command": "sed -i 's/for i := 1;/for i := 0;/' calc.go && mkdir -p gen/sub && echo made > gen/sub/out.txt && rm README.md"}`)),
		calls(call("finish", `{"summary": "done"}`)).with(expectTool("run_shell", "this command changed files in the project (README.md, calc.go, gen/sub/out.txt)")),
		calls(goTest).with(expectTool("finish", "changed files after the last test run")),
		calls(call("write_file", `{"path": "notes.txt", "content": "by the file tool\n"}`)),
		calls(call("run_shell", `{"command": "echo again >> notes.txt"}`)),
		calls(goTest),
		calls(call("finish", `{"summary": "done"}`)),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, nil)
	if err != nil || !res.Finished {
		t.Fatalf("run: %v %+v\n%s", err, res, out)
	}
	if got := strings.Join(res.ShellChanged, ","); got != "README.md,calc.go,gen/sub/out.txt,notes.txt" {
		t.Errorf("ShellChanged = %s", got)
	}
	if !strings.HasPrefix(res.Verified, "tests pass") {
		t.Errorf("verified = %q", res.Verified)
	}
	rep, err := Undo(p.root)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := p.read(t, "calc.go"); got != origCalc {
		t.Errorf("calc.go not restored:\n%s", got)
	}
	if got := p.read(t, "README.md"); got != origReadme {
		t.Errorf("README.md not restored: %q", got)
	}
	for _, gone := range []string{"gen", "notes.txt"} {
		if _, err := os.Lstat(filepath.Join(p.root, gone)); err == nil {
			t.Errorf("%s left after undo (%+v)", gone, rep)
		}
	}
}

// TestShellTrackingCap: a project with more files than MaxTrackedFiles is
// not scanned, and the run says so; a shell command then counts as a
// change for the verification gate (its changes cannot be seen).
func TestShellTrackingCap(t *testing.T) {
	if testing.Short() {
		t.Skip("creates many files")
	}
	p := newProject(t, "gofix", false)
	dir := filepath.Join(p.root, "many")
	os.MkdirAll(dir, 0o755)
	for i := range MaxTrackedFiles + 1 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644)
	}
	f := newFake(t,
		calls(call("run_shell", `{"command": "echo x > calc.go"}`)),
		calls(call("finish", `{"summary": "done"}`)).with(expectTool("run_shell", "counts as having changed files")),
		calls(call("run_shell", `{"command": "true"}`)).with(expectTool("finish", "finish refused")),
		calls(call("finish", `{"summary": "done"}`)),
	)
	res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(c *Config) { c.TestCmd = "true" })
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "shell commands' changes are not tracked in this run (the project has more than 10000 files") || len(res.ShellChanged) != 0 {
		t.Errorf("no note about the cap, or changes tracked anyway (%v):\n%s", res.ShellChanged, out)
	}
}

// BenchmarkShellScan is one scan of a project at the cap (MaxTrackedFiles
// small files): what each shell command costs twice outside git.
func BenchmarkShellScan(b *testing.B) {
	root := b.TempDir()
	for i := range MaxTrackedFiles - 100 {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i%100))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), []byte("package x\n"), 0o644)
	}
	files, err := OpenFiles(root)
	if err != nil {
		b.Fatal(err)
	}
	a := &agent{files: files}
	b.ResetTimer()
	for range b.N {
		if st, ok := a.scan(); !ok || len(st) != MaxTrackedFiles {
			b.Fatalf("scan: %d entries, ok %v", len(st), ok)
		}
	}
}

// BenchmarkShellBaseline is the baseline a run outside git takes before its
// first shell command, at the cap (MaxTrackedFiles files of 1 KiB).
func BenchmarkShellBaseline(b *testing.B) {
	root := b.TempDir()
	b.Setenv("XDG_STATE_HOME", filepath.Join(b.TempDir(), "state"))
	for i := range MaxTrackedFiles - 100 {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i%100))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), []byte(strings.Repeat("x", 1024)), 0o644)
	}
	files, err := OpenFiles(root)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		st, err := CreateStore(fmt.Sprintf("bench-%d", i), Entry{Workdir: root})
		if err != nil {
			b.Fatal(err)
		}
		a := &agent{files: files, store: st, out: io.Discard}
		if a.shellBefore() == nil || a.track.off != "" {
			b.Fatalf("no baseline: %s", a.track.off)
		}
		st.Close()
	}
}
