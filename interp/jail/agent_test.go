package jail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

func (w *world) session() *Session { return &Session{Jail: w.j} }

// TestAgentAttacks: every agent primitive refuses every way out, and the
// outside file stays intact.
func TestAgentAttacks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	paths := []string{
		w.secret,                // absolute path outside
		"../outside/secret.txt", // ../ chain
		"sub/../../outside/secret.txt",
		"linkdir/secret.txt", // symlinked dir inside pointing outside
		"linkfile",           // symlink as final component
		"abslink",            // absolute symlink
		w.evil + "/x.txt",    // sibling with the project's name as prefix
		"../app-evil/x.txt",
		"",             // empty
		"in\x00.txt",   // NUL
		"~/secret.txt", // unexpanded tilde
	}
	for _, p := range paths {
		s := w.session()
		if _, err := s.Read(ctx, p, 0, 0); !IsRefusal(err) {
			t.Errorf("Read(%q): %v", p, err)
		}
		if _, err := s.Write(ctx, p, "PWNED\n"); !IsRefusal(err) {
			t.Errorf("Write(%q): %v", p, err)
		}
		if _, err := s.Edit(ctx, p, []Edit{{Old: "SECRET", New: "PWNED"}}); !IsRefusal(err) {
			t.Errorf("Edit(%q): %v", p, err)
		}
		if err := s.Delete(ctx, p); !IsRefusal(err) {
			t.Errorf("Delete(%q): %v", p, err)
		}
		if _, err := s.List(ctx, p); !IsRefusal(err) {
			t.Errorf("List(%q): %v", p, err)
		}
	}
	// cd outside then a relative path
	s := w.session()
	s.Dir = w.outside
	if _, err := s.Write(ctx, "secret.txt", "PWNED\n"); !IsRefusal(err) {
		t.Errorf("relative write from outside dir: %v", err)
	}
	// the hard link to the outside file: readable (it is inside), never written
	s = w.session()
	if _, err := s.Read(ctx, "hard", 0, 0); err != nil {
		t.Errorf("read hard link: %v", err)
	}
	if _, err := s.Write(ctx, "hard", "PWNED\n"); !IsRefusal(err) {
		t.Errorf("Write(hard): %v", err)
	}
	if _, err := s.Edit(ctx, "hard", []Edit{{Old: "SECRET", New: "PWNED"}}); !IsRefusal(err) {
		t.Errorf("Edit(hard): %v", err)
	}
	if err := s.Delete(ctx, "hard"); !IsRefusal(err) {
		t.Errorf("Delete(hard): %v", err)
	}
	w.secretIntact(t)
	if _, err := os.Stat(w.evil + "/x.txt"); err != nil {
		t.Error(err)
	}
}

// TestAgentDecide: the decider sees the resolved truth and its verdict
// stands.
func TestAgentDecide(t *testing.T) {
	w := newWorld(t)
	var got []guardsh.Access
	s := w.session()
	s.Decide = func(ctx context.Context, a guardsh.Access) error {
		got = append(got, a)
		if !a.Inside && a.Write {
			return &Error{Op: "write", Path: a.Path, Rule: "write.outside", Reason: "outside", Hint: "don't"}
		}
		return nil
	}
	ctx := context.Background()
	if _, err := s.Read(ctx, "linkfile", 0, 0); err != nil {
		t.Fatalf("read allowed by decider: %v", err)
	}
	if _, err := s.Write(ctx, "linkfile", "x"); err == nil || !strings.Contains(err.Error(), "write.outside") {
		t.Fatalf("write: %v", err)
	}
	a := got[0]
	if a.Resolved != w.secret || a.Inside || a.Link != w.app+"/linkfile" || a.Via != "agent" || a.Project != w.app || a.Write {
		t.Errorf("access = %+v", a)
	}
	if !got[1].Write {
		t.Errorf("write access not marked Write: %+v", got[1])
	}
	w.secretIntact(t)
}

func TestVerdictError(t *testing.T) {
	a := guardsh.Access{Path: "x", Write: true}
	if VerdictError(a, guardsh.Verdict{Decision: guardsh.Allow}) != nil {
		t.Error("allow refused")
	}
	err := VerdictError(a, guardsh.Verdict{Decision: guardsh.Ask, Rule: "write.outside", Reason: "outside.", Hint: "ask a human"})
	if !IsRefusal(err) || err.Error() != "guardsh: needs approval [write.outside]: x: outside. Ask a human" {
		t.Errorf("%v", err)
	}
}

