//go:build linux

package main

// The platforms of docs/containers.md's table, emulated: each row is a
// user namespace (the container's root), a seccomp filter like the
// platform's default profile, the platform's capability set and user, and
// TestPlatformLevels records the level guardsh reaches in each.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/guardsh/guardsh/internal/testenv"
	"github.com/guardsh/guardsh/sandbox"
)

// dockerCaps is Docker's (and containerd's) default capability set for a
// container (moby oci/caps/defaults.go; containerd oci.WithDefaultCaps).
var dockerCaps = []uintptr{unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FSETID, unix.CAP_FOWNER, unix.CAP_MKNOD,
	unix.CAP_NET_RAW, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETFCAP, unix.CAP_SETPCAP, unix.CAP_NET_BIND_SERVICE,
	unix.CAP_SYS_CHROOT, unix.CAP_KILL, unix.CAP_AUDIT_WRITE}

// platformSeccomp names a seccomp filter of the emulation.
type platformSeccomp int

const (
	seccompNone platformSeccomp = iota // Unconfined
	// seccompDocker: what Docker's default profile (moby
	// profiles/seccomp/default.json, which containerd's RuntimeDefault
	// copies) does to a container without CAP_SYS_ADMIN, for the calls
	// that decide guardsh's level: unshare, setns, mount and the new mount
	// API, pivot_root refused (EPERM); clone with a namespace flag refused;
	// clone3 ENOSYS (so that libc falls back to clone); landlock_* allowed
	// (since Docker 23.0, moby#43199; containerd 1.6, containerd#6494).
	seccompDocker
	// seccompDockerOld: the same profile before Landlock was added
	// (Docker 20.10 and older): landlock_* refused as unknown calls.
	seccompDockerOld
)

// platformRow is one emulated platform.
type platformRow struct {
	name    string // as docs/containers.md's table names it
	seccomp platformSeccomp
	caps    []uintptr // the bounding set; nil: all
	uid     int       // the container's user
	nnp     bool      // no_new_privs (allowPrivilegeEscalation: false)
	level   string    // the level guardsh must reach: the start of --doctor's result
}

var platformRows = []platformRow{
	{name: "Docker, default (`docker run`)", seccomp: seccompDocker, caps: dockerCaps, level: "container: landlock+seccomp"},
	{name: "Docker before 23.0, default", seccomp: seccompDockerOld, caps: dockerCaps, level: "no backend verified"},
	{name: "Docker, `--security-opt seccomp=unconfined`", seccomp: seccompNone, caps: dockerCaps, level: "landlock+seccomp"},
	{name: "Docker, `--privileged`", seccomp: seccompNone, level: "landlock+seccomp"},
	{name: "Kubernetes, default pod (no seccompProfile: Unconfined)", seccomp: seccompNone, caps: dockerCaps, level: "landlock+seccomp"},
	{name: "Kubernetes, `seccompProfile: RuntimeDefault`", seccomp: seccompDocker, caps: dockerCaps, level: "container: landlock+seccomp"},
	{name: "Kubernetes, restricted pod security", seccomp: seccompDocker, caps: []uintptr{}, uid: 1000, nnp: true, level: "container: landlock+seccomp"},
	{name: "GitHub Actions, hosted runner, as `runner` after the recipe's sysctl step", seccomp: seccompNone, uid: 1000, level: "landlock+seccomp"},
	{name: "GitHub Actions, hosted runner, with `sudo`", seccomp: seccompNone, level: "landlock+seccomp"},
}

const platformEnv = "GUARDSH_TEST_PLATFORM"

// The test binary re-executed as a row's first process: it confines
// itself as the row says, then becomes guardsh.
func init() {
	name := os.Getenv(platformEnv)
	if name == "" {
		return
	}
	for _, r := range platformRows {
		if r.name == name {
			err := r.enter(os.Args[1:])
			fmt.Fprintf(os.Stderr, "platform %s: %v\n", name, err)
			os.Exit(125)
		}
	}
	fmt.Fprintf(os.Stderr, "platform %q: no such row\n", name)
	os.Exit(125)
}

