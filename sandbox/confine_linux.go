//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// minLandlockABI is the oldest Landlock ABI guardsh uses: ABI 2 brings the
// "refer" right, without which mv inside the project fails and go-landlock's
// best-effort mode would silently enforce nothing.
const minLandlockABI = 2

// LandlockABI returns the kernel's Landlock ABI version, 0 if none.
func LandlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// confine applies the sandbox to the calling OS thread, which it locks
// for good: the thread must either execve (the stage: other threads of a Go
// process are not covered by the per-thread parts; execve ends them) or
// start the interpreter and end (startFromThread). Order: read-only mounts
// (while capabilities are still there), no_new_privs, Landlock,
// capabilities, seccomp; tsync puts the seccomp filter on every thread of
// the process too (the stage), which must not happen on a thread of the
// privileged side. It returns the value of EnvNet for the interpreter
// ("" when the network is allowed).
func confine(spec stageSpec, tsync bool) (string, error) {
	runtime.LockOSThread() // never unlocked: the thread execs or exits
	c := spec.Config
	if spec.MountNS {
		if err := protectMounts(c); err != nil {
			return "", err
		}
	}
	// A private network namespace with loopback, while the capabilities
	// that make one are still there (netns_linux.go).
	loopback, net := false, ""
	if !c.Network {
		why := "turned off by GUARDSH_SANDBOX_NETNS=0"
		if !c.NoLoopback {
			loopback, why = privateLoopback(spec.HostNetNS)
		}
		if loopback {
			net = "loopback"
		} else {
			net = "off: " + why
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return "", fmt.Errorf("no_new_privs: %w", err)
	}
	abi := LandlockABI()
	if spec.Landlock {
		if err := restrictLandlock(c, abi, loopback); err != nil {
			return "", err
		}
	} else if abi >= 6 {
		// Under bubblewrap: Landlock scopes still keep signals and abstract
		// sockets inside the sandbox, at no cost.
		cfg := landlock.Config{Scoped: landlock.V11.Scoped}.BestEffort()
		if err := restrictRules(cfg); err != nil {
			return "", err
		}
	}
	if err := dropCaps(); err != nil {
		return "", err
	}
	if !seccompSupported {
		return "", fmt.Errorf("seccomp: no filter for %s", runtime.GOARCH)
	}
	prog, err := seccompProgram(c, UnixSocketsAllowed(c, spec.Landlock, abi), loopback)
	if err != nil {
		return "", err
	}
	flags := uintptr(0)
	if tsync {
		flags = unix.SECCOMP_FILTER_FLAG_TSYNC
	}
	return net, loadSeccompFlags(prog, flags)
}

// UnixSocketsAllowed says whether confined processes may create AF_UNIX
// sockets: only where something restricts connect(2) by path (Landlock ABI
// 9+), or when allowed by configuration. Read-only mounts do not stop a
// connect to a socket file, so bubblewrap alone does not count.
func UnixSocketsAllowed(c Config, landlockOn bool, abi int) bool {
	return c.Unix || c.Network || landlockOn && abi >= 9
}

// restrictLandlock builds and enforces the Landlock ruleset for c on the
// calling thread. loopback says the thread is in a private network
// namespace whose only interface is lo: TCP there is left to the namespace.
func restrictLandlock(c Config, abi int, loopback bool) error {
	if abi < minLandlockABI {
		return landlockMissing(abi)
	}
	cfg := landlock.V11.BestEffort()
	if c.Network || loopback {
		cfg.HandledAccessNet = 0
	}
	// A writable root that is a regular file (Config.Writable may name
	// files) gets the file rights alone: Landlock refuses directory rights
	// on a file.
	var dirs, files []string
	for _, r := range c.WritableRoots() {
		if fi, err := os.Stat(r); err == nil && fi.Mode().IsRegular() {
			files = append(files, r)
		} else {
			dirs = append(dirs, r)
		}
	}
	rw := landlock.RWDirs(dirs...).WithRefer().IgnoreIfMissing()
	if abi >= 9 {
		rw = rw.WithResolveUnix()
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		rw,
		landlock.RWFiles(files...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
			"/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if c.SharedTmp {
		rules = append(rules, landlock.RWDirs("/dev/shm").IgnoreIfMissing())
	}
	return restrictRules(cfg, rules...)
}

func restrictRules(cfg landlock.Config, rules ...landlock.Rule) error {
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock: nothing to enforce: %w", ErrUnavailable)
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: restrict_self: %w", err)
	}
	return nil
}

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective capability sets of the calling thread and locks root's special
// treatment off, so nothing executed later regains a capability.
func dropCaps() error {
	// Best effort where we lack CAP_SETPCAP (not root): then the sets are
	// already empty, which is checked below.
	_ = unix.Prctl(unix.PR_SET_SECUREBITS, 0x2f /* NOROOT|NOROOT_LOCKED|NO_SETUID_FIXUP|..._LOCKED|KEEP_CAPS_LOCKED */, 0, 0, 0)
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return fmt.Errorf("capabilities still held after drop")
		}
	}
	return nil
}

