//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// ruleOnStderr matches guardsh's refusal line with its rule ID.
var ruleOnStderr = regexp.MustCompile(`guardsh: (denied|needs approval) \[[a-z0-9.-]+\]`)

// nsOrSkip skips when the launcher could not make its namespace here
// (the container level: no mount namespace).
func nsOrSkip(t *testing.T, errOut string) {
	t.Helper()
	if strings.Contains(errOut, "no private mount namespace here") {
		t.Skip("no mount namespace on this machine:", errOut)
	}
}

// victimHome is a throwaway HOME outside the temporary directories with
// ~/victim/file in it.
func victimHome(t *testing.T) (home, victim string) {
	t.Helper()
	home, _ = fakeHome(t)
	victim = filepath.Join(home, "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "file"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, victim
}

// TestLaunchAbsoluteShells: an agent that starts its shell by absolute
// path (Codex's login shell from /etc/passwd, pi's /bin/bash), or reaches
// the real shell some other way, gets guardsh under --launch: rm -r
// ~/victim is refused with the rule ID on stderr and the victim stays.
// Without the namespace (the old launcher) each of these deleted it.
func TestLaunchAbsoluteShells(t *testing.T) {
	copyDir := testenvOutside(t)
	bashCopy := filepath.Join(copyDir, "mybash")
	if err := copyProgram("/bin/bash", bashCopy); err != nil { // made before the launch
		t.Fatal(err)
	}
	cases := []struct{ name, script string }{
		{"/bin/bash -lc", `/bin/bash -lc 'rm -r ~/victim'`},
		{"/usr/bin/bash -c", `/usr/bin/bash -c 'rm -r ~/victim'`},
		{"login shell from passwd", `"$(getent passwd "$(id -un)" | cut -d: -f7)" -c 'rm -r ~/victim'`},
		{"env -i /bin/bash", `env -i /bin/bash -c 'rm -r "$0"' "$HOME/victim"`},
		{"/proc/self/root", `/proc/self/root/bin/bash -c 'rm -r ~/victim'`},
		{"/proc/1/root", `[ -e /proc/1/root/bin/bash ] && /proc/1/root/bin/bash -c 'rm -r ~/victim' || echo "guardsh: denied [unreachable] /proc/1/root" >&2`},
		{"exec /bin/bash from a command", `/bin/bash -c 'exec /bin/bash -c "rm -r ~/victim"'`},
		{"env -i /bin/bash from a command", `/bin/bash -c 'env -i /bin/bash -c "rm -r $HOME/victim"'`},
		{"copy of bash made before launch, from a command", `/bin/bash -c '` + bashCopy + ` -c "rm -r ~/victim"'`},
		{"/proc/self/root from a command", `/bin/bash -c '/proc/self/root/usr/bin/bash -c "rm -r ~/victim"'`},
	}
	realBash, err := os.Stat("/usr/bin/bash")
	if err != nil {
		t.Skip("no /usr/bin/bash")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			home, victim := victimHome(t)
			agent := fakeAgent(t, dir, "agent", c.script)
			code, out, errOut := launch(t, dir, home, "--mode", "auto", "--", agent)
			nsOrSkip(t, errOut)
			if _, err := os.Stat(filepath.Join(victim, "file")); err != nil {
				t.Fatalf("%s deleted ~/victim (exit %d)\nstdout: %s\nstderr: %s", c.name, code, out, errOut)
			}
			if !ruleOnStderr.MatchString(errOut) {
				t.Errorf("no refusal with its rule on stderr:\n%s", errOut)
			}
		})
	}
	// The host's namespace is untouched.
	if fi, err := os.Stat("/usr/bin/bash"); err != nil || !os.SameFile(fi, realBash) {
		t.Fatalf("/usr/bin/bash changed outside the launcher: %v", err)
	}
}

// testenvOutside is a directory outside the temp dirs (a copy of bash
// there is an installed program, not something the session wrote).
func testenvOutside(t *testing.T) string {
	home, _ := fakeHome(t)
	return home
}

