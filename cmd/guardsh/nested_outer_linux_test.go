//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// outerSeccompEnv makes the test binary, started again, the outer sandbox's
// last step: it installs a seccomp filter like the one Codex CLI puts on
// the commands it runs (no TCP/UDP sockets, no namespaces: EPERM) and
// execs the rest of its arguments.
const outerSeccompEnv = "GUARDSH_TEST_OUTER_SECCOMP"

// TestHelperOuterSeccomp is not a test: it is the helper process above.
func TestHelperOuterSeccomp(t *testing.T) {
	if os.Getenv(outerSeccompEnv) == "" {
		t.Skip("helper process only")
	}
	args := flagArgsAfterDash(os.Args)
	if len(args) == 0 {
		os.Exit(120)
	}
	if err := loadOuterSeccomp(); err != nil {
		os.Stderr.WriteString("outer seccomp: " + err.Error() + "\n")
		os.Exit(121)
	}
	env := strings.Split(os.Getenv(outerSeccompEnv), "\x1f")
	err := syscall.Exec(args[0], args, env)
	os.Stderr.WriteString("exec: " + err.Error() + "\n")
	os.Exit(122)
}

func flagArgsAfterDash(args []string) []string {
	for i, a := range args {
		if a == "--" {
			return args[i+1:]
		}
	}
	return nil
}

// loadOuterSeccomp installs Codex's kind of filter on this process.
func loadOuterSeccomp() error {
	const (
		allow = 0x7fff0000
		errno = 0x00050000
		nsFl  = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP
	)
	ins := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // nr
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 5},
		bpf.LoadAbsolute{Off: 16, Size: 4}, // domain
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 1},
		bpf.RetConstant{Val: allow},
		bpf.RetConstant{Val: errno | uint32(unix.EPERM)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_UNSHARE, SkipFalse: 1},
		bpf.RetConstant{Val: errno | uint32(unix.EPERM)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipFalse: 1},
		bpf.RetConstant{Val: errno | uint32(unix.ENOSYS)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 3},
		bpf.LoadAbsolute{Off: 16, Size: 4}, // flags
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFl, SkipFalse: 1},
		bpf.RetConstant{Val: errno | uint32(unix.EPERM)},
		bpf.RetConstant{Val: allow},
	}
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return e
	}
	return nil
}

// TestNestedInCodexSandbox: guardsh started inside a sandbox like the one
// Codex CLI runs its commands in — bubblewrap with / (and /tmp) read-only
// and the project writable, and a seccomp filter that refuses TCP/UDP
// sockets and namespaces with EPERM — finds the level it can stack there
// (Landlock + its own seccomp, no namespaces), says it, runs the commands
// confined, and never answers "no sandbox backend". Codex's own read-only
// mode (the project read-only too) runs read-only commands.
func TestNestedInCodexSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root (CI does)")
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bwrap not installed")
	}
	if b, err := exec.Command(bw, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "/bin/true").CombinedOutput(); err != nil {
		t.Skipf("bubblewrap cannot run here: %v %s", err, b)
	}
	f := newFixture(t)
	cache := filepath.Join(f.base, "cache")
	os.MkdirAll(cache, 0o755)
	env := f.env("")
	for i, e := range env {
		if strings.HasPrefix(e, "GUARDSH_SANDBOX=") {
			env[i] = "GUARDSH_SANDBOX=auto"
		}
	}
	env = append(env, "GUARDSH_MODE=auto", "OUT="+f.outside)
	// A probe result cached outside (the full level) must not be taken
	// for the nested environment, where that level cannot start.
	if _, stderr, code := f.runArgs(t, env, "-c", "true"); code != 0 {
		t.Fatalf("guardsh outside the outer sandbox: exit %d\n%s", code, stderr)
	}
	script := `echo "level: $GUARDSH_SANDBOX_RUN"; cat file.txt; touch made && echo made; touch "$OUT/nested-escape"; echo "outside rc=$?"`
	for _, tc := range []struct {
		name      string
		writable  bool // the project: Codex's workspace-write; else read-only
		wantMade  bool
		extraBind []string
	}{
		{"workspace-write", true, true, nil},
		{"read-only", false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--ro-bind", "/", "/", "--bind", f.outside, f.outside, "--bind", cache, cache}
			if tc.writable {
				args = append(args, "--bind", f.project, f.project)
			}
			args = append(args, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "--chdir", f.project,
				os.Args[0], "-test.run=^TestHelperOuterSeccomp$", "--", f.bin, "-c", script)
			cmd := exec.Command(bw, args...)
			cmd.Env = append(os.Environ(), outerSeccompEnv+"="+strings.Join(env, "\x1f"))
			out, err := cmd.CombinedOutput()
			s := string(out)
			t.Logf("%v:\n%s", err, s)
			if strings.Contains(s, "no sandbox backend") || strings.Contains(s, "read-only file system: ") && strings.Contains(s, "mkdir /tmp") {
				t.Fatalf("guardsh did not nest:\n%s", s)
			}
			if !strings.Contains(s, "level: container") || !strings.Contains(s, "nested in an outer sandbox") || !strings.Contains(s, "data") {
				t.Errorf("the level reached is not named, or the command did not run:\n%s", s)
			}
			if got := strings.Contains(s, "\nmade\n"); got != tc.wantMade {
				t.Errorf("write inside the project worked = %v, want %v:\n%s", got, tc.wantMade, s)
			}
			if strings.Contains(s, "outside rc=0") {
				t.Errorf("wrote outside (writable in the outer sandbox) from inside guardsh's:\n%s", s)
			}
			if _, err := os.Lstat(filepath.Join(f.outside, "nested-escape")); err == nil {
				t.Error("a file appeared outside")
			}
		})
	}
}
