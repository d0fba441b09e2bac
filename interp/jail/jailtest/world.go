// Package jailtest builds the directory layout that the attack tests of
// package jail and of the shell's jail (package interp) share, so that
// both attack the same shapes.
package jailtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Secret is the content of World.Secret: an attack that reaches it reads
// this, and one that writes through a jail escape changes it.
const Secret = "SECRET\n"

// World is a temporary layout for attack tests:
//
//	Base/app                  the project (App)
//	Base/app/in.txt           "hello\n"
//	Base/app/sub/             a directory
//	Base/app/inlink      ->   in.txt             (stays inside)
//	Base/app/inlinkdir   ->   sub                (stays inside)
//	Base/app/linkdir     ->   ../outside         (leads outside)
//	Base/app/linkfile    ->   ../outside/secret.txt
//	Base/app/abslink     ->   Base/outside/secret.txt (absolute)
//	Base/app/hard             hard link to Base/outside/secret.txt
//	Base/app-evil/x.txt       next to the project, not in it (Evil)
//	Base/outside/secret.txt   Secret (Outside, Secret)
type World struct {
	Base, App, Evil, Outside, Secret string
}

// New builds a World in a fresh t.TempDir (its path with symlinks
// resolved).
func New(t testing.TB) *World {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &World{Base: base, App: base + "/app", Evil: base + "/app-evil", Outside: base + "/outside"}
	w.Secret = w.Outside + "/secret.txt"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{w.App + "/sub", w.Evil, w.Outside} {
		must(os.MkdirAll(d, 0o755))
	}
	must(os.WriteFile(w.Secret, []byte(Secret), 0o600))
	must(os.WriteFile(w.App+"/in.txt", []byte("hello\n"), 0o644))
	must(os.WriteFile(w.Evil+"/x.txt", []byte("evil\n"), 0o644))
	must(os.Symlink("in.txt", w.App+"/inlink"))
	must(os.Symlink("sub", w.App+"/inlinkdir"))
	must(os.Symlink("../outside", w.App+"/linkdir"))
	must(os.Symlink("../outside/secret.txt", w.App+"/linkfile"))
	must(os.Symlink(w.Secret, w.App+"/abslink"))
	must(os.Link(w.Secret, w.App+"/hard"))
	return w
}