// TestLaunchRealShellForGuardsh: inside the namespace guardsh still runs
// an installed bash script (a version manager's shim outside every
// writable root) with the real bash, which it finds in its own mount
// table; the agent's PATH, $SHELL and /bin/bash are all guardsh.
func TestLaunchRealShellForGuardsh(t *testing.T) {
	dir := t.TempDir()
	home, _ := fakeHome(t)
	shims := filepath.Join(home, ".pyenv", "shims")
	os.MkdirAll(shims, 0o755)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	// pyenv's shim shape, with #!/bin/bash (the path that is guardsh here)
	shim := "#!/bin/bash\nset -e\necho \"shim ran by $BASH\" >&2\nexec " + python + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "python3"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	agent := fakeAgent(t, dir, "agent", `
echo "route=$GUARDSH_LAUNCH_ROUTE"
PATH=`+shQuote(shims)+`:$PATH /bin/bash -c 'python3 -c "print(6*7)"'
`)
	code, out, errOut := launch(t, dir, home, "--mode", "auto", "--", agent)
	nsOrSkip(t, errOut)
	if !strings.Contains(out, "route=namespace") {
		t.Fatalf("route not said: %q\nstderr: %s", out, errOut)
	}
	if strings.Contains(errOut, "no sandbox backend") || strings.Contains(errOut, "needs approval") {
		t.Skip("no verified sandbox here (installed programs are interpreted):", errOut)
	}
	if code != 0 || !strings.Contains(out, "42") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "shim ran by "+filepath.Join(home, ".local/share/guardsh")) || !strings.Contains(errOut, "/"+"guardsh-real/bash") {
		t.Errorf("the installed script did not run with the real bash set aside for guardsh:\n%s", errOut)
	}
}

