package jail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/guardsh/guardsh/interp/jail/jailtest"
)

// world is jailtest.World (the attack layout) with a jail on its project.
type world struct {
	base, app, evil, outside, secret string
	j                                *Jail
	tw                               *jailtest.World
}

const secretText = jailtest.Secret

func newWorld(t *testing.T) *world {
	t.Helper()
	jw := jailtest.New(t)
	w := &world{base: jw.Base, app: jw.App, evil: jw.Evil, outside: jw.Outside, secret: jw.Secret, tw: jw}
	var err error
	w.j, err = New(w.app)
	must(t, err)
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// isRefusal reports whether err is (or wraps) a refusal with a rule ID, as
// opposed to an ordinary failure such as a missing file.
func isRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Rule != ""
}

// secretIntact fails the test if the outside file changed.
func (w *world) secretIntact(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(w.secret)
	if err != nil || string(b) != secretText {
		t.Fatalf("outside file changed: %q, %v", b, err)
	}
}

func TestResolve(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name, dir, path string
		real            string // "" = do not check
		inside          bool
		link            string
		rule            string // expected refusal
	}{
		{name: "plain", path: "in.txt", real: w.app + "/in.txt", inside: true},
		{name: "absolute inside", path: w.app + "/in.txt", real: w.app + "/in.txt", inside: true},
		{name: "root itself", path: ".", real: w.app, inside: true},
		{name: "dot dot inside", path: "sub/../in.txt", real: w.app + "/in.txt", inside: true},
		{name: "symlink inside", path: "inlink", real: w.app + "/in.txt", inside: true},
		{name: "symlinked dir inside then ..", path: "inlinkdir/../in.txt", real: w.app + "/in.txt", inside: true},
		{name: "new file", path: "new/deep/file", real: w.app + "/new/deep/file", inside: true},
		{name: "absolute outside", path: w.secret, real: w.secret},
		{name: "dot dot chain", path: "../outside/secret.txt", real: w.secret},
		{name: "long dot dot chain", path: "sub/../../../../../../" + strings.TrimPrefix(w.secret, "/"), real: w.secret},
		{name: "dot dot from sub", dir: w.app + "/sub", path: "../../outside/secret.txt", real: w.secret},
		{name: "symlinked dir outside", path: "linkdir/secret.txt", real: w.secret, link: w.app + "/linkdir"},
		{name: "symlink final", path: "linkfile", real: w.secret, link: w.app + "/linkfile"},
		{name: "absolute symlink", path: "abslink", real: w.secret, link: w.app + "/abslink"},
		{name: "sibling with common prefix", path: w.evil + "/x.txt", real: w.evil + "/x.txt"},
		{name: "sibling via dot dot", path: "../app-evil/x.txt", real: w.evil + "/x.txt"},
		{name: "sibling dir itself", path: w.evil, real: w.evil},
		{name: "cwd outside, relative", dir: w.outside, path: "secret.txt", real: w.secret},
		{name: "empty", path: "", rule: RuleEmpty},
		{name: "NUL", path: "in\x00.txt", rule: RuleNUL},
		{name: "tilde", path: "~/x", rule: RuleTilde},
		{name: "tilde alone", path: "~", rule: RuleTilde},
		{name: "tilde user", path: "~root/.bashrc", rule: RuleTilde},
		{name: "dot tilde is a name", path: "./~x", real: w.app + "/~x", inside: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = w.app
			}
			res, err := w.j.Resolve(dir, tc.path)
			if tc.rule != "" {
				var e *Error
				if !errors.As(err, &e) || e.Rule != tc.rule {
					t.Fatalf("got %v, want refusal %s", err, tc.rule)
				}
				if e.Hint == "" {
					t.Errorf("refusal without a hint: %v", e)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.real != "" && res.Real != tc.real {
				t.Errorf("Real = %q, want %q", res.Real, tc.real)
			}
			if res.Inside != tc.inside {
				t.Errorf("Inside = %v, want %v", res.Inside, tc.inside)
			}
			if res.Link != tc.link {
				t.Errorf("Link = %q, want %q", res.Link, tc.link)
			}
		})
	}
}

