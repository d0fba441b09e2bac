package main

// guardsh --launch [--mode M] -- AGENT [ARGS...]: run a coding agent so that
// its shell is guardsh however it looks for one.
//
// Agents find their shell in different ways: Claude Code takes
// CLAUDE_CODE_SHELL or $SHELL (a path containing "bash"), goose GOOSE_SHELL,
// Aider and Cline $SHELL, Gemini CLI, Codex CLI, goose and OpenHands run
// "bash" (or "sh") by name from PATH. The launcher makes a private directory
// holding "bash" and "sh" as symbolic links to the guardsh binary, puts it
// first on PATH and points SHELL, CLAUDE_CODE_SHELL and GOOSE_SHELL at its
// "bash". guardsh started under either name behaves as that shell.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/guardsh/guardsh/sandbox"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
)

func init() { registerMode("--launch", runLaunch) }

const launchUsage = "usage: guardsh --launch [--mode MODE] [--bind-sh] [--no-namespace] [--confine [--allow-write PATH]...] -- AGENT [ARGS...]"

// shimNames are the shell names the shim directory answers to.
var shimNames = []string{"bash", "sh"}

// launchEnvMarker names the shim directory in the agent's environment, so
// that guardsh --doctor (run by the agent or inside it) can tell.
const launchEnvMarker = "GUARDSH_LAUNCH_SHIM"

type launchOptions struct {
	mode        string
	confine     bool     // --confine: the agent itself runs in the sandbox
	allowWrite  []string // --allow-write: more writable paths for a confined agent
	bindSh      bool     // --bind-sh: /bin/sh is guardsh in the namespace too
	noNamespace bool     // --no-namespace: PATH and $SHELL shims only
	agent       []string
}

func parseLaunchArgs(args []string) (launchOptions, error) {
	var o launchOptions
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.agent = args[i+1:]
			i = len(args)
		case a == "--mode":
			if i+1 >= len(args) {
				return o, errors.New("--mode: option requires an argument")
			}
			i++
			o.mode = args[i]
		case strings.HasPrefix(a, "--mode="):
			o.mode = strings.TrimPrefix(a, "--mode=")
		case a == "--confine":
			o.confine = true
		case a == "--bind-sh":
			o.bindSh = true
		case a == "--no-namespace":
			o.noNamespace = true
		case a == "--allow-write":
			if i+1 >= len(args) {
				return o, errors.New("--allow-write: option requires an argument")
			}
			i++
			o.allowWrite = append(o.allowWrite, args[i])
		case strings.HasPrefix(a, "--allow-write="):
			o.allowWrite = append(o.allowWrite, strings.TrimPrefix(a, "--allow-write="))
		case strings.HasPrefix(a, "-"):
			return o, fmt.Errorf("--launch: unknown option %q", a)
		default:
			o.agent = args[i:]
			i = len(args)
		}
	}
	if len(o.agent) == 0 {
		return o, errors.New("--launch: which agent?")
	}
	if o.mode != "" {
		if _, err := guardsh.ParseMode(o.mode); err != nil {
			return o, err
		}
	}
	if len(o.allowWrite) > 0 && !o.confine {
		return o, errors.New("--allow-write needs --confine")
	}
	return o, nil
}