func TestAgentTools(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	var snaps []string
	s := w.session()
	s.Snapshot = func(path string, old []byte, existed bool) error {
		snaps = append(snaps, fmt.Sprintf("%s %q %v", filepath.Base(path), old, existed))
		return nil
	}
	// write through an inside symlink works as in bash: the target changes
	r, err := s.Write(ctx, "inlink", "one\ntwo\nthree\n")
	must(t, err)
	if r.Path != w.app+"/in.txt" || r.Created || !strings.Contains(r.Diff, "-hello\n+one\n+two\n+three\n") {
		t.Errorf("write = %+v", r)
	}
	if fi, _ := os.Lstat(w.app + "/inlink"); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the inside symlink was replaced by a file")
	}
	// create
	r, err = s.Write(ctx, "sub/new.txt", "x\n")
	must(t, err)
	if !r.Created || !strings.HasPrefix(r.Diff, "--- /dev/null\n") {
		t.Errorf("create = %+v", r)
	}
	// missing directories are made
	r, err = s.Write(ctx, "nodir/deeper/f", "x")
	must(t, err)
	if strings.Join(r.MadeDirs, " ") != w.app+"/nodir "+w.app+"/nodir/deeper" {
		t.Errorf("made dirs = %q", r.MadeDirs)
	}
	// ... but never through a file or outside
	if _, err := s.Write(ctx, "in.txt/f", "x"); err == nil {
		t.Error("write below a file succeeded")
	}
	if _, err := s.Write(ctx, "linkdir/newdir/f", "x"); !IsRefusal(err) {
		t.Errorf("mkdir through a link outside: %v", err)
	}
	if _, err := os.Stat(w.outside + "/newdir"); err == nil {
		t.Error("directory created outside")
	}
	// read ranges
	rr, err := s.Read(ctx, "in.txt", 2, 1)
	must(t, err)
	if rr.Text != "two\n" || rr.FirstLine != 2 || rr.LastLine != 2 || rr.TotalLines != 3 {
		t.Errorf("read = %+v", rr)
	}
	if _, err := s.Read(ctx, "in.txt", 9, 0); err == nil {
		t.Error("read past the end succeeded")
	}
	// edits: all or none
	_, err = s.Edit(ctx, "in.txt", []Edit{{Old: "one", New: "1"}, {Old: "missing", New: "x"}})
	if err == nil || !strings.Contains(err.Error(), "edit 2 of 2") {
		t.Fatalf("edit with a bad second edit: %v", err)
	}
	if b, _ := os.ReadFile(w.app + "/in.txt"); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("failed edit changed the file: %q", b)
	}
	must(t, os.WriteFile(w.app+"/dup.txt", []byte("a\na\nb\n"), 0o600))
	if _, err := s.Edit(ctx, "dup.txt", []Edit{{Old: "a", New: "c"}}); err == nil || !strings.Contains(err.Error(), "2 times") {
		t.Errorf("ambiguous edit: %v", err)
	}
	r, err = s.Edit(ctx, "dup.txt", []Edit{{Old: "a", New: "c", All: true}, {Old: "b", New: "d"}})
	must(t, err)
	if b, _ := os.ReadFile(w.app + "/dup.txt"); string(b) != "c\nc\nd\n" {
		t.Errorf("edited = %q", b)
	}
	if fi, _ := os.Stat(w.app + "/dup.txt"); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after edit = %v", fi.Mode())
	}
	if r.Diff != "--- a/dup.txt\n+++ b/dup.txt\n@@ -1,3 +1,3 @@\n-a\n-a\n-b\n+c\n+c\n+d\n" {
		t.Errorf("diff:\n%s", r.Diff)
	}
	// delete: only read files
	must(t, os.WriteFile(w.app+"/del.txt", []byte("bye\n"), 0o644))
	s2 := w.session()
	if err := s2.Delete(ctx, "del.txt"); !IsRefusal(err) {
		t.Errorf("delete unread: %v", err)
	}
	_, err = s2.Read(ctx, "del.txt", 0, 0)
	must(t, err)
	must(t, os.WriteFile(w.app+"/del.txt", []byte("changed!\n"), 0o644))
	if err := s2.Delete(ctx, "del.txt"); !IsRefusal(err) {
		t.Errorf("delete changed since read: %v", err)
	}
	_, err = s2.Read(ctx, "del.txt", 0, 0)
	must(t, err)
	s2.Snapshot = s.Snapshot
	must(t, s2.Delete(ctx, "del.txt"))
	if _, err := os.Stat(w.app + "/del.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Error("not deleted")
	}
	// delete acts on the name: a symlink is refused, its target kept
	_, err = s2.Read(ctx, "inlink", 0, 0)
	must(t, err)
	if err := s2.Delete(ctx, "inlink"); !IsRefusal(err) || !strings.Contains(err.Error(), "rm LINK") {
		t.Errorf("delete symlink: %v", err)
	}
	if _, err := os.Stat(w.app + "/in.txt"); err != nil {
		t.Errorf("symlink target deleted: %v", err)
	}
	for _, p := range []string{"sub", "sub/", "sub/..", "."} {
		if err := s2.Delete(ctx, p); !IsRefusal(err) {
			t.Errorf("delete %q: %v", p, err)
		}
	}
	if _, err := s2.Read(ctx, "sub", 0, 0); !IsRefusal(err) {
		t.Errorf("read a directory: %v", err)
	}
	must(t, os.WriteFile(w.app+"/bin", []byte("\x7fELF\x00\x01"), 0o644))
	if _, err := s2.Read(ctx, "bin", 0, 0); !IsRefusal(err) {
		t.Errorf("read binary: %v", err)
	}
	// list
	l, err := s.List(ctx, ".")
	must(t, err)
	var names []string
	for _, e := range l.Entries {
		names = append(names, e.Name+":"+e.Type)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "linkdir:symlink") || !strings.Contains(got, "sub:dir") || !strings.Contains(got, "in.txt:file") {
		t.Errorf("list = %s", got)
	}
	want := []string{
		`in.txt "hello\n" true`,
		`new.txt "" false`,
		`f "" false`,
		`dup.txt "a\na\nb\n" true`,
		`del.txt "changed!\n" true`,
	}
	if strings.Join(snaps, "|") != strings.Join(want, "|") {
		t.Errorf("snapshots:\n%s\nwant\n%s", strings.Join(snaps, "\n"), strings.Join(want, "\n"))
	}
	// no temporary files left behind
	ents, _ := os.ReadDir(w.app)
	for _, e := range ents {
		if strings.Contains(e.Name(), tempInfix) {
			t.Errorf("stray temp file %s", e.Name())
		}
	}
}

