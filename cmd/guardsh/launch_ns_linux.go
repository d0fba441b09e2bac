package main

// guardsh --launch in a private mount namespace: agents that start their
// shell by absolute path (/bin/bash -lc, the login shell /etc/passwd
// names) get guardsh too. The launcher starts a stage process
// (guardsh --launch-ns) in new mount and PID namespaces (inside a user
// namespace when not root); the stage makes its mount tree private, binds
// each real shell onto a file in the shim directory's guardsh-real/ (where
// guardsh alone looks for it, guardsh.RealShells), binds the launcher's
// copy of guardsh over the shell paths, mounts a /proc of its own PID
// namespace (so /proc/N/root leads nowhere outside) and then runs the
// agent as the plain launcher would. Where no namespace can be made (the
// sandbox's container level), the launcher says so and falls back to the
// PATH and $SHELL shims alone.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"github.com/guardsh/guardsh/guardsh"
	"golang.org/x/sys/unix"
)

func init() { registerMode("--launch-ns", runLaunchNS) }

// envLaunchRoute tells the agent's processes (and guardsh --doctor) which
// route the launcher took: "namespace" (absolute shell paths are guardsh)
// or "shims" (PATH and $SHELL only).
const envLaunchRoute = "GUARDSH_LAUNCH_ROUTE"

// nsBind is one bind mount: Src onto Dst.
type nsBind struct{ Src, Dst string }

// nsSpec is what the stage does before it runs the agent.
type nsSpec struct {
	Guardsh string   // the launcher's copy of guardsh (in the shim directory)
	Shim    string   // the shim directory
	Real    []nsBind // real shells onto Shim/guardsh-real/NAME, bound first
	Shells  []nsBind // Guardsh onto each shell path
	Uid     int      // the user's ids, for the agent's own user namespace
	Gid     int
	UserNS  bool // the stage runs in a user namespace as its root
	// Approval: the launcher's approval channel is the stage's fd 4.
	Approval bool
}

// shellTargets are the shell paths the namespace makes guardsh: /bin/bash,
// /usr/bin/bash, the user's login shell when it is a shell guardsh stands
// in for, and with sh /bin/sh and /usr/bin/sh. Each is returned with the
// name it replaces and its resolved path (merged /usr makes /bin/bash and
// /usr/bin/bash one file, bound once).
func shellTargets(sh bool) []struct{ name, path string } {
	paths := []string{"/bin/bash", "/usr/bin/bash"}
	if l := loginShell(); filepath.IsAbs(l) {
		paths = append(paths, l)
	}
	if sh {
		paths = append(paths, "/bin/sh", "/usr/bin/sh")
	}
	standIn := map[string]bool{"bash": true, "sh": true, "zsh": true, "ksh": true, "dash": true, "ash": true, "mksh": true, "yash": true}
	var out []struct{ name, path string }
	seen := map[string]bool{}
	for _, p := range paths {
		name := filepath.Base(p)
		if !standIn[name] {
			continue
		}
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(rp); err != nil || !fi.Mode().IsRegular() || seen[rp] {
			continue
		}
		seen[rp] = true
		out = append(out, struct{ name, path string }{name, rp})
	}
	return out
}

// prepareNamespace fills the shim directory for the stage: the real
// shells' mount points under guardsh-real/ and the list of binds.
func prepareNamespace(shim, copyExe string, sh bool) (nsSpec, error) {
	spec := nsSpec{Guardsh: copyExe, Shim: shim, Uid: os.Getuid(), Gid: os.Getgid(), UserNS: os.Geteuid() != 0}
	real := filepath.Join(shim, guardsh.RealShellDir)
	if err := os.Mkdir(real, 0o755); err != nil {
		return spec, err
	}
	names := map[string]bool{}
	for _, t := range shellTargets(sh) {
		if !names[t.name] {
			names[t.name] = true
			dst := filepath.Join(real, t.name)
			if err := os.WriteFile(dst, nil, 0o755); err != nil {
				return spec, err
			}
			spec.Real = append(spec.Real, nsBind{t.path, dst})
		}
		spec.Shells = append(spec.Shells, nsBind{copyExe, t.path})
	}
	if len(spec.Shells) == 0 {
		return spec, errors.New("no shell found at /bin/bash or /usr/bin/bash")
	}
	return spec, nil
}