// runLaunch is the --launch mode: it returns the agent's exit status.
func runLaunch(args []string) int {
	opts, err := parseLaunchArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n%s\n", err, launchUsage)
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: cannot find guardsh's own binary: %v\n", err)
		return 1
	}
	// Find the agent on the PATH it was started with, before the shim
	// shadows bash and sh.
	if _, err := exec.LookPath(opts.agent[0]); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
		return 127
	}
	// The shim must live where no session can write (every session may
	// write /tmp, its project and its temp dir), or one allowed ln -sf
	// would put the real bash there for every later command.
	shimBase, err := shimBaseDir(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
		return 1
	}
	shim, copyExe, err := makeShim(shimBase, exe)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
		return 1
	}
	defer os.RemoveAll(shim)
	if cfg, err := guardsh.LoadConfig(os.Getenv("HOME"), "", os.Getenv); err == nil && cfg.Launch.BindSh {
		opts.bindSh = true // the user file's [launch] bind_sh
	}
	// The one approval point: the channel exists before the agent does.
	ap, err := startApprovalPoint()
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: the approval channel: %v\n", err)
		return 1
	}
	defer ap.close()
	defer ap.fg.restore()
	if opts.noNamespace {
		namespaceNote(errors.New("--no-namespace"))
	} else {
		if spec, err := prepareNamespace(shim, copyExe, opts.bindSh); err != nil {
			namespaceNote(err)
		} else {
			if opts.bindSh {
				args = append([]string{"--bind-sh"}, args...)
			}
			code, started, why := launchInNamespace(spec, args, os.Environ(), ap.agentEnd, ap.fg.setAgent, ap.fg.stopped)
			if started {
				return code
			}
			namespaceNote(why)
		}
	}
	return launchAgent(opts, shim, "shims", ap.agentEnd, nil, func(pid int) {
		ap.fg.setAgent(pid)
		go watchStops(pid, ap.fg.stopped)
	})
}

// namespaceNote says on stderr that the agent runs without the private
// mount namespace, and what that leaves open.
func namespaceNote(why error) {
	fmt.Fprintf(os.Stderr, "guardsh: --launch: no private mount namespace here (%v): an agent that starts /bin/bash or its login shell by absolute path gets the real shell; only PATH and $SHELL lead to guardsh (the container level, docs/agents.md)\n", why)
}

// launchAgent starts the agent with the shim first on PATH (and, with
// --confine, in guardsh's sandbox) and returns its exit status. route is
// said to the agent in GUARDSH_LAUNCH_ROUTE; approval is the launcher's
// channel, which the agent inherits (nil: none); adjust, when not nil,
// changes the unconfined agent's command before it starts; started, when
// not nil, is told the agent's pid (its process group's) once it runs.
func launchAgent(opts launchOptions, shim, route string, approval *os.File, adjust func(*exec.Cmd), started func(int)) int {
	agentPath, err := exec.LookPath(opts.agent[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
		return 127
	}
	cmd := exec.Command(agentPath, opts.agent[1:]...)
	cmd.Args[0] = opts.agent[0]
	cmd.Env = append(launchEnv(os.Environ(), shim, opts.mode), envLaunchRoute+"="+route)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if approval != nil {
		cmd.ExtraFiles = []*os.File{approval} // fd 3 (approvalFD)
		cmd.Env = append(cmd.Env, interp.EnvApprovalFD+"="+strconv.Itoa(approvalFD))
	}
	if opts.confine {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
			return 1
		}
		tmp, err := os.MkdirTemp("", "guardsh-agent-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: --launch: %v\n", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		var restore func()
		cmd, restore, err = confineAgent(cmd, wd, tmp, opts.allowWrite)
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
			return 1
		}
		defer restore() // launch_integrity.go
	} else if adjust != nil {
		adjust(cmd)
	}
	if started != nil {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setpgid = true
	}
	return runChild(cmd, os.Stderr, started)
}

// shimBaseDir is where the launcher makes its shim directories: outside
// the shared temp dirs, which every session may write: ~/.local/share/guardsh,
// else $XDG_RUNTIME_DIR/guardsh. A HOME below a shared temp dir (a CI
// runner's) still serves: package protect keeps ~/.local/share/guardsh
// read-only in every session, and the policy denies writing it.
func shimBaseDir(getenv func(string) string) (string, error) {
	var cands []string
	for _, c := range [...]struct{ dir, sub string }{{getenv("HOME"), ".local/share/guardsh"}, {getenv("XDG_RUNTIME_DIR"), "guardsh"}} {
		if c.dir != "" && filepath.IsAbs(c.dir) {
			cands = append(cands, filepath.Join(sandbox.Canon(c.dir), c.sub))
		}
	}
	var tried []string
	for pass := 0; pass < 2; pass++ {
		for i, base := range cands {
			if pass == 0 && sharedTemp(base) || pass == 1 && i > 0 {
				continue
			}
			if err := os.MkdirAll(base, 0o700); err != nil {
				tried = append(tried, base+": "+err.Error())
				continue
			}
			return base, nil
		}
	}
	return "", fmt.Errorf("no place for the shell shim outside the shared temp dirs (%s); set HOME", strings.Join(append(tried, "HOME and XDG_RUNTIME_DIR tried"), "; "))
}

