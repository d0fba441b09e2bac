//go:build linux

package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/guardsh/guardsh/protect"
	"golang.org/x/sys/unix"
)

// Stage must be called first thing in main (from an init function): in a
// process started by the privileged side to confine itself, it confines
// the process and then execs (the interpreter or an approved command) or
// runs the probe; it never returns there. Elsewhere it returns at once.
func Stage() {
	if v, ok := os.LookupEnv(envEnter); ok {
		os.Unsetenv(envEnter)
		enter(v)
		return
	}
	v, ok := os.LookupEnv(envStage)
	if !ok {
		return
	}
	os.Unsetenv(envStage)
	var spec stageSpec
	b, err := base64.StdEncoding.DecodeString(v)
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: bad stage request: %v\n", err)
		os.Exit(126)
	}
	// Descriptors inherited by accident (the parent's, not passed on
	// purpose) would be ways out: Landlock does not restrict open files.
	closeStrayFDs(3 + spec.KeepFDs)
	if spec.GateFD > 0 {
		waitGate(spec.GateFD)
	}
	if spec.NProc > 0 {
		// no pids cgroup here: the next best limit, inherited by every
		// process the session starts
		if err := setNProc(spec.NProc); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: process limit: %v\n", err)
			os.Exit(126)
		}
	}
	net, err := confine(spec, true)
	if net != "" {
		os.Setenv(EnvNet, net)
	}
	if err != nil {
		if spec.Action == "probe" {
			json.NewEncoder(os.Stdout).Encode([]Check{{Name: "confine", Detail: err.Error()}})
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		os.Exit(126)
	}
	switch spec.Action {
	case "probe":
		json.NewEncoder(os.Stdout).Encode(runProbeChecks(spec))
		os.Exit(0)
	case "run":
		exe, err := os.Executable()
		if err != nil {
			exe = "/proc/self/exe"
		}
		env := append(os.Environ(), EnvRun+"="+spec.Desc)
		args := os.Args
		if spec.Argv0 != "" {
			// bwrap puts the binary's path in argv[0]; the shell wants its
			// own ("-bash" for a login shell, "sh" through a shim).
			args[0] = spec.Argv0
		}
		err = syscall.Exec(exe, args, env)
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: exec interpreter: %v\n", err)
		os.Exit(126)
	case "exec":
		if len(spec.Argv) == 0 {
			os.Exit(126)
		}
		err := syscall.Exec(spec.Argv[0], spec.Argv, os.Environ())
		fmt.Fprintf(os.Stderr, "guardsh: %s: %v\n", spec.Argv[0], err)
		if err == syscall.ENOENT {
			os.Exit(127)
		}
		os.Exit(126)
	}
	fmt.Fprintf(os.Stderr, "guardsh: sandbox: unknown stage action %q\n", spec.Action)
	os.Exit(126)
}

// waitGate blocks until the privileged side releases this stage (a
// StartGated session): one go-ahead byte on fd. Anything else (the gate
// closed: the privileged side aborted, or died) ends the process before it
// confines itself or runs anything.
func waitGate(fd int) {
	var b [1]byte
	n, err := unix.Read(fd, b[:])
	for err == unix.EINTR {
		n, err = unix.Read(fd, b[:])
	}
	unix.Close(fd)
	if n != 1 || b[0] != gateGo {
		os.Exit(126)
	}
}

// Inherited reports whether this process is a confined interpreter started
// by a guardsh broker (or a guardsh started inside one), and the sandbox
// description. A marker in the environment of a process that is not
// confined is an error: that process must not believe it is sandboxed.
func Inherited() (desc string, ok bool, err error) {
	desc, ok = os.LookupEnv(EnvRun)
	if !ok {
		return "", false, nil
	}
	// Both backends leave the root file system read-only: a process that
	// merely runs under some other seccomp filter (a container's) does not
	// pass for a sandboxed one. (System calls, not /proc/self/status and
	// mountinfo: this runs at every start of a confined interpreter.)
	if selfConfined() && (rootReadOnly() || strings.HasPrefix(desc, BackendContainer+":") && ownFilter()) {
		return desc, true, nil
	}
	st, err := SelfStatus()
	if err != nil {
		return "", false, err
	}
	return "", false, fmt.Errorf("%s is set but this process is not in a guardsh sandbox (no_new_privs=%v seccomp=%d CapEff=%x, / read-only=%v)", EnvRun, st.NoNewPrivs, st.Seccomp, st.CapEff, rootReadOnly())
}

