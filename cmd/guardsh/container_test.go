package main

import (
	"net"
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

// TestContainerLevel: where no namespace can be made, guardsh confines
// its commands at the container level (Landlock + seccomp) instead of
// refusing to run: writes outside fail, TCP to a listener on the machine
// fails, a hook or config key planted in .git is restored when the session
// ends and reported, ordinary work (git commit, python3 -m venv) runs, and
// --doctor names the level and exits 0.
func TestContainerLevel(t *testing.T) {
	prefix := containerLike(t)
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock")
	}
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	reached := make(chan bool, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
			reached <- true
		}
	}()
	run := func(args ...string) (string, string, int) {
		t.Helper()
		argv := append(append(append([]string{}, prefix...), f.bin), args...)
		env := f.env("", "GUARDSH_MODE=auto", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		env = append(env[:0:0], env...)
		for i, e := range env {
			if strings.HasPrefix(e, "GUARDSH_SANDBOX=") {
				env[i] = "GUARDSH_SANDBOX=auto"
			}
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = f.project, env
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	// A project program the rules do not read plants a hook and a config
	// key (what the rules would refuse if written as commands): the kernel
	// cannot stop it at this level, the restore must undo it.
	plant := "import os\nout = os.environ['OUT']\n" +
		"open('.git/hooks/post-commit', 'w').write('#!/bin/sh\\necho hooked > ' + out + '/hooked\\n')\n" +
		"os.chmod('.git/hooks/post-commit', 0o755)\n" +
		"open('.git/config', 'a').write('[core]\\n\\tfsmonitor = touch ' + out + '/fsmonitor\\n')\n"
	os.WriteFile(filepath.Join(f.project, "plant.py"), []byte(plant), 0o644)
	script := `echo "level: $GUARDSH_SANDBOX_RUN"
echo escaped > "$OUT/escaped"; echo "outside rc=$?"
python3 -c 'import socket,sys; s=socket.socket(); s.settimeout(3); s.connect(("127.0.0.1", int(sys.argv[1])))' ` + strings.TrimPrefix(l.Addr().String(), "127.0.0.1:") + ` 2>/dev/null; echo "tcp rc=$?"
python3 plant.py && echo planted
echo hi > new.txt && git add new.txt && git commit -qm work && echo committed
python3 -m venv .venv && echo venv-ok`
	stdout, stderr, code := run("-c", script)
	for _, want := range []string{"level: container: landlock+seccomp", "planted", "committed", "venv-ok"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q (status %d):\n%s\nstderr:\n%s", want, code, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "outside rc=0") || strings.Contains(stdout, "tcp rc=0") {
		t.Errorf("escaped the container level:\n%s", stdout)
	}
	select {
	case <-reached:
		t.Error("the listener on the machine was reached")
	default:
	}
	if _, err := os.Lstat(filepath.Join(f.outside, "escaped")); err == nil {
		t.Error("a file was written outside the project")
	}
	if !strings.Contains(stderr, `sandbox level "container"`) || !strings.Contains(stderr, "restored when the session ended") || !strings.Contains(stderr, "post-commit: created") {
		t.Errorf("the level or the restore is not reported:\n%s", stderr)
	}
	// After the session: the planted hook and config key are gone, so the
	// user's own git (outside any sandbox) runs neither.
	if _, err := os.Lstat(filepath.Join(f.project, ".git", "hooks", "post-commit")); err == nil {
		t.Error("the planted hook is still there")
	}
	if b, _ := os.ReadFile(filepath.Join(f.project, ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the planted config key is still there:\n%s", b)
	}
	out, err := exec.Command("git", "-C", f.project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "by the user").CombinedOutput()
	if err != nil {
		t.Fatalf("the user's git commit: %v %s", err, out)
	}
	for _, p := range []string{"hooked", "fsmonitor"} {
		if _, err := os.Lstat(filepath.Join(f.outside, p)); err == nil {
			t.Errorf("planted code ran outside the sandbox (%s)", p)
		}
	}
	// --doctor names the level and exits 0.
	dout, derr, dcode := run("--doctor")
	if dcode != 0 || !strings.Contains(dout, "result: container: landlock+seccomp") || !strings.Contains(dout, "guarded inside them (container level") {
		t.Errorf("--doctor (status %d):\n%s\n%s", dcode, dout, derr)
	}
}

// TestNestedInBwrap: inside another sandbox (bubblewrap with the host
// read-only, /tmp included, and the project bound writable) guardsh finds
// a temp dir it can write, reaches a verified level, says which, and
// confines what it runs: the project is written, a directory the outer
// sandbox leaves writable but guardsh's project does not include is not.
func TestNestedInBwrap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not installed")
	}
	f := newFixture(t)
	// f.outside is writable in the outer sandbox: only guardsh's own
	// confinement keeps the nested commands out of it.
	args := []string{"--ro-bind", "/", "/", "--bind", f.project, f.project, "--bind", f.outside, f.outside, "--bind", filepath.Join(f.base, "cache"), filepath.Join(f.base, "cache"),
		"--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent", "--chdir", f.project,
		f.bin, "-c", `echo "level: $GUARDSH_SANDBOX_RUN"; touch made && echo made; touch "$OUT/nested-escape"; echo "outside rc=$?"`}
	os.MkdirAll(filepath.Join(f.base, "cache"), 0o755)
	cmd := exec.Command(bw, args...)
	env := f.env("")
	for i, e := range env {
		if strings.HasPrefix(e, "GUARDSH_SANDBOX=") {
			env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	cmd.Env = append(env, "GUARDSH_MODE=bypass")
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "level:") {
		t.Skipf("bubblewrap cannot run here: %v %s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "level: ") || strings.Contains(s, "level: \n") || !strings.Contains(s, "made") {
		t.Errorf("nested guardsh did not run confined:\n%s", s)
	}
	if strings.Contains(s, "outside rc=0") {
		t.Errorf("wrote outside from inside the nested sandbox:\n%s", s)
	}
	if _, err := os.Lstat(filepath.Join(f.outside, "nested-escape")); err == nil {
		t.Error("a file appeared outside")
	}
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