// enter runs in the row's user namespace as its root with every
// capability: it installs the seccomp filter, narrows the bounding set,
// changes user, sets no_new_privs and executes argv. Credentials, the
// bounding set and a filter installed with prctl belong to the thread,
// which is the one that executes argv.
func (r platformRow) enter(argv []string) error {
	runtime.LockOSThread()
	if r.seccomp != seccompNone {
		if err := loadPlatformSeccomp(r.seccomp); err != nil {
			return fmt.Errorf("seccomp: %v", err)
		}
	}
	if r.caps != nil {
		keep := map[uintptr]bool{}
		for _, c := range r.caps {
			keep[c] = true
		}
		b, _ := os.ReadFile("/proc/sys/kernel/cap_last_cap")
		last, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return fmt.Errorf("cap_last_cap: %v", err)
		}
		for c := uintptr(0); c <= uintptr(last); c++ {
			if !keep[c] {
				if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
					return fmt.Errorf("drop capability %d: %v", c, err)
				}
			}
		}
	}
	if r.uid != 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return err
		}
		if err := syscall.Setresgid(r.uid, r.uid, r.uid); err != nil {
			return err
		}
		if err := syscall.Setresuid(r.uid, r.uid, r.uid); err != nil {
			return err
		}
	}
	if r.nnp {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return err
		}
	}
	env := slicesDeleteEnv(os.Environ(), platformEnv)
	return syscall.Exec(argv[0], argv, env)
}

func slicesDeleteEnv(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// loadPlatformSeccomp installs the filter s names on the calling thread.
func loadPlatformSeccomp(s platformSeccomp) error {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = 0xC000003E // AUDIT_ARCH_X86_64
	case "arm64":
		arch = 0xC00000B7 // AUDIT_ARCH_AARCH64
	default:
		return fmt.Errorf("no emulation for %s", runtime.GOARCH)
	}
	const allow, errno = 0x7fff0000, 0x00050000
	eperm := []uintptr{unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT,
		unix.SYS_MOUNT_SETATTR, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_FSCONFIG}
	if s == seccompDockerOld {
		eperm = append(eperm, unix.SYS_LANDLOCK_CREATE_RULESET, unix.SYS_LANDLOCK_ADD_RULE, unix.SYS_LANDLOCK_RESTRICT_SELF)
	}
	const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		bpf.RetConstant{Val: errno | uint32(unix.EPERM)},
		bpf.LoadAbsolute{Off: 0, Size: 4},
	}
	for _, nr := range eperm {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(nr), SkipTrue: 1}, bpf.RetConstant{Val: errno | uint32(unix.EPERM)})
	}
	prog = append(prog,
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE3, SkipTrue: 1},
		bpf.RetConstant{Val: errno | uint32(unix.ENOSYS)},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE, SkipTrue: 3},
		bpf.LoadAbsolute{Off: 16, Size: 4}, // clone's flags (the low half of argument 0)
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags, SkipFalse: 1},
		bpf.RetConstant{Val: errno | uint32(unix.EPERM)},
		bpf.RetConstant{Val: allow},
	)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	// No no_new_privs here: like runc, the filter is installed by a
	// process with CAP_SYS_ADMIN (in its user namespace).
	if _, _, e := unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}