// ownFilter reports whether guardsh's own seccomp filter is on the calling
// thread, not just some filter (a container runtime's): the container
// level has no read-only root to tell it by. guardsh's filter refuses
// ioctl TIOCSTI by its request alone (EPERM), before the kernel would
// answer EBADF for the descriptor -1; no other filter known does.
func ownFilter() bool {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, ^uintptr(0), uintptr(unix.TIOCSTI), 0)
	return e == unix.EPERM
}

// selfConfined is Status.Confined for the calling thread, by system calls:
// no_new_privs set, a seccomp filter, no effective or permitted
// capability.
func selfConfined() bool {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return false
	}
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil || mode != 2 {
		return false
	}
	eff, prm, err := selfCaps()
	return err == nil && eff == 0 && prm == 0
}

// selfCaps returns the calling thread's effective and permitted
// capability sets.
func selfCaps() (eff, prm uint64, err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return 0, 0, err
	}
	eff = uint64(data[0].Effective) | uint64(data[1].Effective)<<32
	prm = uint64(data[0].Permitted) | uint64(data[1].Permitted)<<32
	return eff, prm, nil
}

// command builds the process that confines itself per spec on backend.
// extra are files passed as fds 3, 4, ... .
func command(backend string, spec stageSpec, env []string, extra []*os.File) (*exec.Cmd, error) {
	exe, err := executable()
	if err != nil {
		return nil, err
	}
	spec.HostNetNS = netNSInode()
	var cmd *exec.Cmd
	switch backend {
	case BackendLandlock:
		spec.Landlock = true
		spec.MountNS = true
		cmd = exec.Command(exe)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWNS}
		if !haveCapSysAdmin() {
			// Without CAP_SYS_ADMIN (an unprivileged user, or root in a
			// container) the mount namespace comes from a user namespace
			// that maps only this user, as the namespace's root (so that the
			// stage may mount before it drops every capability). Inside, the
			// user's files appear owned by uid 0.
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Cloneflags:                 unix.CLONE_NEWUSER | unix.CLONE_NEWNS,
				UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
				GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
				GidMappingsEnableSetgroups: false,
			}
		}
	case BackendContainer:
		spec.Landlock = true
		spec.MountNS = false
		cmd = exec.Command(exe)
	case BackendBwrap:
		spec.Landlock = false
		spec.MountNS = false
		// bwrap runs unconfined (it builds the sandbox): never one a
		// session could have planted in a directory of $PATH it may write
		bw, err := protect.TrustedProgram("bwrap", append(protect.SessionWritable(spec.Config.Project), spec.Config.WritableRoots()...))
		if err != nil {
			return nil, fmt.Errorf("bwrap: %w", ErrUnavailable)
		}
		cmd = exec.Command(bw, append(BwrapArgs(spec.Config), "--", exe)...)
	default:
		return nil, fmt.Errorf("%s: %w", backend, ErrUnavailable)
	}
	cmd.Env = append(env, encodeSpec(spec))
	cmd.ExtraFiles = extra
	return cmd, nil
}

// BwrapArgs are bubblewrap's options for c: the host file system
// read-only, the writable roots bound read-write, the protected paths
// bound read-only on top, fresh /dev and /proc, no network, own PID, IPC
// and UTS namespaces, no capabilities.
func BwrapArgs(c Config) []string {
	a := []string{"--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"}
	if !c.Network {
		a = append(a, "--unshare-net")
	}
	// No --cap-drop: the confining stage inside drops every set itself,
	// the bounding set included, which needs CAP_SETPCAP to be there.
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, r := range c.WritableRoots() {
		if _, err := os.Stat(r); err == nil {
			a = append(a, "--bind", r, r)
		}
	}
	if c.SharedTmp {
		a = append(a, "--bind-try", "/dev/shm", "/dev/shm")
	}
	if g := c.GitDir(); g != "" {
		a = append(a, "--bind", g, g)
	}
	for _, d := range c.ProtectedAncestors() {
		a = append(a, "--bind", d, d)
	}
	for _, p := range c.ProtectedInside() {
		a = append(a, "--ro-bind", p, p)
	}
	if wd, err := os.Getwd(); err == nil {
		a = append(a, "--chdir", wd)
	}
	return a
}