// launchInNamespace runs the launcher's work in a stage in new
// namespaces. started is false when no namespace could be made (why says
// why); the caller then runs the agent the plain way. code is the agent's
// exit status.
// onStart is told the stage's pid (its process group's) once it runs,
// onStop each time the agent is stopped (Ctrl-Z).
func launchInNamespace(spec nsSpec, args []string, env []string, approval *os.File, onStart func(int), onStop func()) (code int, started bool, why error) {
	spec.Approval = approval != nil
	b, err := json.Marshal(spec)
	if err != nil {
		return 0, false, err
	}
	ready, readyW, err := os.Pipe()
	if err != nil {
		return 0, false, err
	}
	defer ready.Close()
	cmd := exec.Command(spec.Guardsh, append([]string{"--launch-ns", string(b), "--"}, args...)...)
	cmd.Args[0] = "guardsh"
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// fd 3: the stage's "ready" report; fd 4: the approval channel
	cmd.ExtraFiles = []*os.File{readyW}
	if approval != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, approval)
	}
	attr := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS | unix.CLONE_NEWPID, Pdeathsig: syscall.SIGKILL, Setpgid: onStart != nil}
	if spec.UserNS {
		attr.Cloneflags |= unix.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		readyW.Close()
		return 0, false, err
	}
	readyW.Close()
	rd := bufio.NewReaderSize(ready, 4096)
	msg, _ := rd.ReadString('\n')
	if msg != "ok\n" {
		cmd.Wait()
		if msg == "" {
			msg = "the stage ended before it was ready"
		}
		return 0, false, errors.New(strings.TrimSpace(strings.TrimPrefix(msg, "error: ")))
	}
	go func() { // later lines: the agent was stopped
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			if l == "stopped\n" && onStop != nil {
				onStop()
			}
		}
	}()
	if onStart != nil {
		onStart(cmd.Process.Pid)
	}
	return waitChild(cmd, os.Stderr), true, nil
}

// runLaunchNS is the stage (guardsh --launch-ns SPEC -- LAUNCH-ARGS): PID
// 1 of its namespace. It makes the mounts, reports on fd 3, and runs the
// agent as the launcher would, in its own user namespace with the user's
// ids when the stage runs as a user namespace's root.
func runLaunchNS(args []string) int {
	if len(args) < 2 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "guardsh: --launch-ns is the launcher's own stage")
		return 2
	}
	report := os.NewFile(3, "ready")
	if report == nil || os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "guardsh: --launch-ns is the launcher's own stage")
		return 2
	}
	syscall.CloseOnExec(3)
	var spec nsSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		fmt.Fprintf(report, "error: bad stage spec: %v\n", err)
		return 2
	}
	procNote, err := setupNamespace(spec)
	if err != nil {
		fmt.Fprintf(report, "error: %v\n", err)
		return 1
	}
	io.WriteString(report, "ok\n")
	stageReport = report // stays open: reapUntil reports the agent's stops
	if procNote != "" {
		fmt.Fprintf(os.Stderr, "guardsh: --launch: note: %s\n", procNote)
	}
	opts, err := parseLaunchArgs(args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return 2
	}
	var approval *os.File
	if spec.Approval {
		approval = os.NewFile(4, "approval")
		syscall.CloseOnExec(4)
	}
	return launchAgent(opts, spec.Shim, "namespace", approval, func(cmd *exec.Cmd) {
		if spec.UserNS {
			// the agent sees its own ids again, and holds no capability
			// over the stage's mounts
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: spec.Uid, HostID: 0, Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: spec.Gid, HostID: 0, Size: 1}}
			cmd.SysProcAttr.GidMappingsEnableSetgroups = false
		}
	}, nil)
}

// setupNamespace makes the stage's mounts. The first mount makes the whole
// tree private: nothing done here may reach the host's namespace. It
// returns a note when /proc could not be replaced.
func setupNamespace(spec nsSpec) (string, error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return "", fmt.Errorf("making the mount tree private: %v", err)
	}
	bind := func(b nsBind) error {
		if err := unix.Mount(b.Src, b.Dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s on %s: %v", b.Src, b.Dst, err)
		}
		remountReadOnly(b.Dst)
		return nil
	}
	for _, b := range spec.Real {
		if err := bind(b); err != nil {
			return "", err
		}
	}
	for _, b := range spec.Shells {
		if err := bind(b); err != nil {
			return "", err
		}
	}
	self, err := os.Stat(spec.Guardsh)
	if err != nil {
		return "", err
	}
	for _, b := range spec.Shells {
		if fi, err := os.Stat(b.Dst); err != nil || !os.SameFile(fi, self) {
			return "", fmt.Errorf("%s is not guardsh after the bind", b.Dst)
		}
	}
	note := ""
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		note = fmt.Sprintf("no /proc of the agent's own (%v): /proc/PID/root of a process outside reaches the real shells", err)
	}
	return note, nil
}

// remountReadOnly makes the bind mount at p read-only, keeping the flags
// a user namespace may not drop.
func remountReadOnly(p string) {
	var st unix.Statfs_t
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	if unix.Statfs(p, &st) == nil {
		for _, f := range []struct{ st, ms int64 }{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
			if st.Flags&f.st != 0 {
				flags |= uintptr(f.ms)
			}
		}
	}
	unix.Mount("", p, "", flags, "")
}

// watchStops calls onStop each time the child pid is stopped (Ctrl-Z),
// until it ends.
func watchStops(pid int, onStop func()) {
	for {
		var si unix.Siginfo
		if err := unix.Waitid(unix.P_PID, pid, &si, unix.WSTOPPED, nil); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		// si_status, after si_pid and si_uid: the stopping signal
		sig := syscall.Signal(*(*int32)(unsafe.Pointer(uintptr(unsafe.Pointer(&si)) + 24)))
		if sig == syscall.SIGTSTP || sig == syscall.SIGSTOP { // not SIGTTIN/SIGTTOU: see reapUntil
			onStop()
		}
	}
}