// TestPlatformLevels: in each emulated platform, guardsh --doctor's result
// is the row's level (exit 0 for a level, 1 for none, with the cause), a
// command run with -c says the same level, and docs/containers.md's table
// gives the row that level as measured.
func TestPlatformLevels(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the emulations map uids 0-65535 into a user namespace: needs root (CI runs as root)")
	}
	if sandbox.LandlockABI() < 2 {
		t.Skip("no Landlock: every row would be none")
	}
	// A world-readable place: the non-root rows run guardsh as uid 1000.
	base, err := os.MkdirTemp("", "guardsh-platform-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	bin := filepath.Join(base, "guardsh")
	copyFile(t, guardshTestBinary(t), bin)
	os.Chmod(bin, 0o755)
	proj := filepath.Join(base, "project")
	os.MkdirAll(proj, 0o755)
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, d := range []string{base, proj} {
		os.Chmod(d, 0o755)
	}
	filepath.Walk(proj, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 1000, 1000) })
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "containers.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range platformRows {
		t.Run(r.name, func(t *testing.T) {
			home := filepath.Join(base, "home-"+strconv.Itoa(len(r.name)))
			os.MkdirAll(home, 0o755)
			os.Chown(home, r.uid, r.uid)
			runArgv := func(args ...string) (string, int) {
				cmd := exec.Command(os.Args[0], args...)
				cmd.Dir = proj
				cmd.Env = []string{platformEnv + "=" + r.name, "HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C",
					"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "GUARDSH_MODE=auto"}
				cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
					UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
					GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}, GidMappingsEnableSetgroups: true}
				out, err := cmd.CombinedOutput()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if code == 125 {
					t.Fatalf("the emulation failed: %s", out)
				}
				return string(out), code
			}
			run := func(args ...string) (string, int) { return runArgv(append([]string{bin}, args...)...) }
			// The emulation is what the row says: user, bounding set,
			// no_new_privs, a filter, and whether a namespace can be made.
			st, _ := runArgv("/bin/sh", "-c", `grep -E '^(Uid|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status; unshare -U true 2>/dev/null; echo "unshare=$?"`)
			var bnd uint64
			for _, c := range r.caps {
				bnd |= 1 << c
			}
			checks := map[string]bool{
				fmt.Sprintf("Uid:\t%d\t", r.uid):   true,
				"NoNewPrivs:\t1":                   r.nnp,
				"Seccomp:\t2":                      r.seccomp != seccompNone,
				"unshare=0":                        r.seccomp == seccompNone,
				fmt.Sprintf("CapBnd:\t%016x", bnd): r.caps != nil,
			}
			for s, want := range checks {
				if strings.Contains(st, s) != want {
					t.Fatalf("the emulation is not the row's: %q present=%v, want %v:\n%s", s, !want, want, st)
				}
			}
			out, code := run("--doctor")
			result := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "  result: ") {
					result = strings.TrimPrefix(l, "  result: ")
				}
			}
			t.Logf("%s: --doctor exit %d, result: %s", r.name, code, result)
			if !strings.HasPrefix(result, r.level) {
				t.Errorf("level %q, want %q\n%s", result, r.level, out)
			}
			cout, ccode := run("-c", `printf 'level=%s\n' "$GUARDSH_SANDBOX_RUN"`)
			t.Logf("-c: exit %d: %s", ccode, strings.TrimSpace(cout[strings.LastIndex(cout, "probe is not cached")+1:]))
			if r.level == "no backend verified" {
				if code != 1 || ccode == 0 || !strings.Contains(cout, "guardsh: no sandbox backend could be verified") {
					t.Errorf("no level: --doctor exit %d (want 1), -c exit %d (want a refusal)\n%s", code, ccode, cout)
				}
				// the refusal names the cause a user can act on, and
				// promises no level it did not reach
				if !strings.Contains(cout, "a seccomp profile refuses Landlock") || strings.Contains(cout, "is used instead") {
					t.Errorf("the refusal does not say that the seccomp profile refuses Landlock, or names a level it did not reach:\n%s", cout)
				}
			} else if code != 0 || ccode != 0 || !strings.Contains(cout, "level="+r.level) {
				t.Errorf("--doctor exit %d, -c exit %d, want 0 and the level %q:\n%s", code, ccode, r.level, cout)
			}
			// docs/containers.md says the same, as measured.
			want := "| " + r.name + " | " + docLevel(r.level) + " (measured"
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/containers.md lacks the row %q", want)
			}
		})
	}
}

// docLevel is how docs/containers.md's table names a level.
func docLevel(result string) string {
	switch result {
	case "container: landlock+seccomp":
		return "container"
	case "landlock+seccomp":
		return "full"
	}
	return "none"
}
