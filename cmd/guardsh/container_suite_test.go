package main

// One escape suite, several environments: guardsh in the container-like
// environment (no namespaces can be made, CAP_SYS_ADMIN dropped), inside
// bubblewrap, and as the shell of an agent confined by guardsh --launch
// --confine. The suite's body is the same in each; an environment only
// says how guardsh is started there and which level it must reach.

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/sandbox"
)

// suiteEnv is an environment the escape suite runs in.
type suiteEnv struct {
	// argv is how guardsh ARGS is started there, for the fixture f.
	argv func(f *fixture, args ...string) []string
	// level is how $GUARDSH_SANDBOX_RUN and --doctor start there.
	level string
	// env is added to the fixture's environment.
	env []string
}

// suitePlants are what a project program the rules do not read writes to
// make the user's own git run code after the session: hooks, config keys,
// and the files that send git elsewhere for its config.
var suitePlants = []struct{ path, content string }{
	{".git/hooks/pre-commit", "#!/bin/sh\ntouch \"$OUT/ran-pre-commit\"\n"},
	{".git/hooks/post-commit", "#!/bin/sh\ntouch \"$OUT/ran-post-commit\"\n"},
	{".git/config", "[core]\n\tfsmonitor = touch \"$OUT/ran-fsmonitor\"\n[extensions]\n\tworktreeConfig = true\n"},
	{".git/config.worktree", "[core]\n\tfsmonitor = touch \"$OUT/ran-fsmonitor-worktree\"\n"},
	{".git/commondir", "../.planted-common\n"},
	{".gitmodules", "[submodule \"y\"]\n\tpath = y\n\turl = ext::sh -c touch% $OUT/ran-gitmodules\n"},
}

// runEscapeSuite runs the escape suite with guardsh started as e says:
// writes outside the project (a directory beyond every writable root and
// one under /etc) fail; TCP and UDP to listeners on the machine's
// 127.0.0.1 reach nothing; git commit, go build and python3 -m venv work;
// hooks, config keys and git indirection files planted by a program the
// rules do not read are refused by the kernel or restored (and said) when
// the session ends, so the user's own git afterwards runs none of them;
// guardsh --doctor names the level and exits 0.
func runEscapeSuite(t *testing.T, e suiteEnv) {
	t.Helper()
	if testing.Short() {
		// 20 s an environment: the inner loop leaves it to the full run
		// (CI runs it in all three environments)
		t.Skip("-short: the escape suite runs without -short")
	}
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock")
	}
	for _, p := range []string{"git", "python3", "go"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	f := newFixture(t)
	// the fixture's pre-commit hook would hide a planted one: start without
	os.Remove(filepath.Join(f.project, ".git", "hooks", "pre-commit"))
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	reached := make(chan string, 2)
	go func() {
		if c, err := tcp.Accept(); err == nil {
			c.Close()
			reached <- "tcp"
		}
	}()
	go func() {
		b := make([]byte, 16)
		if _, _, err := udp.ReadFrom(b); err == nil {
			reached <- "udp"
		}
	}()
	goCache := ""
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	files := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from go\") }\n",
		// a program the rules do not read: the kernel alone must stop it
		"net.py": "import os, socket, sys\n" +
			"for kind, port in (('tcp', int(sys.argv[1])), ('udp', int(sys.argv[2]))):\n" +
			"    try:\n" +
			"        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if kind == 'tcp' else socket.SOCK_DGRAM)\n" +
			"        s.settimeout(3)\n" +
			"        s.connect(('127.0.0.1', port)) if kind == 'tcp' else s.sendto(b'x', ('127.0.0.1', port))\n" +
			"        print(kind, 'rc=0')\n" +
			"    except OSError as e:\n" +
			"        print(kind, 'rc=1', e)\n" +
			"for d in sys.argv[3:]:\n" +
			"    try:\n" +
			"        open(os.path.join(d, 'escaped-py'), 'w').write('x')\n" +
			"        print('py write rc=0', d)\n" +
			"    except OSError as e:\n" +
			"        print('py write rc=1', e)\n",
		"plant.py": "import os, sys\nout = os.environ['OUT']\n" +
			"for path, content in zip(sys.argv[1::2], sys.argv[2::2]):\n" +
			"    try:\n" +
			"        with open(path, 'a' if path in ('.git/config', '.gitmodules') else 'w') as f: f.write(content.replace('$OUT', out))\n" +
			"        if '/hooks/' in path: os.chmod(path, 0o755)\n" +
			"        print('planted', path)\n" +
			"    except OSError as e:\n" +
			"        print('refused', path, e)\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(f.project, name), []byte(content), 0o644)
	}
	before := map[string][]byte{}
	for _, p := range suitePlants {
		b, err := os.ReadFile(filepath.Join(f.project, p.path))
		if err == nil {
			before[p.path] = b
		}
	}
	plantArgs := ""
	for _, p := range suitePlants {
		plantArgs += " " + shQuote(p.path) + " " + shQuote(p.content)
	}
	port := func(a net.Addr) string { _, p, _ := net.SplitHostPort(a.String()); return p }
	script := `echo "level: $GUARDSH_SANDBOX_RUN"
echo escaped > "$OUT/escaped"; echo "outside rc=$?"
echo escaped > "$ETCDIR/escaped"; echo "etc rc=$?"
python3 net.py ` + port(tcp.Addr()) + ` ` + port(udp.LocalAddr()) + ` "$OUT" "$ETCDIR" "$HOME"
echo hi > new.txt && git add new.txt && git commit -qm work && echo committed
go build -o app . && ./app
python3 -m venv .venv && echo venv-ok
python3 plant.py` + plantArgs
	env := append(f.env("", "GUARDSH_MODE=auto", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPATH="+filepath.Join(f.project, ".gopath"), "GOCACHE="+goCache, "GUARDSH_SANDBOX_WRITE="+goCache), e.env...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
			env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		argv := e.argv(f, args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = f.project, env
		var o, se strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &se
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), se.String(), code
	}
	stdout, stderr, code := run("-c", script)
	report := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\nstatus %d\nstdout:\n%s\nstderr:\n%s", append(args, code, stdout, stderr)...)
	}
	if !strings.Contains(stdout, "level: "+e.level) {
		report("the level is not %q", e.level)
	}
	for _, want := range []string{"committed", "hello from go", "venv-ok"} {
		if !strings.Contains(stdout, want) {
			report("ordinary work failed: %q missing", want)
		}
	}
	// (UDP's send status is not the oracle: at the full level a datagram
	// to 127.0.0.1 goes to the namespace's own loopback; the listener is.)
	for _, bad := range []string{"outside rc=0", "etc rc=0", "tcp rc=0", "py write rc=0"} {
		if strings.Contains(stdout, bad) {
			report("escaped: %s", bad)
		}
	}
	for _, p := range []string{filepath.Join(f.outside, "escaped"), filepath.Join(f.etc, "escaped"), filepath.Join(f.outside, "escaped-py"), filepath.Join(f.etc, "escaped-py"), filepath.Join(f.home, "escaped-py")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written from inside", p)
		}
	}
	time.Sleep(100 * time.Millisecond) // a datagram in flight
	select {
	case what := <-reached:
		report("the %s listener on the machine was reached", what)
	default:
	}
	// Each plant is refused by the kernel, or it was made and is undone
	// now, and said.
	for _, p := range suitePlants {
		b, err := os.ReadFile(filepath.Join(f.project, p.path))
		if old, existed := before[p.path]; existed && string(b) != string(old) || !existed && err == nil {
			report("%s planted during the session is still there after it:\n%s", p.path, b)
		}
		if strings.Contains(stdout, "planted "+p.path+"\n") && !strings.Contains(stderr, p.path+": ") {
			report("%s was planted and undone without saying so", p.path)
		}
	}
	if strings.Contains(stdout, "planted ") && !strings.Contains(stderr, "restored when the session ended") {
		report("plants were made but no restore is said")
	}
	if strings.HasPrefix(e.level, "container") && !strings.Contains(stderr, `sandbox level "container"`) {
		report("the container level is not said on stderr")
	}
	// The user's own git, outside every sandbox, runs none of them.
	out, err := exec.Command("git", "-C", f.project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "by the user").CombinedOutput()
	if err != nil {
		t.Errorf("the user's git commit after the session: %v %s", err, out)
	}
	exec.Command("git", "-C", f.project, "status").Run()
	if ents, _ := filepath.Glob(filepath.Join(f.outside, "ran-*")); len(ents) > 0 {
		t.Errorf("planted code ran outside the sandbox: %v", ents)
	}
	// --doctor names the level and exits 0.
	dout, derr, dcode := run("--doctor")
	if dcode != 0 || !strings.Contains(dout, e.level) {
		t.Errorf("--doctor: status %d, want 0 and the level %q:\n%s\n%s", dcode, e.level, dout, derr)
	}
}

