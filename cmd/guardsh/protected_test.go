//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/protect"
	"github.com/guardsh/guardsh/sandbox"
)

// protectedWorld is a throwaway machine where every entry of package
// protect has a concrete path inside a writable root: the project (with a
// git directory, a submodule's and a worktree's), and a HOME and
// $XDG_CONFIG_HOME below the shared /tmp, which the sandbox keeps writable.
type protectedWorld struct {
	base, project, home, xdg string
}

func newProtectedWorld(t *testing.T) *protectedWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &protectedWorld{base: base, project: base + "/project", home: base + "/home", xdg: base + "/xdg"}
	for _, d := range []string{w.project + "/.git/modules/sub/hooks", w.project + "/.git/worktrees/wt", w.home, w.xdg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []string{w.project + "/.git", w.project + "/.git/modules/sub", w.project + "/.git/worktrees/wt"} {
		os.WriteFile(g+"/HEAD", []byte("ref: refs/heads/main\n"), 0o644)
	}
	return w
}

// paths gives an entry's concrete paths in w: a GitDir entry in the
// project's, the submodule's and the worktree's git directory. System
// entries have none here (they are never written, even by a test).
func (w *protectedWorld) paths(e protect.Entry) []string {
	switch e.Base {
	case protect.Project:
		return []string{w.project + "/" + e.Path}
	case protect.GitDir:
		var out []string
		for _, g := range []string{"/.git/", "/.git/modules/sub/", "/.git/worktrees/wt/"} {
			out = append(out, w.project+g+e.Path)
		}
		return out
	case protect.Home:
		return []string{w.home + "/" + e.Path}
	case protect.ConfigHome:
		return []string{w.xdg + "/" + e.Path}
	}
	return nil
}

func (w *protectedWorld) env(k string) string {
	switch k {
	case "XDG_CONFIG_HOME":
		return w.xdg
	case "HOME":
		return w.home
	}
	return ""
}

// TestProtectedEverywhere: every entry of package protect is denied by the
// policy (a command, a redirection, the agent's view), listed for the
// sandbox, and, once it exists inside a writable root, kept read-only by
// the sandbox's configuration. A list that drifts from the others fails
// here.
func TestProtectedEverywhere(t *testing.T) {
	w := newProtectedWorld(t)
	// make every entry exist (trees as directories with a file)
	for _, e := range protect.Entries {
		for _, p := range w.paths(e) {
			target := p
			if e.Tree {
				target = p + "/f"
			}
			os.MkdirAll(filepath.Dir(target), 0o755)
			if err := os.WriteFile(target, []byte("orig\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := sandbox.NewConfig(w.project, w.base+"/tmp", w.home, w.env)
	inside := cfg.ProtectedInside()
	covered := func(p string) bool {
		for _, q := range inside {
			if p == q || strings.HasPrefix(p, q+"/") {
				return true
			}
		}
		return false
	}
	for _, mode := range []guardsh.Mode{guardsh.ModeDefault, guardsh.ModeAuto} {
		pol := guardsh.NewPolicy(mode)
		for _, e := range protect.Entries {
			ps := w.paths(e)
			if e.Base == protect.System {
				ps = []string{e.Path}
			}
			for _, p := range ps {
				target := p
				if e.Tree {
					target = p + "/new"
				}
				for _, argv := range [][]string{{"cp", "x", target}, {"mv", "x", target}, {"tee", target}, {"touch", target}, {"rm", "-f", target}} {
					c := guardsh.Command{Args: argv, Dir: w.project, Project: w.project, Home: w.home, Env: w.env, Via: "shell"}
					if v := pol.Classify(c); v.Decision != guardsh.Deny {
						t.Errorf("%s: %q is %s [%s], want denied", mode, strings.Join(argv, " "), v.Decision, v.Rule)
					}
				}
				a := guardsh.Access{Path: target, Resolved: target, Inside: strings.HasPrefix(target, w.project+"/"), Write: true,
					Dir: w.project, Project: w.project, Home: w.home, Env: w.env, Via: "redirect"}
				if v := pol.ClassifyAccess(a); v.Decision != guardsh.Deny {
					t.Errorf("%s: > %s is %s [%s], want denied", mode, target, v.Decision, v.Rule)
				}
				if mode != guardsh.ModeAuto {
					continue
				}
				if e.Base == protect.System {
					if !slices.Contains(cfg.Protected, p) {
						t.Errorf("sandbox: %s not in the protected list", p)
					}
					for _, r := range cfg.WritableRoots() {
						if strings.HasPrefix(p+"/", r+"/") {
							t.Errorf("sandbox: system entry %s lies in the writable root %s", p, r)
						}
					}
					continue
				}
				if !covered(p) {
					t.Errorf("sandbox: %s exists inside a writable root but is not kept read-only (inside: %q)", p, inside)
				}
			}
		}
	}
}

// TestProtectedReadOnlyInKernel writes every protected thing of
// protectedWorld from inside a real sandboxed session, in bypass mode (the
// rules let it through; only the kernel stands in the way), by a program
// the rules do not look into; each write must fail and leave the file as
// it was. Root only (CI): it needs the real sandbox.
func TestProtectedReadOnlyInKernel(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			w := newProtectedWorld(t)
			var script strings.Builder
			var files []string
			for _, e := range protect.Entries {
				for _, p := range w.paths(e) {
					target := p
					if e.Tree {
						target = p + "/f"
					}
					os.MkdirAll(filepath.Dir(target), 0o755)
					if err := os.WriteFile(target, []byte("orig\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					files = append(files, target)
					// a child /bin/sh's own redirection and mv: the
					// interpreter does not see them
					fmt.Fprintf(&script, "/bin/sh -c 'echo pwned > \"$1\"; mv \"$1\" \"$1.moved\"' sh %q 2>/dev/null\n", target)
					if e.Tree {
						fmt.Fprintf(&script, "/bin/sh -c 'echo new > \"$1\"' sh %q 2>/dev/null\n", p+"/planted")
					}
				}
			}
			bin := escapeBinary(t)
			cmd := exec.Command(bin, "--mode", "bypass", "-c", script.String())
			cmd.Dir = w.project
			cmd.Env = []string{"HOME=" + w.home, "XDG_CONFIG_HOME=" + w.xdg, "PATH=/usr/local/bin:/usr/bin:/bin",
				"GUARDSH_SANDBOX=" + backend, "GUARDSH_PROJECT=" + w.project,
				"XDG_STATE_HOME=" + w.base + "/state", "XDG_CACHE_HOME=" + w.base + "/cache"}
			out, _ := cmd.CombinedOutput()
			for _, f := range files {
				if b, err := os.ReadFile(f); err != nil || string(b) != "orig\n" {
					t.Errorf("%s changed in the sandbox (%q, %v)", f, b, err)
				}
				for _, x := range []string{f + ".moved"} {
					if _, err := os.Lstat(x); err == nil {
						t.Errorf("%s renamed in the sandbox", f)
					}
				}
			}
			for _, e := range protect.Entries {
				if !e.Tree {
					continue
				}
				for _, p := range w.paths(e) {
					if _, err := os.Lstat(p + "/planted"); err == nil {
						t.Errorf("%s: a new file was planted in the sandbox", p)
					}
				}
			}
			if t.Failed() {
				t.Logf("guardsh output:\n%s", out)
			}
		})
	}
}
