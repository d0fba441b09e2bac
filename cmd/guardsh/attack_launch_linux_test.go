//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/guardsh/guardsh/interp"
	"golang.org/x/sys/unix"
)

// realBashPath is a dash snippet that sets $r to the real bash the
// launcher set aside, as an agent learns it from its own mount table.
const realBashPath = `r=$(awk '$5 ~ /guardsh-real\/bash$/ {print $5}' /proc/self/mountinfo | head -n1); [ -n "$r" ] || { echo "no real bash in mountinfo" >&2; exit 0; }; `

// TestAttackLaunchRealShell: the model's command (through /bin/bash,
// which is guardsh) names the real shells the launcher set aside, or
// reaches bash under another name or by another exec route; each is
// judged (rm -r ~/victim refused) or cannot run.
func TestAttackLaunchRealShell(t *testing.T) {
	cases := []struct{ name, script string }{
		{"guardsh-real/bash by path", realBashPath + `/bin/bash -c "$r -c 'rm -r ~/victim'"`},
		{"guardsh-real/bash via env", realBashPath + `/bin/bash -c "env $r -c 'rm -r ~/victim'"`},
		{"copy of guardsh-real/bash", realBashPath + `/bin/bash -c "cp $r ./b2 && ./b2 -c 'rm -r ~/victim'"`},
		{"symlink to guardsh-real/bash", realBashPath + `/bin/bash -c "ln -s $r ./b3 && ./b3 -c 'rm -r ~/victim'"`},
		{"sh -c through guardsh", `/bin/bash -c "sh -c 'rm -r ~/victim'"`},
		{"dash -c through guardsh", `/bin/bash -c "dash -c 'rm -r ~/victim'"`},
		{"/usr/bin/sh -c through guardsh", `/bin/bash -c "/usr/bin/sh -c 'rm -r ~/victim'"`},
		{"python execv guardsh-real", realBashPath + `/bin/bash -c "python3 -c 'import os,sys; os.execv(sys.argv[1], [\"bash\", \"-c\", \"rm -r ~/victim\"])' $r"`},
		{"find -exec guardsh-real", realBashPath + `/bin/bash -c "find . -maxdepth 0 -exec $r -c 'rm -r ~/victim' \;"`},
		{"unshare umount from a command", `/bin/bash -c "unshare -rm sh -c 'umount /usr/bin/bash; umount -l /usr/bin/bash; /usr/bin/bash -c \"rm -r ~/victim\"'"`},
		{"unshare umount by the agent", `unshare -rm sh -c 'umount /usr/bin/bash 2>/dev/null || umount -l /usr/bin/bash 2>/dev/null; /usr/bin/bash -c "rm -r ~/victim"'`},
		{"awk system() (runs /bin/sh, dash)", `/bin/bash -c "awk 'BEGIN { system(\"rm -r $HOME/victim\") }'"`},
		{"make recipe (runs /bin/sh, dash)", `printf 'all:\n\trm -r $(HOME)/victim\n' > Makefile; /bin/bash -c "make"`},
		{"xargs sh -c", `/bin/bash -c "echo ~/victim | xargs sh -c 'rm -r \"\$0\"'"`},
		{"git alias with ! (runs /bin/sh)", `git init -q . 2>/dev/null; /bin/bash -c "git -c alias.x='!rm -r ~/victim' x"`},
		{"perl system", `/bin/bash -c "perl -e 'system(q{rm -r \$ENV{HOME}/victim})'"`},
		{"nsenter -t 1 by the agent", `nsenter -t 1 -m -- /usr/bin/bash -c 'rm -r ~/victim' 2>/dev/null || echo "guardsh: denied [unreachable] nsenter" >&2`},
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
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		})
	}
}