// TestContainerLevel: the escape suite where no namespace can be made
// (containerLike): guardsh confines at the container level.
func TestContainerLevel(t *testing.T) {
	prefix := containerLike(t)
	runEscapeSuite(t, suiteEnv{
		argv: func(f *fixture, args ...string) []string {
			return append(append(append([]string{}, prefix...), f.bin), args...)
		},
		level: "container: landlock+seccomp",
	})
}

// TestNestedInBwrap: the escape suite with guardsh inside bubblewrap: the
// host read-only (/tmp included), the project, the outside directories and
// the caches bound writable, the host's network shared. Only guardsh's own
// confinement keeps the commands out of what the outer sandbox leaves
// writable and off the host's loopback.
func TestNestedInBwrap(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not installed")
	}
	// bubblewrap itself must work here; guardsh failing inside it is a failure
	if b, err := exec.Command(bw, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "/bin/true").CombinedOutput(); err != nil {
		t.Skipf("bubblewrap cannot run here: %v %s", err, b)
	}
	goCache := ""
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	runEscapeSuite(t, suiteEnv{
		argv: func(f *fixture, args ...string) []string {
			for _, d := range []string{filepath.Join(f.base, "cache"), filepath.Join(f.base, "state")} {
				os.MkdirAll(d, 0o755)
			}
			argv := []string{bw, "--ro-bind", "/", "/"}
			for _, d := range []string{f.project, f.outside, f.etc, filepath.Join(f.base, "cache"), filepath.Join(f.base, "state"), goCache} {
				argv = append(argv, "--bind", d, d)
			}
			argv = append(argv, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--chdir", f.project, f.bin)
			return append(argv, args...)
		},
		level: "landlock+seccomp",
	})
}

// TestNestedInLaunchConfine: the escape suite with guardsh as the shell of
// an agent that guardsh --launch --confine confines (an agent program that
// executes its bash, the shim): guardsh inside stacks its own confinement
// on the agent's sandbox, whose network is open for the agent's model.
func TestNestedInLaunchConfine(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	agent := filepath.Join(t.TempDir(), "agent.py")
	os.WriteFile(agent, []byte("import os, sys\nos.execvp('bash', ['bash'] + sys.argv[1:])\n"), 0o644)
	runEscapeSuite(t, suiteEnv{
		argv: func(f *fixture, args ...string) []string {
			return append([]string{f.bin, "--launch", "--mode", "auto", "--confine", "--", "python3", agent}, args...)
		},
		level: "container: landlock+seccomp",
	})
}