// TestLaunchNoNamespace: --no-namespace is the old launcher (PATH and
// $SHELL shims only), said on stderr.
func TestLaunchNoNamespace(t *testing.T) {
	dir := t.TempDir()
	home, _ := fakeHome(t)
	agent := fakeAgent(t, dir, "agent", `echo "route=$GUARDSH_LAUNCH_ROUTE"; bash -c 'echo via-shim'`)
	code, out, errOut := launch(t, dir, home, "--no-namespace", "--", agent)
	if code != 0 || !strings.Contains(out, "route=shims") || !strings.Contains(out, "via-shim") {
		t.Errorf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// TestLaunchUnprivileged: a user who is not root gets the namespace from
// a user namespace; the agent sees its own uid, /bin/bash -lc is guardsh
// and only the agent's own processes are in /proc. Runs where the test is
// root (to become nobody).
func TestLaunchUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the launcher as another user")
	}
	const uid = 65534
	d, err := os.MkdirTemp("", "launch-user-") // t.TempDir's parent is private to root
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	gs := filepath.Join(d, "guardsh")
	if err := copyProgram(guardshTestBinary(t), gs); err != nil {
		t.Fatal(err)
	}
	home, proj := filepath.Join(d, "home"), filepath.Join(d, "proj")
	os.MkdirAll(filepath.Join(home, "victim"), 0o755)
	os.WriteFile(filepath.Join(home, "victim", "file"), []byte("keep"), 0o644)
	agent := fakeAgent(t, d, "agent", `id -u; echo "route=$GUARDSH_LAUNCH_ROUTE"
/bin/bash -lc 'rm -r ~/victim'
echo "pids=$(ls /proc | grep -c '^[0-9]')"`)
	os.MkdirAll(proj, 0o755)
	for _, p := range []string{home, proj, filepath.Join(home, "victim"), filepath.Join(home, "victim", "file")} {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gs, "--launch", "--mode", "auto", "--", agent)
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")} // nothing of root's
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	out, err := cmd.CombinedOutput()
	nsOrSkip(t, string(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := string(out)
	if !strings.HasPrefix(s, "65534\n") || !strings.Contains(s, "route=namespace") {
		t.Errorf("the agent does not run as its user in the namespace:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(home, "victim", "file")); err != nil || !ruleOnStderr.MatchString(s) {
		t.Errorf("/bin/bash -lc was not guardsh (%v):\n%s", err, s)
	}
	if strings.Contains(s, "pids=") && !regexp.MustCompile(`pids=[1-9]\n`).MatchString(s) {
		t.Errorf("the agent sees processes outside its namespace:\n%s", s)
	}
}

// TestLaunchBindSh: /bin/sh stays the system's sh under --launch unless
// --bind-sh or the user file's [launch] bind_sh makes it guardsh too; a
// project file cannot.
func TestLaunchBindSh(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, userConf, projConf string
		flag                     bool
		guardsh                  bool
	}{
		{"default", "", "", false, false},
		{"--bind-sh", "", "", true, true},
		{"user file", "[launch]\nbind_sh = true\n", "", false, true},
		{"project file", "", "[launch]\nbind_sh = true\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home, victim := victimHome(t)
			if tc.userConf != "" {
				os.MkdirAll(filepath.Join(home, ".config", "guardsh"), 0o700)
				os.WriteFile(filepath.Join(home, ".config", "guardsh", "config.toml"), []byte(tc.userConf), 0o600)
			}
			if tc.projConf != "" {
				os.WriteFile(filepath.Join(dir, ".guardsh.toml"), []byte(tc.projConf), 0o600)
			}
			args := []string{"--mode", "auto"}
			if tc.flag {
				args = append(args, "--bind-sh")
			}
			cmd := exec.Command(guardshTestBinary(t), append(append([]string{"--launch"}, args...), "--", self)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=", "XDG_CONFIG_HOME=",
				envShAgent+`=echo "sh=${BASH_VERSION:-system}"; rm -r "$HOME/victim"`)
			out, _ := cmd.CombinedOutput()
			nsOrSkip(t, string(out))
			_, err := os.Stat(filepath.Join(victim, "file"))
			if got := err == nil; got != tc.guardsh {
				t.Errorf("victim kept = %v, want %v (is /bin/sh guardsh?)\n%s", got, tc.guardsh, out)
			}
			if tc.guardsh && !ruleOnStderr.Match(out) {
				t.Errorf("no refusal with its rule:\n%s", out)
			}
			if !tc.guardsh && !strings.Contains(string(out), "sh=system") {
				t.Errorf("/bin/sh is not the system's sh:\n%s", out)
			}
		})
	}
}

// TestLaunchContainerLevel: where no namespace can be made (a container),
// the launcher says so on stderr, the agent runs with the shims (bash by
// name is guardsh, its route says "shims"), and the approval channel is
// there as in a namespace (it needs none).
func TestLaunchContainerLevel(t *testing.T) {
	prefix := containerLike(t)
	f := newFixture(t)
	agent := fakeAgent(t, f.base, "agent", `echo "route=$GUARDSH_LAUNCH_ROUTE"; bash -c 'rm -rf ~'; ls -d "$HOME" >/dev/null && echo home-kept
echo "channel=$GUARDSH_APPROVAL_FD:$(readlink /proc/$$/fd/3)"`)
	argv := append(append(append([]string{}, prefix...), f.bin), "--launch", "--mode", "auto", "--", agent)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = f.project
	cmd.Env = f.env("", "GUARDSH_MODE=")
	out, _ := cmd.CombinedOutput()
	s := string(out)
	if !strings.Contains(s, "guardsh: --launch: no private mount namespace here") {
		t.Errorf("the launcher did not say it has no namespace:\n%s", s)
	}
	if !strings.Contains(s, "route=shims") || !strings.Contains(s, "home-kept") || !ruleOnStderr.MatchString(s) {
		t.Errorf("the shims route did not protect:\n%s", s)
	}
	if !strings.Contains(s, "channel=3:socket:") {
		t.Errorf("no approval channel at the container level:\n%s", s)
	}
}
