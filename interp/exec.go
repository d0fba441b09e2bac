package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/shellargs"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// errInterrupted ends a script after a child died of SIGINT while guardsh
// got the same signal: bash then exits as if interrupted (status 130).
var errInterrupted = errors.New("interrupted")

// shellNames are the shells whose children guardsh runs in its own
// interpreter, with the same policy and handlers, instead of starting them.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true}

// startExternal runs an external program and waits for it. Shells, shell
// scripts without a shebang and scripts whose shebang names sh or bash run
// in-process in a nested guardsh runner.
func (g *Runner) startExternal(ctx context.Context, hc interp.HandlerContext, args []string) error {
	if isShell(args[0]) {
		return g.runNestedTracked(ctx, hc, args, nil)
	}
	if filepath.Base(args[0]) == "env" {
		if env, rest, ok := envLookThrough(args[1:]); ok && len(rest) > 0 && isShell(rest[0]) {
			return g.runNestedTracked(ctx, hc, rest, env)
		}
	}
	path, status, msg := "", 0, ""
	if dirs := g.policy.StrictProgramDirs(); dirs != nil {
		path, status, msg = lookStrict(dirs, hc.Dir, args[0])
	} else {
		path, status, msg = lookCommand(hc.Dir, hc.Env, args[0])
	}
	if status != 0 {
		g.errf(hc, "%s: %s", args[0], msg)
		return interp.ExitStatus(status)
	}
	if sh := guardsh.ShellByIdentity(path); shellNames[sh] && !isShell(args[0]) {
		// a shell under another name (cp /bin/bash ./b; ./b -c CMD) is
		// that shell: run in this interpreter, $0 as it was called
		return g.runNestedTracked(ctx, hc, args, nil)
	}
	if isSelf(path) {
		if err := g.judgeAsGuardsh(ctx, hc, path, args); err != nil {
			return err
		}
		if inv, pol, env, ok := g.nestedGuardsh(hc, args); ok {
			return g.runTracked(ctx, hc, func(ctx context.Context, grp *procGroup) error {
				return g.runInvocation(ctx, hc, "guardsh", inv, env, grp, pol)
			})
		}
	}
	if ip, opt, ok := shebangLine(path); ok && isSelf(absIn(hc.Dir, ip)) && guardsh.RealShells()[filepath.Base(ip)] == "" {
		// a script whose #! names guardsh (or a copy: #!./gs --mode=bypass)
		// is a nested guardsh: its commands are judged by this session
		// (a relative #! is found from the working directory, as the kernel does).
		// Under guardsh --launch, #!/bin/bash names guardsh too: the
		// script is a bash script, run as one below (guardsh.RealShells).
		argv := append(append([]string{ip}, opt...), path)
		argv = append(argv, args[1:]...)
		inv, pol, env, ok := g.nestedGuardsh(hc, argv)
		if !ok {
			g.errf(hc, "%s: its #! names guardsh with options a nested guardsh does not take (%s); run it with guardsh -c or bash", args[0], strings.Join(opt, " "))
			return interp.ExitStatus(126)
		}
		return g.runTracked(ctx, hc, func(ctx context.Context, grp *procGroup) error {
			return g.runInvocation(ctx, hc, "guardsh", inv, env, grp, pol)
		})
	}
	if shell, opts, ok := scriptShell(path); ok {
		if err, ok := g.runInstalledScript(ctx, hc, shell, opts, path, args); ok {
			return err
		}
		argv := append([]string{filepath.Base(shell)}, opts...)
		argv = append(argv, path)
		argv = append(argv, args[1:]...)
		return g.runNestedTracked(ctx, hc, argv, nil)
	}
	return g.runProcess(ctx, hc, path, args)
}

