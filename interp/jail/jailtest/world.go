// Package jailtest builds the directory layout that the attack tests of
// package jail and of the shell's jail (package interp) share, so that
// both attack the same shapes.
package jailtest

import (
	"os"
	"path/filepath"
	"sync"
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

// Race starts swapping two names of the project, until the returned stop
// function is called, between something inside and a way out: App/race
// between a file and a symlink to Secret (atomically, by rename), and
// App/rdir between a directory and a symlink to Outside. With fillDir the
// directory gets a secret.txt of its own, so that rdir/secret.txt also
// has a target inside. stop returns once the swapping ended.
func (w *World) Race(fillDir bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			// final component: file <-> symlink, swapped atomically by rename
			os.Remove(w.App + "/tmpx")
			if i%2 == 0 {
				os.Symlink(w.Secret, w.App+"/tmpx")
			} else {
				os.WriteFile(w.App+"/tmpx", []byte("inside\n"), 0o644)
			}
			os.Rename(w.App+"/tmpx", w.App+"/race")
			// directory component: dir <-> symlink to outside
			os.Remove(w.App + "/rdir")
			os.RemoveAll(w.App + "/rdir")
			if i%2 == 0 {
				os.Symlink(w.Outside, w.App+"/rdir")
			} else {
				os.Mkdir(w.App+"/rdir", 0o755)
				if fillDir {
					os.WriteFile(w.App+"/rdir/secret.txt", []byte("inside\n"), 0o644)
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