// protectMounts runs in a fresh mount namespace. It stops propagation to
// the host, makes every mount read-only except the writable roots (bound
// onto themselves first), so that what Landlock cannot restrict — chmod,
// utimes, extended attributes on files outside — fails with EROFS too,
// and turns each protected path inside a writable root into a read-only
// bind mount of itself. The .git directory becomes a mount point of its own
// so that it cannot be renamed away and replaced; mount points cannot be
// unlinked or renamed (EBUSY).
func protectMounts(c Config) error {
	// The working directory still points into the mounts as they were:
	// enter it again afterwards, through the new ones, or relative paths
	// would reach the read-only root mount.
	wd, wdErr := os.Getwd()
	defer func() {
		if wdErr == nil {
			unix.Chdir(wd)
		}
	}()
	mounts, err := mountPoints()
	if err != nil {
		return fmt.Errorf("mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("mount namespace: make private: %w", err)
	}
	writable := c.WritableRoots()
	keep := append([]string{}, writable...)
	keep = append(keep, "/dev/pts")
	if c.SharedTmp {
		keep = append(keep, "/dev/shm")
	}
	for _, r := range keep {
		if _, err := os.Stat(r); err != nil {
			continue
		}
		if err := bindSelf(r, false); err != nil {
			return err
		}
	}
	// mounts is sorted, parents first: a mount whose whole subtree lies
	// outside the writable roots (/proc, /sys and its cgroup mounts) is
	// made read-only with everything below it by one recursive
	// mount_setattr; the others (/, /dev) one by one.
	done := ""
	for _, m := range mounts {
		if done != "" && within(m, done) {
			continue // made read-only with its parent
		}
		inside, holds := false, false
		for _, r := range keep {
			inside = inside || within(m, r)
			holds = holds || within(r, m)
		}
		if inside {
			continue
		}
		if !holds && readOnlyTree(m) {
			done = m
			continue
		}
		// The root must become read-only; another mount that refuses
		// (a FUSE or network mount, a mount point we may not reach) stays
		// as it is: Landlock still refuses writing its files, only their
		// metadata (chmod, times) stays changeable. The probe lists such
		// mounts.
		if err := remountReadOnly(m); err != nil && m == "/" {
			return fmt.Errorf("read-only remount /: %w", err)
		}
	}
	if g := c.GitDir(); g != "" {
		if err := bindSelf(g, false); err != nil {
			return err
		}
	}
	for _, a := range c.ProtectedAncestors() {
		if err := bindSelf(a, false); err != nil {
			return err
		}
	}
	for _, p := range c.ProtectedInside() {
		if err := bindSelf(p, true); err != nil {
			return err
		}
	}
	return nil
}

// mountPoints lists the mount points of this mount namespace (autofs
// trigger points left out), parents first.
func mountPoints() ([]string, error) {
	b, err := readMountinfo()
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		m := unescapeMountinfo(f[4])
		if i := strings.Index(line, " - "); i >= 0 && strings.HasPrefix(line[i+3:], "autofs ") {
			continue // touching it would trigger the automounter
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// readMountinfo reads the mount table of the calling thread's mount
// namespace: a thread confined by startFromThread has one of its own,
// which /proc/self (the thread group leader's) does not show.
func readMountinfo() ([]byte, error) {
	b, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		b, err = os.ReadFile("/proc/self/mountinfo")
	}
	return b, err
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) of
// /proc/self/mountinfo.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readOnlyTree makes the mount at m and every mount below it read-only
// in this namespace, in one system call (mount_setattr, Linux 5.12):
// setting the flag is never refused for a locked mount, and the call
// changes all of them or none. False when it did not (an older kernel):
// the caller then remounts them one by one.
func readOnlyTree(m string) bool {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	return unix.MountSetattr(unix.AT_FDCWD, m, unix.AT_RECURSIVE|unix.AT_NO_AUTOMOUNT, &attr) == nil
}

func bindSelf(p string, readOnly bool) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", p, err)
	}
	if !readOnly {
		return nil
	}
	if err := remountReadOnly(p); err != nil {
		return fmt.Errorf("read-only remount %s: %w", p, err)
	}
	return nil
}