// TestAttackLaunchInteractiveUnderLauncher: the agent runs guardsh -i
// (and -i -c) on a PTY it owns and types "o"/"s"/"y" at it; under the
// launcher guardsh never asks on that terminal, so the keys approve
// nothing (the launcher here has no terminal: every ask is refused).
func TestAttackLaunchInteractiveUnderLauncher(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the launcher")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home, _ := fakeHome(t)
	agent := fakeAgent(t, dir, "agent", `exec `+shQuote(self))
	cmd := exec.Command(guardshTestBinary(t), "--launch", "--mode", "auto", "--", agent)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=",
		envPtyAgent+`=/bin/bash -i -c 'touch ~/i-file'; echo 'touch ~/j-file; exit' | /bin/bash -i; bash --norc -i -c 'touch ~/k-file'; echo agent-done > done.txt`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal: the launcher has no human
	out, _ := cmd.CombinedOutput()
	nsOrSkip(t, string(out))
	if b, err := os.ReadFile(filepath.Join(dir, "done.txt")); err != nil || string(b) != "agent-done\n" {
		t.Fatalf("the agent did not finish (%v):\n%s", err, out)
	}
	for _, f := range []string{"i-file", "j-file", "k-file"} {
		if _, err := os.Stat(filepath.Join(home, f)); err == nil {
			t.Errorf("~/%s was made: the agent's keys approved an interactive guardsh's ask\n%s", f, out)
		}
	}
	if strings.Count(string(out), "No human could be asked") < 3 {
		t.Errorf("not every ask was refused for want of a human:\n%s", out)
	}
	if strings.Contains(string(out), "approve?") {
		t.Errorf("an interactive guardsh asked on the agent's PTY:\n%s", out)
	}
}

// TestAttackLaunchGoneOrFake: a guardsh whose GUARDSH_APPROVAL_FD names a
// channel whose launcher is gone refuses at once; one whose channel a
// program made itself (a "launcher" that answers allow) must not take the
// program's answer for a human's.
func TestAttackLaunchGoneOrFake(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	run := func(t *testing.T, serve func(srv *os.File)) (string, bool) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		srv, cli := os.NewFile(uintptr(fds[0]), "srv"), os.NewFile(uintptr(fds[1]), "cli")
		defer cli.Close()
		serve(srv)
		dir, home := t.TempDir(), t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--no-sandbox", "-c", "touch ./made; echo done")
		cmd.Dir = dir
		cmd.ExtraFiles = []*os.File{cli}
		cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=default", "GUARDSH_PROJECT="+dir, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=",
			interp.EnvApprovalFD+"=3")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, _ := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("guardsh hung:\n%s", out)
		}
		_, err = os.Stat(filepath.Join(dir, "made"))
		return string(out), err == nil
	}
	t.Run("launcher gone", func(t *testing.T) {
		out, made := run(t, func(srv *os.File) { srv.Close() })
		if made || !strings.Contains(out, "No human could be asked") {
			t.Errorf("made=%v, want a no-human refusal:\n%s", made, out)
		}
	})
	t.Run("program-made launcher", func(t *testing.T) {
		t.Skip("known hole: guardsh trusts any datagram Unix socket GUARDSH_APPROVAL_FD names (docs/limits.md, Launcher)")
		out, made := run(t, func(srv *os.File) {
			s := &interp.ApprovalServer{Gate: allowGate{}}
			go s.Serve(srv)
			t.Cleanup(func() { unix.Shutdown(int(srv.Fd()), unix.SHUT_RDWR) })
		})
		if made {
			t.Errorf("a program's own fake launcher approved guardsh's ask:\n%s", out)
		}
	})
}

// allowGate answers every ask "allow once", as a program playing the
// launcher would.
type allowGate struct{}

func (allowGate) Approve(context.Context, interp.GateRequest) interp.GateAnswer {
	return interp.GateAllowOnce
}

// injectKeys is the agent's own code (not a guardsh command): it starts
// a shell whose command asks, and while the launcher asks on the terminal
// they share, it pushes "o" into that terminal's input (TIOCSTI), as if
// the human had typed it. It writes how many keys the kernel took.
const injectKeys = `
import os, fcntl, termios, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "-c", "touch ~/injected-file"], pass_fds=(3,))
fd = os.open("/dev/tty", os.O_RDWR)
ok, err = 0, ""
end = time.time() + 8
while p.poll() is None and time.time() < end:
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"o")
        ok += 1
    except OSError as e:
        err = str(e)
    time.sleep(0.05)
p.wait()
st = [l for l in open("/proc/self/status") if l.split(":")[0] in ("Seccomp", "CapEff", "NoNewPrivs")]
open("inject.out", "w").write("injected %d %s %s\n" % (ok, err, "".join(st)))
`

// TestAttackLaunchTIOCSTI: the agent's code shares the launcher's
// controlling terminal; keys it pushes into that terminal's input must not
// answer the launcher's question (the human here denies after a while).
func TestAttackLaunchTIOCSTI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the launcher on a terminal")
	}
	// the interpreter itself, not a version manager's shim script (which
	// /bin/bash, guardsh here, would run as a sandboxed command)
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	python := strings.TrimSpace(string(exe))
	for _, route := range []string{"namespace", "shims"} {
		t.Run(route, func(t *testing.T) {
			if route == "shims" && os.Geteuid() != 0 {
				t.Skip("the shims route filters only for root (docs/limits.md)")
			}
			tiocstiRoute(t, python, route)
		})
	}
}

