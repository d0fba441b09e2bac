package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/sandbox"
)

// containerLike returns the argv prefix that runs a program the way a
// container runs it: in a user namespace whose user.max_user_namespaces is
// 0 (no namespace can be made inside, as with Docker's default seccomp
// profile and most Kubernetes pods) and with CAP_SYS_ADMIN dropped from
// the bounding set. It skips where the test cannot build that.
func containerLike(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("building the container-like environment needs root (CI runs as root)")
	}
	for _, p := range []string{"unshare", "capsh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (util-linux, libcap2-bin)", p)
		}
	}
	wrap := filepath.Join(t.TempDir(), "container.sh")
	os.WriteFile(wrap, []byte("#!/bin/sh\necho 0 > /proc/sys/user/max_user_namespaces || exit 99\nexec capsh --drop=cap_sys_admin -- -c 'exec \"$0\" \"$@\"' \"$@\"\n"), 0o755)
	if out, err := exec.Command("unshare", "--user", "--map-root-user", "--fork", wrap, "/bin/sh", "-c", "grep CapBnd /proc/self/status; cat /proc/sys/user/max_user_namespaces").CombinedOutput(); err != nil {
		t.Skipf("cannot build the container-like environment: %v %s", err, out)
	}
	return []string{"unshare", "--user", "--map-root-user", "--fork", wrap}
}

// TestMissingProtectedRemoved: at the full level a protected path that did
// not exist when the session started cannot be a read-only mount; one that
// a program the rules do not read creates during the session (a
// .git/commondir sending git to a planted config, a .guardsh.toml) is
// removed when the session ends, and said.
func TestMissingProtectedRemoved(t *testing.T) {
	backendsUnderTest(t)
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock")
	}
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.project, "plant.py"), []byte("open('.git/commondir', 'w').write('../tools\\n')\nopen('.guardsh.toml', 'w').write('trusted_projects = [\"/\"]\\n')\n"), 0o644)
	stdout, stderr, _ := f.run(t, sandbox.BackendLandlock, `python3 plant.py && echo planted`, "GUARDSH_MODE=auto")
	if !strings.Contains(stdout, "planted") {
		t.Skipf("the program could not run here: %s %s", stdout, stderr)
	}
	for _, p := range []string{".git/commondir", ".guardsh.toml"} {
		if _, err := os.Lstat(filepath.Join(f.project, p)); err == nil {
			t.Errorf("%s planted during the session is still there", p)
		}
	}
	if !strings.Contains(stderr, "restored when the session ended") || !strings.Contains(stderr, "commondir: created") {
		t.Errorf("the removal is not said:\n%s", stderr)
	}
}

// TestNewRepoKept: a repository the session itself makes (git init in a
// project that had none) keeps its .git/config and hooks when the session
// ends: only protected paths whose directory existed at the start are
// undone.
func TestNewRepoKept(t *testing.T) {
	backendsUnderTest(t)
	f := newFixture(t)
	proj := filepath.Join(f.base, "fresh")
	os.MkdirAll(proj, 0o755)
	env := f.env(sandbox.BackendLandlock, "GUARDSH_MODE=auto")
	for i, e := range env {
		if strings.HasPrefix(e, "GUARDSH_PROJECT=") {
			env[i] = "GUARDSH_PROJECT=" + proj
		}
	}
	cmd := exec.Command(f.bin, "-c", "git init -q . && echo made")
	cmd.Dir, cmd.Env = proj, env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "made") {
		t.Fatalf("git init in the session: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(proj, ".git", "config")); err != nil {
		t.Errorf("the new repository lost its config: %v\n%s", err, out)
	}
}