// TestRootThroughSymlink: a project reached through a symlinked directory
// (/tmp -> /private/tmp on macOS) is canonicalised like its files.
func TestRootThroughSymlink(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	must(t, os.MkdirAll(base+"/private/tmp/proj", 0o755))
	must(t, os.Symlink("private/tmp", base+"/tmp"))
	j, err := New(base + "/tmp/proj")
	must(t, err)
	if j.Root() != base+"/private/tmp/proj" {
		t.Fatalf("root = %s", j.Root())
	}
	for _, p := range []string{base + "/tmp/proj/f", base + "/private/tmp/proj/f", "f"} {
		res, err := j.Resolve(base+"/tmp/proj", p)
		must(t, err)
		if !res.Inside || res.Real != base+"/private/tmp/proj/f" {
			t.Errorf("%s: %+v", p, res)
		}
	}
	res, err := j.Resolve(base+"/tmp/proj", "../other")
	must(t, err)
	if res.Inside {
		t.Errorf("../other inside: %+v", res)
	}
}

func TestSymlinkLoop(t *testing.T) {
	w := newWorld(t)
	must(t, os.Symlink("loop2", w.app+"/loop1"))
	must(t, os.Symlink("loop1", w.app+"/loop2"))
	if _, err := w.j.Resolve(w.app, "loop1/x"); err == nil {
		t.Fatal("symlink loop resolved")
	}
}

func TestPrivateDir(t *testing.T) {
	w := newWorld(t)
	must(t, os.Mkdir(w.app+"/priv", 0o700))
	must(t, w.j.AddPrivate(w.app+"/priv"))
	for _, p := range []string{"priv", "priv/sh-interp-1", "sub/../priv/x"} {
		if _, err := w.j.Resolve(w.app, p); !isRefusal(err) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestOpen: what was checked is what is opened; outside targets stay intact
// whatever the open flags.
func TestOpen(t *testing.T) {
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
			w := newWorld(t)
			// inside, through an inside symlink: works as in bash
			res, err := w.j.Resolve(w.app, "inlink")
			must(t, err)
			f, err := w.j.Open(res, os.O_WRONLY|os.O_TRUNC, 0o644, Options{})
			must(t, err)
			f.WriteString("new\n")
			f.Close()
			if b, _ := os.ReadFile(w.app + "/in.txt"); string(b) != "new\n" {
				t.Errorf("in.txt = %q", b)
			}
			// create a file
			res, err = w.j.Resolve(w.app, "sub/created")
			must(t, err)
			f, err = w.j.Open(res, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644, Options{})
			must(t, err)
			f.Close()
			// hardlink: refused for writing, before any truncation
			res, err = w.j.Resolve(w.app, "hard")
			must(t, err)
			if !res.Inside {
				t.Fatal("hard link resolves outside?")
			}
			if _, err := w.j.Open(res, os.O_WRONLY|os.O_TRUNC, 0o644, Options{}); !isRefusal(err) {
				t.Errorf("write through hardlink: %v", err)
			}
			w.secretIntact(t)
			// a symlink swapped in after the check: ELOOP, refused
			res, err = w.j.Resolve(w.app, "sub/created")
			must(t, err)
			must(t, os.Remove(w.app+"/sub/created"))
			must(t, os.Symlink(w.secret, w.app+"/sub/created"))
			if _, err := w.j.Open(res, os.O_WRONLY|os.O_TRUNC, 0o644, Options{}); !isRefusal(err) {
				t.Errorf("swapped final symlink: %v", err)
			}
			// a directory swapped for a symlink after the check
			must(t, os.Mkdir(w.app+"/d", 0o755))
			res, err = w.j.Resolve(w.app, "d/secret.txt")
			must(t, err)
			must(t, os.Remove(w.app+"/d"))
			must(t, os.Symlink(w.outside, w.app+"/d"))
			if _, err := w.j.Open(res, os.O_WRONLY|os.O_TRUNC, 0o644, Options{}); !isRefusal(err) {
				t.Errorf("swapped dir symlink: %v", err)
			}
			w.secretIntact(t)
			// regular only
			res, err = w.j.Resolve(w.app, "sub")
			must(t, err)
			if _, err := w.j.Open(res, os.O_RDONLY, 0, Options{RegularOnly: true}); !isRefusal(err) {
				t.Errorf("directory opened as regular file: %v", err)
			}
		})
	}
}

