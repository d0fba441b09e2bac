package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// integrityProject makes a git repository in a temp dir and the snapshot
// of its protected paths, as the container level takes it (NewConfig's
// Protected, ProtectedInside and ProtectedMissing).
func integrityProject(t *testing.T) (proj, outside string, s *Integrity) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	proj, outside = filepath.Join(dir, "p"), filepath.Join(dir, "outside")
	os.MkdirAll(outside, 0o755)
	for _, args := range [][]string{{"init", "-q", proj}, {"-C", proj, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(proj, ".guardsh.toml"), []byte("# project\n"), 0o644)
	c := NewConfig(proj, filepath.Join(dir, "tmp"), filepath.Join(dir, "home"), func(string) string { return "" })
	s, err := Snapshot(append(c.ProtectedInside(), c.ProtectedMissing()...))
	if err != nil {
		t.Fatal(err)
	}
	return proj, outside, s
}

// TestIntegrityIndirection: a git indirection file planted during the
// session (commondir: git then takes config and hooks from elsewhere, so
// the user's next git runs a planted core.fsmonitor) is undone by
// Restore. Real git is the oracle.
func TestIntegrityIndirection(t *testing.T) {
	proj, _, s := integrityProject(t)
	evil := filepath.Join(proj, "evil")
	if out, err := exec.Command("cp", "-r", filepath.Join(proj, ".git"), evil).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	os.WriteFile(filepath.Join(evil, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch "+marker+"; false\"\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".git", "commondir"), []byte("../evil\n"), 0o644)
	s.Restore()
	cmd := exec.Command("git", "-C", proj, "status", "--porcelain")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	cmd.Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a planted .git/commondir survived Restore: the user's git ran the planted fsmonitor")
	}
}

// TestIntegrityRestoreLinks: Restore writes a protected file back through
// a name of its own; a symbolic link planted at the name it writes first
// (PATH.guardsh-restore) must not make the privileged side write outside.
func TestIntegrityRestoreLinks(t *testing.T) {
	proj, outside, s := integrityProject(t)
	for _, p := range []string{filepath.Join(proj, ".guardsh.toml"), filepath.Join(proj, ".git", "config")} {
		victim := filepath.Join(outside, filepath.Base(p)+".victim")
		os.WriteFile(victim, []byte("victim's own\n"), 0o600)
		os.WriteFile(p, []byte("[core]\n\tfsmonitor = evil\n"), 0o644)
		os.Symlink(victim, p+".guardsh-restore")
	}
	s.Restore()
	for _, p := range []string{filepath.Join(proj, ".guardsh.toml"), filepath.Join(proj, ".git", "config")} {
		victim := filepath.Join(outside, filepath.Base(p)+".victim")
		if b, _ := os.ReadFile(victim); string(b) != "victim's own\n" {
			t.Errorf("Restore of %s wrote through a planted link into %s: %q", p, victim, b)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s after Restore: %v %v", p, fi, err)
		}
	}
}

// TestIntegrityHugeAndFIFO: a huge file or a FIFO planted at a protected
// path neither exhausts the privileged side's memory nor hangs it.
func TestIntegrityHugeAndFIFO(t *testing.T) {
	proj, _, s := integrityProject(t)
	hook := filepath.Join(proj, ".git", "hooks", "pre-commit")
	if err := syscall.Mkfifo(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(proj, ".git", "config")
	os.Remove(big)
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(512 << 20) // sparse: no disk used
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changes, _ := s.Restore()
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 128<<20 {
		t.Errorf("Restore allocated %d MiB for a 512 MiB sparse file at a protected path", grew>>20)
	}
	if c := strings.Join(changes, "\n"); !strings.Contains(c, "config: changed") || !strings.Contains(c, "pre-commit: created") {
		t.Errorf("changes: %s", c)
	}
	if _, err := os.Lstat(hook); err == nil {
		t.Errorf("the FIFO is still there")
	}
	if fi, err := os.Stat(big); err != nil || fi.Size() > 1<<20 {
		t.Errorf("config not restored: %v %v", fi, err)
	}
}

// TestIntegritySubmoduleConfig: the config of an existing submodule's git
// directory (.git/modules/NAME/config) is read by the user's git status in
// the superproject: a key planted there is undone by Restore.
func TestIntegritySubmoduleConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	lib, proj := filepath.Join(dir, "lib"), filepath.Join(dir, "p")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=a", "-c", "protocol.file.allow=always"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", lib)
	git("-C", lib, "commit", "-q", "--allow-empty", "-m", "l")
	git("init", "-q", proj)
	git("-C", proj, "submodule", "add", "-q", lib, "lib")
	git("-C", proj, "commit", "-q", "-m", "s")
	c := NewConfig(proj, filepath.Join(dir, "tmp"), filepath.Join(dir, "home"), func(string) string { return "" })
	s, err := Snapshot(append(c.ProtectedInside(), c.ProtectedMissing()...))
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "pwned")
	f, _ := os.OpenFile(filepath.Join(proj, ".git", "modules", "lib", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = \"touch " + marker + "; false\"\n")
	f.Close()
	s.Restore()
	git("-C", proj, "status", "--porcelain")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a key planted in .git/modules/lib/config survived Restore: the user's git status ran it")
	}
}

// TestIntegrityEmbeddedRepo: a repository the session creates inside the
// work tree and adds as a gitlink (git add sub) has its config in the
// work tree (sub/.git/config), which no snapshot of .git covers: the
// user's next git status in the project runs its core.fsmonitor,
// unconfined. At every level (the full level's read-only mounts cover the
// top .git only).
func TestIntegrityEmbeddedRepo(t *testing.T) {
	t.Skip("HOLE: sub/.git/config of a repository planted in the work tree and added as a gitlink runs on the user's git status (core.fsmonitor), at the full and container levels; guardsh's own git does not recurse, the user's does. Needs a design decision (report new gitlinks/embedded .git dirs at session end, or refuse git add of an embedded repository and scan for them), not a local fix")
	proj, _, s := integrityProject(t)
	sub := filepath.Join(proj, "sub")
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, args := range [][]string{{"init", "-q", sub}, {"-C", sub, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "s"}, {"-C", proj, "add", "sub"}} {
		exec.Command("git", args...).Run()
	}
	f, _ := os.OpenFile(filepath.Join(sub, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = \"touch " + marker + "; false\"\n")
	f.Close()
	s.Restore()
	exec.Command("git", "-C", proj, "status", "--porcelain").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the user's git status ran the embedded repository's core.fsmonitor")
	}
}
