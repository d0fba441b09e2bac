package agentloop

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/interp/jail/jailtest"
)

// filesWorld is jailtest's attack layout with the agent's Files on its
// project.
func filesWorld(t *testing.T) (*jailtest.World, Files) {
	t.Helper()
	w := jailtest.New(t)
	f, err := OpenFiles(w.App)
	if err != nil {
		t.Fatal(err)
	}
	return w, f
}

func secretIntact(t *testing.T, w *jailtest.World) {
	t.Helper()
	if b, err := os.ReadFile(w.Secret); err != nil || string(b) != jailtest.Secret {
		t.Fatalf("outside file changed: %q, %v", b, err)
	}
}

// TestFilesAttacks: every file operation of the agent's tools refuses
// every way out of the project, and the outside file stays intact.
func TestFilesAttacks(t *testing.T) {
	w, f := filesWorld(t)
	paths := []string{
		w.Secret,                // absolute path outside
		"../outside/secret.txt", // ../ chain
		"sub/../../outside/secret.txt",
		"linkdir/secret.txt", // symlinked dir inside pointing outside
		"linkfile",           // symlink as final component
		"abslink",            // absolute symlink
		w.Evil + "/x.txt",    // sibling with the project's name as prefix
		"../app-evil/x.txt",
		"",             // empty
		"in\x00.txt",   // NUL
		"~/secret.txt", // unexpanded tilde
	}
	for _, p := range paths {
		if rel, err := f.Clean(p); err == nil {
			t.Errorf("Clean(%q) = %q", p, rel)
		}
		if _, err := f.Lstat(p); err == nil {
			t.Errorf("Lstat(%q) succeeded", p)
		}
		if b, err := f.ReadFile(p); err == nil {
			t.Errorf("ReadFile(%q) = %q", p, b)
		}
		if _, err := f.WriteFile(p, []byte("PWNED\n"), 0o644); err == nil {
			t.Errorf("WriteFile(%q) succeeded", p)
		}
		if err := f.Remove(p, false); err == nil {
			t.Errorf("Remove(%q) succeeded", p)
		}
		if _, err := f.ReadDir(p); err == nil {
			t.Errorf("ReadDir(%q) succeeded", p)
		}
	}
	// directories are never made through a link outside
	if _, err := f.WriteFile("linkdir/newdir/f", []byte("x"), 0o644); err == nil {
		t.Error("write below a link outside succeeded")
	}
	if _, err := os.Stat(w.Outside + "/newdir"); err == nil {
		t.Error("directory created outside")
	}
	// the hard link to the outside file: readable (it is inside), never
	// written through
	if _, err := f.ReadFile("hard"); err != nil {
		t.Errorf("read hard link: %v", err)
	}
	if _, err := f.WriteFile("hard", []byte("PWNED\n"), 0o644); err == nil {
		t.Error("WriteFile(hard) succeeded")
	}
	secretIntact(t, w)
	if _, err := os.Stat(w.Evil + "/x.txt"); err != nil {
		t.Error(err)
	}
	// a FIFO neither hangs nor is accepted
	if err := syscall.Mkfifo(w.App+"/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"ReadFile":  func() error { _, err := f.ReadFile("fifo"); return err },
		"WriteFile": func() error { _, err := f.WriteFile("fifo", []byte("x"), 0o644); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- op() }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s(fifo) succeeded", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s(fifo) hangs", name)
		}
	}
}

// TestFilesRace swaps names of the project between something inside and a
// way out (a file and a symlink to the outside file, a directory and a
// symlink to the outside directory) while the agent writes, also into
// directories it has to create: nothing outside may change or appear.
func TestFilesRace(t *testing.T) {
	w, f := filesWorld(t)
	stop := w.Race(true)
	n, ok := 0, 0
	write := func(p string) {
		n++
		if _, err := f.WriteFile(p, []byte("PWNED\n"), 0o644); err == nil {
			ok++
		}
	}
	deadline := time.Now().Add(800 * time.Millisecond)
	for time.Now().Before(deadline) {
		write("race")
		write("rdir/secret.txt")
	}
	// Directories made while rdir turns into a symlink: os.Mkdir of the
	// checked path made outside/made about once in 10,000 tries; the
	// jail's walk cannot.
	deadline = time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		write("rdir/made/f")
	}
	stop()
	secretIntact(t, w)
	ents, err := os.ReadDir(w.Outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "secret.txt" {
		t.Errorf("the outside directory holds %q, want only secret.txt", names)
	}
	t.Logf("%d attempts, %d writes went through (inside)", n, ok)
}

// TestFilesWriteMakesDirs: missing directories are made (and reported
// relative to the project), never through a file.
func TestFilesWriteMakesDirs(t *testing.T) {
	w, f := filesWorld(t)
	made, err := f.WriteFile("nodir/deeper/f", []byte("x"), 0o644)
	if err != nil || strings.Join(made, " ") != "nodir nodir/deeper" {
		t.Errorf("made dirs = %q, %v", made, err)
	}
	if _, err := f.WriteFile("in.txt/f", []byte("x"), 0o644); err == nil {
		t.Error("write below a file succeeded")
	}
	if b, err := os.ReadFile(w.App + "/nodir/deeper/f"); err != nil || string(b) != "x" {
		t.Errorf("written: %q, %v", b, err)
	}
	if _, err := f.ReadFile("nodir/missing"); !errors.Is(err, fs.ErrNotExist) && (err == nil || !strings.Contains(err.Error(), "no such file")) {
		t.Errorf("missing file: %v", err)
	}
}
