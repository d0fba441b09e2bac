//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Starting the interpreter from a confined thread (docs/sandbox.md,
// "How the interpreter is started"). Where no user namespace is needed —
// the container level, and the full level when the privileged side holds
// CAP_SYS_ADMIN — the privileged side confines one OS thread of its own
// (a fresh goroutine locked to its thread: mount and network namespace,
// no_new_privs, Landlock, capabilities, seccomp, all of them per thread)
// and starts the interpreter from that thread, so that the interpreter
// inherits the confinement at its birth and is the only further process
// start. The goroutine then returns without unlocking, and the Go runtime
// ends the thread: it never runs anything else. The confining stage (a
// second guardsh start) remains for the other cases: without
// CAP_SYS_ADMIN a mount namespace comes with a user namespace, which a
// multi-threaded process cannot enter.

// enterSpec is what a confined interpreter does first (Stage): close the
// descriptors not passed on purpose, wait for the go-ahead, lower its
// process limit.
type enterSpec struct {
	KeepFDs int // descriptors passed on purpose, from 3
	GateFD  int // the gate's read end, 0 for none
	NProc   int // RLIMIT_NPROC to set, 0 for none
}

// encodeEnter writes s as three decimal numbers, "KEEP,GATE,NPROC" (no
// JSON: decoding it would cost the interpreter's start encoding/json's
// reflection caches).
func encodeEnter(s enterSpec) string {
	return envEnter + "=" + strconv.Itoa(s.KeepFDs) + "," + strconv.Itoa(s.GateFD) + "," + strconv.Itoa(s.NProc)
}

// decodeEnter reads what encodeEnter wrote.
func decodeEnter(v string) (enterSpec, error) {
	f := strings.Split(v, ",")
	if len(f) != 3 {
		return enterSpec{}, fmt.Errorf("%q: want KEEP,GATE,NPROC", v)
	}
	var n [3]int
	for i, x := range f {
		k, err := strconv.Atoi(x)
		if err != nil || k < 0 {
			return enterSpec{}, fmt.Errorf("%q: want KEEP,GATE,NPROC", v)
		}
		n[i] = k
	}
	return enterSpec{KeepFDs: n[0], GateFD: n[1], NProc: n[2]}, nil
}

// enter is Stage's part for an interpreter started from a confined thread:
// it is confined already; what remains is what the stage did for it
// before the exec. It returns so that the process goes on as the
// interpreter (which checks its confinement itself: Inherited).
func enter(v string) {
	spec, err := decodeEnter(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: bad start request: %v\n", err)
		os.Exit(126)
	}
	closeStrayFDs(3 + spec.KeepFDs)
	if spec.GateFD > 0 {
		waitGate(spec.GateFD)
	}
	if spec.NProc > 0 {
		if err := setNProc(spec.NProc); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: process limit: %v\n", err)
			os.Exit(126)
		}
	}
}

// threadStartable reports whether backend's confinement can be built on
// one thread of this process: no user namespace is needed (the container
// level; the full level with CAP_SYS_ADMIN), and the switch
// GUARDSH_SANDBOX_STAGE_ALWAYS=1 (tests of the stage) is not set.
func threadStartable(backend string) bool {
	if os.Getenv("GUARDSH_SANDBOX_STAGE_ALWAYS") == "1" {
		return false
	}
	switch backend {
	case BackendContainer:
		return true
	case BackendLandlock:
		return haveCapSysAdmin()
	}
	return false
}

// startFromThread confines a fresh OS thread of this process per spec
// and starts cmd from it. The thread is never used again: its goroutine
// ends locked to it, and the Go runtime ends a thread whose locked
// goroutine exits (and never clones new threads from a locked one). The
// network state the interpreter learns by EnvNet is added to cmd.Env.
// Nothing of the confinement reaches the process's other threads: every
// step is per thread (seccomp without TSYNC). It returns the thread's id
// (the thread may still be ending).
func startFromThread(spec stageSpec, cmd *exec.Cmd) (tid int, err error) {
	type result struct {
		tid int
		err error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		tid := unix.Gettid()
		if tid == unix.Getpid() {
			// The main thread: the runtime cannot end it (it would keep it
			// parked, confined, and /proc/self would show its state).
			// Another thread does it, while this one stays locked here.
			t, err := startFromThread(spec, cmd)
			runtime.UnlockOSThread()
			res <- result{t, err}
			return
		}
		res <- result{tid, func() error {
			if spec.MountNS {
				// A mount namespace of this thread's own (its root and
				// working directory are unshared with it).
				if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
					return fmt.Errorf("mount namespace: %w", err)
				}
			}
			net, err := confine(spec, false)
			if err != nil {
				return err
			}
			if net != "" {
				cmd.Env = append(cmd.Env, EnvNet+"="+net)
			}
			return cmd.Start()
		}()}
	}()
	r := <-res
	return r.tid, r.err
}

// startThreaded starts the interpreter for this invocation from a
// confined thread (startFromThread), held at a gate until Release like
// StartGated's stage. The session's temporary directory must exist:
// the confinement is built now.
func startThreaded(backend string, c Config, desc string, env []string, broker *os.File, files map[string]*os.File) (*Session, error) {
	exe, err := executable()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(c.TmpDir); err != nil {
		return nil, fmt.Errorf("session temporary directory: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	extra, env := passFiles(env, broker, files)
	extra = append(extra, r)
	lim := newProcLimit(sessionMaxProcs())
	enterS := enterSpec{KeepFDs: len(extra), GateFD: 2 + len(extra)}
	if lim.kind == "rlimit" {
		enterS.NProc = lim.max
	}
	spec := stageSpec{Config: c, Landlock: true, MountNS: backend == BackendLandlock, HostNetNS: netNSInode()}
	cmd := exec.Command(exe)
	cmd.Args = os.Args
	cmd.Env = append(env, EnvRun+"="+desc, encodeEnter(enterS))
	cmd.ExtraFiles = extra
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	fail := func(err error) (*Session, error) {
		w.Close()
		if cmd.Process != nil {
			cmd.Wait() // it sees its gate closed and exits
		}
		lim.close()
		return nil, err
	}
	if _, err := startFromThread(spec, cmd); err != nil {
		return fail(err)
	}
	// The interpreter waits at its gate, before it runs anything: it is
	// moved into the session's pids cgroup now, with every thread it has
	// (CLONE_INTO_CGROUP needs clone3, which the confined thread's seccomp
	// filter refuses).
	if err := lim.adopt(cmd.Process.Pid); err != nil {
		return fail(err)
	}
	return &Session{Backend: backend, Desc: desc, Cmd: cmd, gate: w, ProcLimit: lim.Describe(), cleanup: lim.close}, nil
}

// adopt moves process pid (all its threads) into the session's pids
// cgroup, if it has one.
func (l *procLimit) adopt(pid int) error {
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
	if l.kind != "cgroup2" && l.kind != "cgroup1" {
		return nil
	}
	if err := os.WriteFile(filepath.Join(l.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move the interpreter into the session's pids cgroup: %w", err)
	}
	return nil
}