// sharedTemp reports whether p lies in a temp dir every session may write.
func sharedTemp(p string) bool {
	for _, t := range [...]string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp"} {
		if p == t || strings.HasPrefix(p, t+"/") {
			return true
		}
	}
	return false
}

// makeShim creates the private shim directory in base: a copy of the
// guardsh binary exe (the file the namespace binds over the shells: exe
// itself may lie in a tree a session can write) and "bash" and "sh"
// linking to it. Only the current user can write to it.
func makeShim(base, exe string) (dir, copyExe string, err error) {
	dir, err = os.MkdirTemp(base, "guardsh-shim-")
	if err != nil {
		return "", "", err
	}
	copyExe = filepath.Join(dir, "guardsh")
	if err := copyProgram(exe, copyExe); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	for _, name := range shimNames {
		if err := os.Symlink(copyExe, filepath.Join(dir, name)); err != nil {
			os.RemoveAll(dir)
			return "", "", err
		}
	}
	return dir, copyExe, nil
}

// copyProgram copies the program src to the new file dst (mode 0755).
func copyProgram(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// launchEnv is the agent's environment: env with the shim first on PATH and
// every shell variable an agent reads pointing at the shim's bash.
func launchEnv(env []string, shim, mode string) []string {
	bash := filepath.Join(shim, "bash")
	set := map[string]string{
		"SHELL":             bash,
		"CLAUDE_CODE_SHELL": bash,
		"GOOSE_SHELL":       bash,
		launchEnvMarker:     shim,
	}
	if mode != "" {
		set["GUARDSH_MODE"] = mode
	}
	path := shim
	out := make([]string, 0, len(env)+len(set)+1)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok {
			continue
		}
		if k == "PATH" {
			if v != "" {
				path += string(os.PathListSeparator) + v
			}
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "PATH="+path)
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// runChild runs cmd to its end and returns its exit status the way a shell
// reports it (128+N for a death by signal N). Interrupts from the terminal
// reach the child directly (same process group); termination signals sent
// to guardsh alone are passed on.
// started, when not nil, is told the child's pid once it runs.
func runChild(cmd *exec.Cmd, stderr io.Writer, started func(int)) int {
	sigs := notifySignals()
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "guardsh: --launch: %v\n", err)
		return 126
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	return waitForward(cmd, sigs, stderr)
}

// waitChild waits for cmd, started already, as runChild does.
func waitChild(cmd *exec.Cmd, stderr io.Writer) int {
	sigs := notifySignals()
	defer signal.Stop(sigs)
	return waitForward(cmd, sigs, stderr)
}

func notifySignals() chan os.Signal {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	return sigs
}

func waitForward(cmd *exec.Cmd, sigs chan os.Signal, stderr io.Writer) int {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGTERM || s == syscall.SIGHUP {
					cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	defer close(done)
	if os.Getpid() == 1 {
		// PID 1 of the launcher's namespace: orphans are reparented here
		// and must be reaped; the agent's status ends the wait.
		return reapUntil(cmd.Process.Pid, stderr)
	}
	err := cmd.Wait()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "guardsh: --launch: %v\n", err)
	return 1
}

// stageReport is the launcher's namespace stage's line to the launcher
// (launch_ns_linux.go): reapUntil says there when the agent is stopped.
var stageReport io.Writer

// reapUntil reaps every child until pid ends and returns pid's status.
// When pid is stopped (Ctrl-Z), the launcher is told on stageReport.
func reapUntil(pid int, stderr io.Writer) int {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WUNTRACED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "guardsh: --launch: %v\n", err)
			return 1
		}
		if wpid != pid {
			continue
		}
		if ws.Stopped() {
			// Ctrl-Z, not a read or a terminal change from the background
			// (SIGTTIN, SIGTTOU: the launcher asks; it continues the agent after)
			if sig := ws.StopSignal(); stageReport != nil && (sig == syscall.SIGTSTP || sig == syscall.SIGSTOP) {
				io.WriteString(stageReport, "stopped\n")
			}
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}