// runNestedTracked runs a nested shell as a child of its own in the
// process table: a virtual PID that $!, kill and wait know, whose signals
// reach every process the nested shell started.
func (g *Runner) runNestedTracked(ctx context.Context, hc interp.HandlerContext, argv []string, env []string) error {
	return g.runTracked(ctx, hc, func(ctx context.Context, grp *procGroup) error {
		return g.runNestedIn(ctx, hc, argv, env, grp)
	})
}

// runTracked runs a nested shell (run) as a child of its own in the
// process table (see runNestedTracked). run must run the shell with the
// context it is given: kill of the virtual PID (SIGTERM, SIGINT, SIGKILL,
// SIGHUP, SIGQUIT) cancels it, so the shell stops as a killed bash does,
// besides the signal reaching every process it started.
func (g *Runner) runTracked(ctx context.Context, hc interp.HandlerContext, run func(ctx context.Context, grp *procGroup) error) error {
	bgID, _ := g.sh.bgIDFor(hc.Pos)
	// Not cancelled when the nested shell ends: its background jobs outlive
	// it, as in bash.
	ctx, cancel := context.WithCancel(ctx)
	grp := newProcGroup(g.grp)
	p := g.sh.track(0, bgID, grp, cancel)
	grp.vpid = p.pid
	err := run(ctx, grp)
	if st, ok := isExit(err); ok {
		p.status = int(st)
	}
	killed := p.killedBy
	g.sh.finish(p, nil)
	if killed != 0 {
		return interp.ExitStatus(uint8(128 + int(killed)))
	}
	return err
}

// isShell reports whether a command name is a shell guardsh runs itself.
func isShell(name string) bool { return shellNames[filepath.Base(name)] }

// envLookThrough parses "env [-i] [-u NAME] [NAME=VALUE]... COMMAND..." and
// returns the environment changes and the command. ok is false for env
// options guardsh does not interpret.
func envLookThrough(args []string) (env []string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || a == "--ignore-environment" || a == "-":
			env = append(env, envClear)
		case a == "-u" && i+1 < len(args):
			i++
			env = append(env, envUnsetPrefix+args[i])
		case a == "--":
			return env, args[i+1:], true
		case strings.HasPrefix(a, "-"):
			return nil, nil, false
		case strings.Contains(a, "="):
			env = append(env, a)
		default:
			return env, args[i:], true
		}
	}
	return env, nil, true
}

// lookCommand finds the file a command name runs, with bash's errors and
// statuses: 127 "command not found" or "No such file or directory", 126
// "Is a directory" or "Permission denied".
func lookCommand(dir string, env expand.Environ, name string) (path string, status int, msg string) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", 127, "No such file or directory"
		case fi.IsDir():
			return "", 126, "Is a directory"
		case fi.Mode()&0o111 == 0 || syscall.Access(p, 1) != nil:
			return "", 126, "Permission denied"
		}
		return p, 0, ""
	}
	if name == "" {
		return "", 127, "command not found"
	}
	for _, d := range filepath.SplitList(env.Get("PATH").String()) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		return p, 0, ""
	}
	return "", 127, "command not found"
}

// absIn is p made absolute from dir.
func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// shebangLine returns the interpreter a file's #! line names and its one
// argument (the kernel passes the rest of the line as a single word).
func shebangLine(path string) (interp string, opt []string, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	if !bytes.HasPrefix(head[:n], []byte("#!")) {
		return "", nil, false
	}
	line, _, _ := bytes.Cut(head[2:n], []byte("\n"))
	ip, rest, _ := strings.Cut(strings.TrimLeft(string(line), " \t"), " ")
	if ip == "" {
		return "", nil, false
	}
	if rest = strings.Trim(rest, " \t\r"); rest != "" {
		opt = []string{rest}
	}
	return ip, opt, true
}