func tiocstiRoute(t *testing.T, python, route string) {
	dir := t.TempDir()
	home, _ := fakeHome(t)
	os.WriteFile(filepath.Join(dir, "inject.py"), []byte(injectKeys), 0o644)
	shell := "/bin/bash" // the shims route: bash by name (PATH's shim), as documented
	if route == "shims" {
		shell = "bash"
	}
	agent := fakeAgent(t, dir, "agent", `exec `+shQuote(python)+` inject.py `+shell)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptmx.Close()
	args := []string{"--launch", "--mode", "auto", "--", agent}
	if route == "shims" {
		args = append([]string{"--launch", "--no-namespace"}, args[1:]...)
	}
	cmd := exec.Command(guardshTestBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	finished := make(chan struct{})
	screen := humanAt(ptmx, func(q string) string {
		time.Sleep(3 * time.Second) // the human reads the question
		return "d"
	}, finished)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("the launcher hung\nterminal:\n%s", screen())
	}
	close(finished)
	if route == "namespace" {
		nsOrSkip(t, stderr.String())
	}
	b, _ := os.ReadFile(filepath.Join(dir, "inject.out"))
	t.Logf("inject: %s\nterminal:\n%s\nstderr:\n%s", b, screen(), stderr.String())
	if _, err := os.Stat(filepath.Join(home, "injected-file")); err == nil {
		t.Errorf("keys the agent pushed into the terminal answered the launcher (%s)\nterminal:\n%s", b, screen())
	}
	if !strings.Contains(screen(), "injected-file") {
		t.Errorf("the launcher did not ask:\n%s\nstderr: %s", screen(), stderr.String())
	}
}

// drawOver is the agent's own code: it starts a shell whose command asks
// and, while the launcher asks on the terminal they share, writes over the
// question (cursor up, line erased, a harmless command). With argv[1]
// "ignore" it ignores SIGTTOU first, as a hostile program would.
const drawOver = `
import os, signal, subprocess, sys, time
if sys.argv[1:] == ["ignore"]:
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
p = subprocess.Popen(["/bin/bash", "-c", "touch ~/drawn-file"], pass_fds=(3,))
fd = os.open("/dev/tty", os.O_RDWR)
time.sleep(1.5)
try:
    os.write(fd, b"\x1b[3A\r\x1b[2K  $ FORGED-harmless\r\n")
except OSError:
    pass
p.wait()
`

// TestAttackLaunchDrawOverQuestion: while the launcher asks, the agent
// must not draw over the question (docs/agents.md): the terminal shows
// nothing of the agent's between the question and its answer.
func TestAttackLaunchDrawOverQuestion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the launcher on a terminal")
	}
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	python := strings.TrimSpace(string(exe))
	for _, tc := range []struct{ name, arg string }{{"agent writes", "plain"}, {"agent ignoring SIGTTOU writes", "ignore"}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.arg == "ignore" {
				t.Skip("known hole: a process that ignores SIGTTOU writes over the launcher's question (docs/limits.md, Launcher)")
			}
			dir := t.TempDir()
			home, _ := fakeHome(t)
			os.WriteFile(filepath.Join(dir, "draw.py"), []byte(drawOver), 0o644)
			agent := fakeAgent(t, dir, "agent", `exec `+shQuote(python)+` draw.py `+tc.arg)
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pty:", err)
			}
			defer ptmx.Close()
			cmd := exec.Command(guardshTestBinary(t), "--launch", "--mode", "auto", "--", agent)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "GUARDSH_MODE=")
			var stderr bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			finished := make(chan struct{})
			screen := humanAt(ptmx, func(q string) string {
				time.Sleep(3 * time.Second)
				return "d"
			}, finished)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				<-waited
				t.Fatalf("the launcher hung\nterminal:\n%s", screen())
			}
			close(finished)
			nsOrSkip(t, stderr.String())
			s := screen()
			_, q, ok := strings.Cut(s, "approve?")
			if !ok {
				t.Fatalf("the launcher did not ask:\n%s\nstderr: %s", s, stderr.String())
			}
			q, _, _ = strings.Cut(q, "deny\r") // the answer's echo ends the question
			if strings.Contains(q, "FORGED") {
				t.Errorf("the agent wrote over the launcher's question:\n%q", q)
			}
		})
	}
}