// TestUnifiedDiff: the diffs are GNU diff -u's (diffutils 3.8, the
// output below the two header lines), context, hunk headers and missing
// final newlines included.
func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "x\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"},
		{"x", "y", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", ""},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			"--- a\n+++ b\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -10,3 +11,4 @@\n 10\n 11\n 12\n+13\n"},
	}
	for _, tc := range tests {
		if got := UnifiedDiff("a", "b", tc.old, tc.new); got != tc.want {
			t.Errorf("diff %q -> %q:\n%s\nwant\n%s", tc.old, tc.new, got, tc.want)
		}
	}
}

// TestUnifiedDiffLarge: a file of 3,000 lines changed in its first and
// last line gives the two hunks diff -u gives (a diff bounded by the
// product of the lengths showed it as 6,000 replaced lines).
func TestUnifiedDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		switch i {
		case 1, 3000:
			fmt.Fprintf(&b, "changed %d\n", i)
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	got := UnifiedDiff("a", "b", a.String(), b.String())
	want := "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-line 1\n+changed 1\n line 2\n line 3\n line 4\n" +
		"@@ -2997,4 +2997,4 @@\n line 2997\n line 2998\n line 2999\n-line 3000\n+changed 3000\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant\n%s", got, want)
	}
}

// TestMkdirParentsSwap: a symlink to the outside swapped in after the
// check stops the directory walk; nothing is created outside.
func TestMkdirParentsSwap(t *testing.T) {
	w := newWorld(t)
	res, err := w.j.Resolve(w.app, "mk/a/f")
	must(t, err)
	if !res.Inside || res.Exists {
		t.Fatalf("%+v", res)
	}
	must(t, os.Symlink(w.outside, w.app+"/mk"))
	if _, err := w.j.MkdirParents(res); !isRefusal(err) {
		t.Errorf("walk through swapped symlink: %v", err)
	}
	if _, err := os.Stat(w.outside + "/a"); err == nil {
		t.Error("directory created outside")
	}
}

// TestTrailingSlash: a trailing slash keeps its meaning (a directory) after
// canonicalisation dropped it, with the kernel's errors.
func TestTrailingSlash(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		path string
		flag int
		want error // nil: opens
	}{
		{"sub/", os.O_RDONLY, nil},
		{".", os.O_RDONLY, nil},
		{"sub/.", os.O_RDONLY, nil},
		{"in.txt/", os.O_RDONLY, syscall.ENOTDIR},
		{"in.txt/", os.O_WRONLY | os.O_CREATE | os.O_TRUNC, syscall.EISDIR},
		{"new/", os.O_WRONLY | os.O_CREATE | os.O_TRUNC, syscall.EISDIR},
		{"new/", os.O_RDONLY, syscall.ENOENT},
		{"sub/", os.O_WRONLY | os.O_CREATE, syscall.EISDIR},
	}
	for _, tc := range tests {
		res, err := w.j.Resolve(w.app, tc.path)
		must(t, err)
		f, err := w.j.Open(res, tc.flag, 0o644, Options{})
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s %#x: %v, want %v", tc.path, tc.flag, err, tc.want)
		}
		if f != nil {
			f.Close()
		}
	}
	if _, err := os.Stat(w.app + "/new"); err == nil {
		t.Error("new/ created a file")
	}
}
