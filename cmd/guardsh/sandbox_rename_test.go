//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxRenameAncestor: a protected path mounted read-only in the
// session is not swapped by renaming a directory above it that lies in a
// writable root and moving a new one in its place (the mount moves with the
// renamed directory; the old name is free). A nested repository's
// .git/config (a later git status there runs its core.fsmonitor) and the
// launcher's shim directory in a HOME below the shared temp dir (a CI
// runner's) are the victims. The session runs in bypass mode: only the
// kernel layer stands in the way; the attack is a perl script file (a
// program the rules let run), which also tries writing the nested
// repository's config directly.
func TestSandboxRenameAncestor(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			nested := filepath.Join(f.project, "vendor", "lib")
			if out, err := exec.Command("git", "init", "-q", nested).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			cfg := filepath.Join(nested, ".git", "config")
			before, _ := os.ReadFile(cfg)
			// a HOME in the shared temp dir, its shim dir made before the session
			tmpHome := t.TempDir()
			shim := filepath.Join(tmpHome, ".local", "share", "guardsh", "guardsh-shim-x")
			if err := os.MkdirAll(shim, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(f.bin, filepath.Join(shim, "bash")); err != nil {
				t.Fatal(err)
			}
			script := `
sub swap { my ($dir, $away) = @_; rename($dir, $away) ? print("renamed $dir\n") : print("rename $dir: $!\n"); }
if (open(my $c, ">>", "vendor/lib/.git/config")) { print $c "[core]\n\tfsmonitor = evil\n"; close $c; print "wrote the nested config\n" }
swap("vendor/lib", "vendor/lib.old");
swap("vendor", "vendor.old");
if (!-e "vendor/lib/.git/config") {
  system("mkdir -p vendor/lib/.git && printf '[core]\\n\\tfsmonitor = evil\\n' > vendor/lib/.git/config");
}
swap("$ENV{TH}/.local/share/guardsh", "$ENV{TH}/g.old");
swap("$ENV{TH}/.local/share", "$ENV{TH}/s.old");
swap("$ENV{TH}/.local", "$ENV{TH}/l.old");
if (!-e "$ENV{TH}/.local/share/guardsh/guardsh-shim-x/bash") {
  system("mkdir -p $ENV{TH}/.local/share/guardsh/guardsh-shim-x && ln -s /bin/bash $ENV{TH}/.local/share/guardsh/guardsh-shim-x/bash");
}
`
			if err := os.WriteFile(filepath.Join(f.project, "swap.pl"), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			// the shim's HOME is the session's HOME (the launcher made it there)
			env := f.env(backend, "TH="+tmpHome)
			for i, e := range env {
				if strings.HasPrefix(e, "HOME=") {
					env[i] = "HOME=" + tmpHome
				}
			}
			os.MkdirAll(filepath.Join(tmpHome, ".cache", "guardsh"), 0o755)
			stdout, stderr, code := f.runArgs(t, env, "-c", "perl swap.pl")
			after, _ := os.ReadFile(cfg)
			if string(after) != string(before) {
				t.Errorf("the nested repository's .git/config was replaced: %q\nstdout: %s\nstderr: %s (status %d)", after, stdout, stderr, code)
			}
			if target, err := os.Readlink(filepath.Join(shim, "bash")); err != nil || target != f.bin {
				t.Errorf("the shim's bash now leads to %q (%v)\nstdout: %s\nstderr: %s (status %d)", target, err, stdout, stderr, code)
			}
		})
	}
}

// TestSandboxRenameProjectParent: a project below the shared temp dir (a
// CI checkout, a clone in /tmp) is not swapped by renaming its parent and
// putting a copy with a .git/config of the attack's choosing in its place.
func TestSandboxRenameProjectParent(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			parent := filepath.Join(t.TempDir(), "w")
			proj := filepath.Join(parent, "proj")
			if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			cfg := filepath.Join(proj, ".git", "config")
			before, _ := os.ReadFile(cfg)
			script := `rename("$ENV{PARENT}", "$ENV{PARENT}.old") or die "rename: $!";
system("mkdir -p $ENV{PARENT} && cp -a $ENV{PARENT}.old/proj $ENV{PARENT}/proj");
open F, ">>", "$ENV{PARENT}/proj/.git/config" or die "open: $!"; print F "[core]\n\tfsmonitor = evil\n"; close F;
`
			if err := os.WriteFile(filepath.Join(proj, "up.pl"), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			env := f.env(backend, "PARENT="+parent)
			for i, e := range env {
				if strings.HasPrefix(e, "GUARDSH_PROJECT=") {
					env[i] = "GUARDSH_PROJECT=" + proj
				}
			}
			cmd := exec.Command(f.bin, "-c", "perl up.pl")
			cmd.Dir, cmd.Env = proj, env
			out, _ := cmd.CombinedOutput()
			after, _ := os.ReadFile(cfg)
			if string(after) != string(before) {
				t.Errorf("the project at %s now has .git/config %q\noutput: %s", proj, after, out)
			}
		})
	}
}
