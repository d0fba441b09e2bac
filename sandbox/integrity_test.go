package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntegrity: what a confined command can do to protected paths at the
// container level (plant a hook, edit .git/config, create a protected file
// that was missing, replace a directory on the way by a symbolic link) is
// seen and undone, and undoing never writes through a planted link.
func TestIntegrity(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(proj, ".git", "hooks"), outside} {
		os.MkdirAll(d, 0o755)
	}
	write := func(p, s string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(proj, ".git", "config")
	hooks := filepath.Join(proj, ".git", "hooks")
	toml := filepath.Join(proj, ".guardsh.toml")
	write(cfg, "[core]\n", 0o644)
	write(filepath.Join(hooks, "pre-commit.sample"), "#!/bin/sh\n", 0o755)
	s, err := Snapshot([]string{cfg, hooks, toml})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Changes(); len(c) != 0 {
		t.Fatalf("changes right after the snapshot: %v", c)
	}
	// The attacks.
	write(filepath.Join(hooks, "pre-commit"), "#!/bin/sh\ntouch /tmp/pwned\n", 0o755)
	write(cfg, "[core]\n\tfsmonitor = ./evil\n", 0o644)
	write(toml, "[[rule]]\n", 0o644)
	os.Chmod(filepath.Join(hooks, "pre-commit.sample"), 0o777)
	got := strings.Join(s.Changes(), "\n")
	for _, want := range []string{"pre-commit: created", "config: changed", ".guardsh.toml: created", "pre-commit.sample: changed"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes lack %q:\n%s", want, got)
		}
	}
	if _, err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if c := s.Changes(); len(c) != 0 {
		t.Fatalf("after Restore: %v", c)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Errorf("config %q", b)
	}
	// .git replaced by a link to a directory outside: restoring must put a
	// directory back, not write the config into the link's target.
	os.Rename(filepath.Join(proj, ".git"), filepath.Join(proj, "git.old"))
	os.MkdirAll(filepath.Join(outside, "hooks"), 0o755)
	write(filepath.Join(outside, "config"), "outside's own\n", 0o644)
	os.Symlink(outside, filepath.Join(proj, ".git"))
	if c := strings.Join(s.Changes(), "\n"); !strings.Contains(c, ".git: no longer a directory") {
		t.Errorf("a .git replaced by a link is not seen:\n%s", c)
	}
	if _, err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "config")); string(b) != "outside's own\n" {
		t.Errorf("restore wrote through the planted link: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(proj, ".git")); err != nil || !fi.IsDir() {
		t.Errorf(".git is not a directory again: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Errorf("config %q after the link attack", b)
	}
	// A hard link put in place of the config: restoring replaces the
	// name, the linked file elsewhere keeps its content.
	other := filepath.Join(outside, "precious")
	write(other, "precious\n", 0o644)
	os.Remove(cfg)
	if err := os.Link(other, cfg); err != nil {
		t.Skip("no hard links here")
	}
	if _, err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); string(b) != "precious\n" {
		t.Errorf("restore wrote through a hard link: %q", b)
	}
}

// TestIntegrityAccept: a change the privileged side accepted (an approved
// git config write) survives Restore; a later change is undone back to it.
func TestIntegrityAccept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config")
	os.WriteFile(p, []byte("old\n"), 0o644)
	s, err := Snapshot([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("approved\n"), 0o644)
	s.Accept(p, []byte("approved\n"))
	if ch := s.Changes(); len(ch) != 0 {
		t.Errorf("accepted change still listed: %v", ch)
	}
	os.WriteFile(p, []byte("planted\n"), 0o644)
	if _, err := s.Restore(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "approved\n" {
		t.Errorf("restored to %q, want the accepted content", b)
	}
	s.Accept(filepath.Join(dir, "not-recorded"), nil) // left alone
	var nilGuard *Integrity
	nilGuard.Accept(p, nil)
}