// scriptShell reads the start of an executable file and reports whether
// it is a shell script: a shebang naming sh, bash or dash (directly or
// through env; shell is the shebang's path, or the name env looks up), or
// no shebang at all in a file that is not a binary (shell "bash").
func scriptShell(path string) (shell string, opts []string, ok bool) {
	// O_NONBLOCK and regular files only: an executable FIFO must not hang
	// guardsh (the kernel refuses to exec it, as bash reports).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		// bash runs a script without a shebang itself (a subshell of bash)
		if n == 0 {
			return "bash", nil, true
		}
		line, _, _ := bytes.Cut(head, []byte("\n"))
		if bytes.IndexByte(line, 0) >= 0 || bytes.HasPrefix(head, []byte("\x7fELF")) {
			return "", nil, false
		}
		return "bash", nil, true
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return "", nil, false
	}
	if filepath.Base(fields[0]) == "env" {
		fields = fields[1:]
		for len(fields) > 0 && (fields[0] == "-S" || strings.Contains(fields[0], "=")) {
			fields = fields[1:]
		}
		if len(fields) == 0 {
			return "", nil, false
		}
	}
	shell = filepath.Base(fields[0])
	if !isShell(fields[0]) {
		// a shebang naming a copy of a shell (#!/tmp/b) is that shell
		if !filepath.IsAbs(fields[0]) {
			return "", nil, false
		}
		if shell = guardsh.ShellByIdentity(fields[0]); !shellNames[shell] {
			return "", nil, false
		}
	}
	// A shebang passes at most one argument, possibly "-e" or "-eu".
	for _, o := range fields[1:] {
		if strings.HasPrefix(o, "-") || strings.HasPrefix(o, "+") {
			opts = append(opts, o)
		}
	}
	if isShell(fields[0]) {
		return fields[0], opts, true // "/bin/bash", or "bash" through env
	}
	return shell, opts, true // a copy of a shell: the shell it is, interpreted
}

// runNested runs a shell command line (argv[0] is sh, bash, ...) in a new
// guardsh runner with the same policy and handlers. env holds the changes
// of a leading "env" command.
func (g *Runner) runNested(ctx context.Context, hc interp.HandlerContext, argv []string, env []string) error {
	return g.runNestedIn(ctx, hc, argv, env, g.grp)
}

func (g *Runner) runNestedIn(ctx context.Context, hc interp.HandlerContext, argv []string, env []string, grp *procGroup) error {
	name := filepath.Base(argv[0])
	inv, err := shellargs.Parse(argv[1:], argv[0], nil)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %v\n", name, err)
		return interp.ExitStatus(2)
	}
	if err, ok := g.runInstalledInvocation(ctx, hc, inv, argv, env); ok {
		return err
	}
	return g.runInvocation(ctx, hc, name, inv, env, grp, nil)
}

// runInvocation runs a parsed nested shell command line in a new guardsh
// runner with the same handlers, and the same policy unless pol is given
// (a nested guardsh asking for a stricter mode).
func (g *Runner) runInvocation(ctx context.Context, hc interp.HandlerContext, name string, inv *shellargs.Invocation, env []string, grp *procGroup, pol *guardsh.Policy) error {
	if inv.Version {
		fmt.Fprintf(hc.Stdout, "GNU bash, version %s (guardsh)\n", bashVersion)
		return nil
	}
	cfg := g.cfg
	if pol != nil {
		cfg.Policy = pol
	}
	cfg.shared = g.sh
	cfg.fds = g.fds
	cfg.parentPid = g.pid()
	cfg.Env = g.pinEnv(applyEnv(execEnv(hc), env))
	cfg.Dir = hc.Dir
	stdio := newNestedStdio()
	cfg.Stdin = hc.Stdin
	cfg.Stdout, cfg.Stderr = stdio.own(unwrapErr(hc.Stdout)), stdio.own(unwrapErr(hc.Stderr))
	cfg.Name = inv.Name
	cfg.Params = inv.Params
	cfg.Opts = inv.Opts
	cfg.Interactive = false
	cfg.group = grp
	cfg.dashEcho = name == "dash" || name == "sh" && dashSh()
	child, err := New(cfg)
	if err != nil {
		stdio.close()
		fmt.Fprintf(hc.Stderr, "%s: %v\n", name, err)
		return interp.ExitStatus(2)
	}
	stdio.closers = append(stdio.closers, child.fds.closeAll) // its fds 3 and up, as its own process's
	defer stdio.closeAfterJobs(child)
	if inv.Login && !inv.NoProfile {
		child.SourceLogin(ctx)
	}
	var status int
	switch {
	case inv.Command != nil:
		status = child.RunDashC(ctx, *inv.Command, inv.Name)
	case inv.Script != "":
		status = child.RunScriptFile(ctx, inv.Script, name)
	default:
		in := hc.Stdin
		if in == nil {
			in = strings.NewReader("")
		}
		status = child.Run(ctx, in, inv.Name)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if status == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(status))
}