func TestReadCaps(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	s := w.session()
	s.MaxReadBytes = 100
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "line %02d\n", i)
	}
	b.WriteString(strings.Repeat("é", 3000) + "\n")
	must(t, os.WriteFile(w.app+"/long.txt", []byte(b.String()), 0o644))
	r, err := s.Read(ctx, "long.txt", 0, 0)
	must(t, err)
	if !r.Truncated || r.LastLine != 12 || r.TotalLines != 51 {
		t.Errorf("capped read = %+v", r)
	}
	s.MaxReadBytes = 0
	r, err = s.Read(ctx, "long.txt", 51, 1)
	must(t, err)
	if !r.Truncated || !strings.Contains(r.Text, "[line cut") || len(r.Text) > MaxLineChars+100 {
		t.Errorf("long line = %d bytes, %+v", len(r.Text), r.Truncated)
	}
	s.MaxFileBytes = 10
	if _, err := s.Read(ctx, "long.txt", 0, 0); !IsRefusal(err) {
		t.Errorf("file over the cap: %v", err)
	}
}

// TestAgentRace swaps a name between a file inside and a symlink to the
// outside file, and a directory between a real one and a symlink outside,
// while the agent writes: the outside file must never change.
func TestAgentRace(t *testing.T) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			if walk {
				noOpenat2.Store(true)
				defer noOpenat2.Store(false)
			}
			agentRace(t)
		})
	}
}

func agentRace(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	stopRace := w.tw.Race(true)
	s := w.session()
	deadline := time.Now().Add(800 * time.Millisecond)
	n, ok := 0, 0
	for time.Now().Before(deadline) {
		for _, p := range []string{"race", "rdir/secret.txt"} {
			n++
			if _, err := s.Write(ctx, p, "PWNED\n"); err == nil {
				ok++
			}
			s.Edit(ctx, p, []Edit{{Old: "SECRET", New: "PWNED"}})
			if res, err := w.j.Resolve(w.app, p); err == nil && res.Inside {
				if f, err := w.j.Open(res, os.O_WRONLY|os.O_TRUNC, 0, Options{}); err == nil {
					f.WriteString("PWNED\n")
					f.Close()
				}
			}
		}
	}
	stopRace()
	w.secretIntact(t)
	t.Logf("%d attempts, %d writes went through (inside)", n, ok)
}