// remountReadOnly makes the mount at p read-only in this namespace,
// keeping the flags the kernel locks on mounts from a more privileged
// namespace.
func remountReadOnly(p string) error {
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err == nil {
		// Keep the flags the kernel locks on mounts from a less
		// privileged namespace.
		for _, f := range []struct{ st, ms uintptr }{
			{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
			{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
			{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
		} {
			if uintptr(st.Flags)&f.st != 0 {
				flags |= f.ms
			}
		}
	}
	return unix.Mount("", p, "", flags, "")
}

// Status is what /proc/self/status says about the calling process's
// confinement.
type Status struct {
	NoNewPrivs bool
	Seccomp    int // 0 off, 1 strict, 2 filter
	CapEff     uint64
	CapPrm     uint64
	CapBnd     uint64
}

// SelfStatus reads the confinement fields of /proc/self/status.
func SelfStatus() (Status, error) {
	// The calling thread's: credentials and the seccomp filter are per
	// thread, and a confined thread need not be the thread group's leader
	// (a test binary's stage runs on whichever thread TestMain has), whose
	// state /proc/self/status shows.
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		b, err = os.ReadFile("/proc/self/status")
	}
	if err != nil {
		return Status{}, err
	}
	var s Status
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			s.NoNewPrivs = v == "1"
		case "Seccomp":
			s.Seccomp, _ = strconv.Atoi(v)
		case "CapEff":
			s.CapEff, _ = strconv.ParseUint(v, 16, 64)
		case "CapPrm":
			s.CapPrm, _ = strconv.ParseUint(v, 16, 64)
		case "CapBnd":
			s.CapBnd, _ = strconv.ParseUint(v, 16, 64)
		}
	}
	return s, nil
}

// Confined reports whether the calling process carries guardsh's
// confinement marks: no_new_privs, a seccomp filter, no capabilities.
func (s Status) Confined() bool {
	return s.NoNewPrivs && s.Seccomp == 2 && s.CapEff == 0 && s.CapPrm == 0
}

// writableMounts lists the mounts of this process that are writable and
// lie outside every writable root of c.
func writableMounts(c Config) []string {
	b, err := readMountinfo()
	if err != nil {
		return []string{"(mountinfo unreadable)"}
	}
	// Only the last mount at a path counts: the ones under it are hidden.
	top := map[string]bool{}
	var order []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || strings.Contains(line, " - autofs ") {
			continue
		}
		m := unescapeMountinfo(f[4])
		if _, seen := top[m]; !seen {
			order = append(order, m)
		}
		top[m] = strings.Contains(","+f[5]+",", ",rw,")
	}
	var out []string
	for _, m := range order {
		if !top[m] {
			continue
		}
		inside := within(m, "/dev/pts") || within(m, "/dev/shm") && c.SharedTmp
		for _, r := range c.WritableRoots() {
			inside = inside || within(m, r)
		}
		if !inside {
			out = append(out, m)
		}
	}
	return out
}

// Harden is called by the confined interpreter: it makes the process
// non-dumpable, so that the commands it starts (same user, no
// capabilities) cannot open its /proc/<pid>/mem or attach to it.
func Harden() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