// RunScriptFile runs a script file the way "bash FILE" does, with bash's
// errors when it cannot be read: 127 when missing, 126 when not a file.
// prefix names the shell in those errors.
func (g *Runner) RunScriptFile(ctx context.Context, path, prefix string) int {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.r.Dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		fmt.Fprintf(g.cfg.Stderr, "%s: %s: No such file or directory\n", prefix, path)
		return 127
	case fi.IsDir():
		fmt.Fprintf(g.cfg.Stderr, "%s: %s: Is a directory\n", prefix, path)
		return 126
	}
	data, err := os.ReadFile(p)
	if err != nil {
		fmt.Fprintf(g.cfg.Stderr, "%s: %s: %v\n", prefix, path, errors.Unwrap(err))
		return 126
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(g.cfg.Stderr, "%s: %s: cannot execute binary file\n", prefix, path)
		return 126
	}
	g.setSource(path)
	return g.Run(ctx, bytes.NewReader(data), path)
}

// setSource sets BASH_SOURCE for a script file, as bash does.
func (g *Runner) setSource(path string) {
	f, err := syntax.NewParser().Parse(strings.NewReader("BASH_SOURCE=("+evalQuote(path)+")"), "")
	if err == nil && len(f.Stmts) == 1 {
		g.sh.traceQuiet.Add(1)
		g.r.Run(context.Background(), f.Stmts[0])
		g.sh.traceQuiet.Add(-1)
	}
}

// applyEnv applies the changes of an env command to an environment list.
func applyEnv(list, changes []string) []string {
	for _, c := range changes {
		switch {
		case c == envClear:
			list = nil
		case strings.HasPrefix(c, envUnsetPrefix):
			name := strings.TrimPrefix(c, envUnsetPrefix)
			list = removeEnv(list, name)
		default:
			name, _, _ := strings.Cut(c, "=")
			list = append(removeEnv(list, name), c)
		}
	}
	return list
}