// The helper processes: the test binary re-executed with GUARDSH_JAIL_HELPER.
func TestMain(m *testing.M) {
	switch os.Getenv("GUARDSH_JAIL_HELPER") {
	case "":
		os.Exit(m.Run())
	case "fifo":
		os.Exit(helperFIFO(os.Getenv("GUARDSH_JAIL_DIR")))
	case "writer":
		helperWriter(os.Getenv("GUARDSH_JAIL_DIR"))
	}
}

func helperFIFO(dir string) int {
	j, err := New(dir)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	s := &Session{Jail: j}
	ctx := context.Background()
	_, rerr := s.Read(ctx, "fifo", 0, 0)
	_, werr := s.Write(ctx, "fifo", "x")
	_, eerr := s.Edit(ctx, "fifo", []Edit{{Old: "a", New: "b"}})
	derr := s.Delete(ctx, "fifo")
	res, _ := j.Resolve(dir, "fifo")
	_, oerr := j.Open(res, os.O_WRONLY, 0, Options{})
	_, o2err := j.Open(res, os.O_RDONLY, 0, Options{RegularOnly: true})
	for _, err := range []error{rerr, werr, eerr, derr, oerr, o2err} {
		if err == nil {
			fmt.Println("FIFO accepted")
			return 1
		}
		fmt.Println(err)
	}
	return 0
}

func helperWriter(dir string) {
	j, err := New(dir)
	if err != nil {
		os.Exit(2)
	}
	s := &Session{Jail: j}
	a := strings.Repeat("a", 1<<20)
	b := strings.Repeat("b", 1<<20)
	fmt.Println("ready")
	for i := 0; ; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		if _, err := s.Write(context.Background(), "f", c); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
	}
}

func helper(t *testing.T, ctx context.Context, kind, dir string) *exec.Cmd {
	exe, err := os.Executable()
	must(t, err)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GUARDSH_JAIL_HELPER="+kind, "GUARDSH_JAIL_DIR="+dir)
	return cmd
}

// TestFIFONoHang: the agent's primitives on a FIFO fail at once instead of
// waiting for a writer or reader; run in a subprocess so a hang fails the
// test instead of stalling it.
func TestFIFONoHang(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	must(t, syscall.Mkfifo(dir+"/fifo", 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := helper(t, ctx, "fifo", dir).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("FIFO hung the helper: %s", out)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "FIFO") {
		t.Errorf("messages do not name the FIFO:\n%s", out)
	}
}

// TestAtomicWriteKilled kills a process that rewrites a 1 MiB file over and
// over at random moments: the file is always wholly the old or the new
// content.
func TestAtomicWriteKilled(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	a := bytes.Repeat([]byte("a"), 1<<20)
	b := bytes.Repeat([]byte("b"), 1<<20)
	must(t, os.WriteFile(dir+"/f", a, 0o644))
	rounds, sawB := 25, 0
	if testing.Short() {
		rounds = 5
	}
	// On a slow machine (-race, a loaded CI runner) a 40 ms window may
	// never see a write complete: after the planned rounds, go on with
	// longer windows until one does, so the test always proves something.
	for i := 0; i < rounds || sawB == 0 && i < rounds+40; i++ {
		cmd := helper(t, context.Background(), "writer", dir)
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		buf := make([]byte, 6)
		stdout.Read(buf) // "ready"
		window := 40
		if i >= rounds {
			window = 40 + 20*(i-rounds+1)
		}
		time.Sleep(time.Duration(rand.Intn(window)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(dir + "/f")
		must(t, err)
		switch {
		case bytes.Equal(got, a):
		case bytes.Equal(got, b):
			sawB++
		default:
			t.Fatalf("round %d: torn file: %d bytes, starts %q", i, len(got), got[:min(len(got), 8)])
		}
	}
	if sawB == 0 {
		t.Errorf("the writer never completed a write before being killed: the test proves nothing")
	}
	ents, _ := os.ReadDir(dir)
	t.Logf("%d planned rounds, %d ended with the second content; %d directory entries left (stray temp files are allowed)", rounds, sawB, len(ents))
}