// Start starts the confined interpreter for this guardsh invocation on
// backend: the same binary and arguments, confined before it reads the
// script — from a confined thread of this process where that can be done
// (threadStartable, thread_linux.go), else through the stage. env is its
// environment (TMPDIR already set); broker, if not nil, becomes its
// escalation channel.
func Start(backend string, c Config, desc string, env []string, broker *os.File, files map[string]*os.File) (*Session, error) {
	if threadStartable(backend) {
		if s, err := startThreaded(backend, c, desc, env, broker, files); err == nil {
			if err := s.Release(); err != nil {
				s.Abort()
				return nil, err
			}
			return s, nil
		}
		// the stage confines the same way, in a process of its own
	}
	extra, env := passFiles(env, broker, files)
	lim := newProcLimit(sessionMaxProcs())
	spec := stageSpec{Config: c, Action: "run", Desc: desc, Argv0: os.Args[0], KeepFDs: len(extra)}
	if lim.kind == "rlimit" {
		spec.NProc = lim.max
	}
	cmd, err := command(backend, spec, env, extra)
	if err != nil {
		lim.close()
		return nil, err
	}
	if backend != BackendBwrap {
		cmd.Args = os.Args
	} else {
		// bwrap's own argv stays; guardsh's arguments follow the binary.
		cmd.Args = append(cmd.Args, os.Args[1:]...)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := lim.startCmd(cmd); err != nil {
		lim.close()
		return nil, err
	}
	return &Session{Backend: backend, Desc: desc, Cmd: cmd, ProcLimit: lim.Describe(), cleanup: lim.close}, nil
}

// StartGated is Start with the process held back: it starts at once (the
// Go runtime's start-up, the larger part of a session's start, overlaps
// the privileged side's remaining work), then waits until Session.Release
// (or ends at Session.Abort) before it runs anything. Where the backend
// can be built on a thread of this process (threadStartable) that process
// is the interpreter, confined already, and c.TmpDir must exist; else,
// for the Landlock backend, it is the stage, which waits before it
// confines itself (c.TmpDir need exist only before Release). Other
// backends start as Start does (bubblewrap sets up its mounts when it
// starts, so there is nothing to hold back), with nothing to release.
func StartGated(backend string, c Config, desc string, env []string, broker *os.File, files map[string]*os.File) (*Session, error) {
	if threadStartable(backend) {
		if s, err := startThreaded(backend, c, desc, env, broker, files); err == nil {
			return s, nil
		}
	}
	if backend != BackendLandlock {
		return Start(backend, c, desc, env, broker, files)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	extra, env := passFiles(env, broker, files)
	extra = append(extra, r)
	spec := stageSpec{Config: c, Action: "run", Desc: desc, Argv0: os.Args[0], KeepFDs: len(extra), GateFD: 2 + len(extra)}
	lim := newProcLimit(sessionMaxProcs())
	if lim.kind == "rlimit" {
		spec.NProc = lim.max
	}
	cmd, err := command(backend, spec, env, extra)
	if err != nil {
		w.Close()
		lim.close()
		return nil, err
	}
	cmd.Args = os.Args
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := lim.startCmd(cmd); err != nil {
		w.Close()
		lim.close()
		return nil, err
	}
	return &Session{Backend: backend, Desc: desc, Cmd: cmd, gate: w, ProcLimit: lim.Describe(), cleanup: lim.close}, nil
}

// ExecCommand builds the process that runs argv confined by c on backend
// (an approved escalation). argv[0] must be absolute.
func ExecCommand(backend string, c Config, argv, env []string, dir string) (*exec.Cmd, error) {
	return ExecCommandFiles(backend, c, argv, env, dir, nil)
}

// ExecCommandFiles is ExecCommand with descriptors passed on purpose: keep
// become fds 3, 4, ... of the confined program (every other inherited
// descriptor is closed).
func ExecCommandFiles(backend string, c Config, argv, env []string, dir string, keep []*os.File) (*exec.Cmd, error) {
	if !filepath.IsAbs(argv[0]) {
		return nil, fmt.Errorf("%s: not an absolute path", argv[0])
	}
	cmd, err := command(backend, stageSpec{Config: c, Action: "exec", Argv: argv, KeepFDs: len(keep)}, withoutStage(env), keep)
	if err != nil {
		return nil, err
	}
	cmd.Dir = dir
	if backend == BackendBwrap {
		for i, a := range cmd.Args {
			if a == "--chdir" && i+1 < len(cmd.Args) {
				cmd.Args[i+1] = dir
			}
		}
	}
	return cmd, nil
}

// osProbeChecks are the Linux-only probe checks, run confined.
func osProbeChecks(spec stageSpec) []Check {
	var out []Check
	if spec.MountNS {
		out = append(out, mountCheck(spec.Config))
	}
	st, err := SelfStatus()
	out = append(out, Check{Name: "no capabilities, no_new_privs, seccomp filter",
		OK:     err == nil && st.Confined() && (st.CapBnd == 0 || os.Geteuid() != 0),
		Detail: fmt.Sprintf("NoNewPrivs=%v Seccomp=%d CapEff=%x CapBnd=%x", st.NoNewPrivs, st.Seccomp, st.CapEff, st.CapBnd)})
	err = unix.Unshare(unix.CLONE_NEWNS)
	out = append(out, Check{Name: "unshare fails", OK: err != nil, Detail: errString(err)})
	// What a confined interpreter checks at its start (Inherited) must
	// see this sandbox.
	seen := selfConfined() && (rootReadOnly() || !spec.MountNS && spec.Landlock)
	out = append(out, Check{Name: "confinement seen by the interpreter's start-up check", OK: seen,
		Detail: fmt.Sprintf("selfConfined=%v rootReadOnly=%v", selfConfined(), rootReadOnly())})
	return out
}

// mountCheck reports the mounts left writable outside the writable roots
// (their files' metadata could change; their contents stay protected by
// Landlock). Only a writable root mount fails the probe.
func mountCheck(c Config) Check {
	rw := writableMounts(c)
	ch := Check{Name: "mounts outside the writable roots are read-only", OK: !slices.Contains(rw, "/")}
	if len(rw) > 0 {
		ch.Detail = "still writable: " + strings.Join(rw, ", ")
	} else {
		ch.Detail = "all"
	}
	return ch
}

// closeStrayFDs closes every descriptor from first up.
func closeStrayFDs(first int) {
	// The Go runtime's own descriptors (its netpoller's epoll and eventfd,
	// made by the first file a package's init opened) must stay: closing
	// them kills the process at its next poll ("netpoll failed"). They are
	// close-on-exec, so the exec'd interpreter does not inherit them.
	keep := runtimeFDs(first)
	if len(keep) == 0 {
		if err := unix.CloseRange(uint(first), ^uint(0), 0); err == nil {
			return
		}
	}
	fd := first
	for _, k := range keep {
		if k > fd {
			unix.CloseRange(uint(fd), uint(k-1), 0)
		}
		fd = k + 1
	}
	if err := unix.CloseRange(uint(fd), ^uint(0), 0); err == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= first && !slices.Contains(keep, n) {
			unix.Close(n)
		}
	}
}

// runtimeFDs lists, sorted, the descriptors from first up that are the Go
// runtime's netpoller (an epoll instance or an eventfd, close-on-exec).
func runtimeFDs(first int) []int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n < first {
			continue
		}
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || l != "anon_inode:[eventpoll]" && l != "anon_inode:[eventfd]" {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(n), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC != 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// haveCapSysAdmin reports whether this process may create a mount
// namespace by itself.
func haveCapSysAdmin() bool {
	eff, _, err := selfCaps()
	return err == nil && eff&(1<<unix.CAP_SYS_ADMIN) != 0
}

// rootReadOnly reports whether the mount at this process's root is
// read-only for it (statfs reports the mount's read-only flag).
func rootReadOnly() bool {
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil {
		return false
	}
	return st.Flags&unix.ST_RDONLY != 0
}