func removeEnv(list []string, name string) []string {
	out := list[:0:0]
	for _, kv := range list {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// runProcess starts one external program, registers it in the process
// table (so that signals and exit can reach it) and waits for it.
func (g *Runner) runProcess(ctx context.Context, hc interp.HandlerContext, path string, args []string) error {
	return g.runProcessEnv(ctx, hc, path, args, g.pinEnv(execEnv(hc)))
}

// runProcessEnv is runProcess with the program's environment.
func (g *Runner) runProcessEnv(ctx context.Context, hc interp.HandlerContext, path string, args, env []string) error {
	cmd := exec.Command(path)
	cmd.Args = args
	cmd.Env = env
	cmd.Dir = hc.Dir
	cmd.Stdin = hc.Stdin
	cmd.Stdout = unwrapErr(hc.Stdout)
	cmd.Stderr = unwrapErr(hc.Stderr)
	cmd.SysProcAttr = childSysProcAttr()
	var err error
	for delay := time.Millisecond; ; delay *= 2 {
		cmd, err = g.sh.startCmd(cmd) // in the agent command's process group (cmdgroup.go)
		if !errors.Is(err, syscall.ETXTBSY) || delay > 300*time.Millisecond {
			break
		}
		time.Sleep(delay)
		cmd = cmdCopy(cmd)
	}
	if err != nil {
		if errors.Is(err, syscall.ENOEXEC) {
			return g.runNested(ctx, hc, append([]string{"bash", path}, args[1:]...), nil)
		}
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = errnoText(pe.Err)
		}
		g.errf(hc, "%s: %s", args[0], msg)
		return interp.ExitStatus(126)
	}
	bgID, _ := g.sh.bgIDFor(hc.Pos)
	p := g.sh.track(cmd.Process.Pid, bgID, nil, nil)
	g.grp.add(p.pid)
	defer g.grp.remove(p.pid)
	done := make(chan struct{})
	watch := ctx.Done()
	if bgID != 0 {
		// A background job is not interrupted with the script: in bash,
		// asynchronous commands ignore SIGINT.
		watch = nil
	}
	go func() {
		select {
		case <-watch:
			// Interrupted: the child normally got the signal already
			// (same process group); make sure it goes, then kill it.
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				cmd.Process.Kill()
			}
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	g.sh.finish(p, cmd.ProcessState)
	if err != nil {
		g.netNote(hc, args[0])
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ws.Signal() == syscall.SIGINT && g.sh.waitInterrupted(50*time.Millisecond) {
				return errInterrupted
			}
			return interp.ExitStatus(uint8(128 + int(ws.Signal())))
		}
		return interp.ExitStatus(uint8(ee.ExitCode()))
	default:
		return err
	}
}

// netRuntimes are programs whose failure may come from a socket the
// sandbox refused (a test's local server).
var netRuntimes = map[string]bool{
	"go": true, "python": true, "python3": true, "pytest": true, "node": true, "npm": true, "npx": true,
	"yarn": true, "pnpm": true, "cargo": true, "make": true, "java": true, "ruby": true, "deno": true, "bun": true,
}

// netNote says once per session, on stderr, why network sockets fail when
// the sandbox has no private loopback, after a program that may have
// wanted one failed: its EPERM does not say it.
func (g *Runner) netNote(hc interp.HandlerContext, name string) {
	why, off := strings.CutPrefix(g.sh.netState, "off: ")
	if !off || !netRuntimes[filepath.Base(name)] || !g.sh.netNoted.CompareAndSwap(false, true) {
		return
	}
	fmt.Fprintf(unwrapErr(hc.Stderr), "guardsh: note: network sockets are off in this sandbox (%s): a local test server cannot listen and connections fail with EPERM\n", why)
}

func cmdCopy(c *exec.Cmd) *exec.Cmd {
	n := exec.Command(c.Path)
	n.Args, n.Env, n.Dir = c.Args, c.Env, c.Dir
	n.Stdin, n.Stdout, n.Stderr = c.Stdin, c.Stdout, c.Stderr
	n.SysProcAttr = c.SysProcAttr
	return n
}

// errnoText is the C library's text for an errno, as bash prints it.
func errnoText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		s := en.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return err.Error()
}

// execEnv lists the exported variables of the shell for a child process.
// Each may name a variable twice (the environment the shell started with,
// then the shell's own value over it, unset or not exported): the last
// word on a name is the one that counts, as for bash.
func execEnv(hc interp.HandlerContext) []string {
	var names []string
	vals := map[string]string{}
	keep := map[string]bool{}
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if strings.HasPrefix(name, "BASH_FUNC_") {
			return true // exported functions come from their hidden variables
		}
		if fn, ok := funcEnvName(name); ok {
			name = fn
		}
		if _, seen := keep[name]; !seen {
			names = append(names, name)
		}
		keep[name] = vr.Exported && vr.IsSet() && vr.Kind != expand.Indexed && vr.Kind != expand.Associative
		if keep[name] {
			vals[name] = vr.String()
		}
		return true
	})
	var list []string
	for _, name := range names {
		if keep[name] {
			list = append(list, name+"="+vals[name])
		}
	}
	return list
}
