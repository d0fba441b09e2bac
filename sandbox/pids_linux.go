//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// MaxProcs is the process limit of a sandboxed session: every process and
// thread the session's commands start counts. High enough for make -j,
// go test ./..., npm and a browser test runner; low enough that a fork
// bomb stops long before the machine does. GUARDSH_SANDBOX_PROCS may set
// a lower one.
const MaxProcs = 4096

// sessionMaxProcs is MaxProcs, or the lower GUARDSH_SANDBOX_PROCS.
func sessionMaxProcs() int {
	if n, err := strconv.Atoi(os.Getenv("GUARDSH_SANDBOX_PROCS")); err == nil && n > 0 && n < MaxProcs {
		return n
	}
	return MaxProcs
}

// A session's process limit is, in order of preference:
//   - a cgroup v2 of its own with pids.max, where the pids controller can
//     be delegated to a child of guardsh's cgroup (the interpreter is
//     created inside it: clone3's CLONE_INTO_CGROUP, no window);
//   - a cgroup of its own in the v1 pids hierarchy (the privileged side
//     joins it only while it forks the interpreter);
//   - RLIMIT_NPROC: the user's processes now plus MaxProcs. It counts all
//     the user's processes, not the session's alone, and root ignores it.
// Which one applies is in the session's description and in --doctor.

// procLimit is a session's process limit as set up.
type procLimit struct {
	kind string // "cgroup2", "cgroup1", "rlimit", "none"
	max  int
	dir  string // the cgroup's directory (cgroup kinds)
	fd   int    // cgroup2: the open directory for CLONE_INTO_CGROUP
	why  string // why a stronger kind was not available
}

// Describe says what limits the session's processes, for --doctor.
func (l *procLimit) Describe() string {
	switch l.kind {
	case "cgroup2":
		return fmt.Sprintf("cgroup v2 pids.max %d (%s)", l.max, l.dir)
	case "cgroup1":
		return fmt.Sprintf("cgroup v1 pids.max %d (%s)", l.max, l.dir)
	case "rlimit":
		return fmt.Sprintf("RLIMIT_NPROC %d for the user's processes (no pids cgroup: %s)", l.max, l.why)
	}
	return "none: " + l.why
}

// cgroupPaths reads /proc/self/cgroup: the v2 path ("0::/x") and the v1
// pids hierarchy's path.
func cgroupPaths() (v2, v1pids string, ok2, ok1 bool) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2, ok2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1pids, ok1 = parts[2], true
			}
		}
	}
	return
}

// mountOf finds the mount point of a cgroup file system: fstype cgroup2,
// or cgroup with option opt.
func mountOf(fstype, opt string) string {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != fstype {
			continue
		}
		if opt == "" || strings.Contains(","+f[3]+",", ","+opt+",") {
			return unescapeMountinfo(f[1])
		}
	}
	return ""
}

// newProcLimit sets up the process limit for one session.
func newProcLimit(max int) *procLimit {
	v2, v1, ok2, ok1 := cgroupPaths()
	var whys []string
	name := "guardsh-" + strconv.Itoa(os.Getpid())
	if ok2 {
		if m := mountOf("cgroup2", ""); m != "" {
			parent := filepath.Join(m, filepath.FromSlash(v2))
			l, err := cgroup2Limit(parent, name, max)
			if err == nil {
				return l
			}
			whys = append(whys, "cgroup v2: "+err.Error())
		}
	}
	if ok1 {
		if m := mountOf("cgroup", "pids"); m != "" {
			dir := filepath.Join(m, filepath.FromSlash(v1), name)
			sweep(filepath.Dir(dir))
			if err := os.Mkdir(dir, 0o755); err == nil || os.IsExist(err) {
				if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err == nil {
					return &procLimit{kind: "cgroup1", max: max, dir: dir, fd: -1}
				} else {
					os.Remove(dir)
					whys = append(whys, "cgroup v1: "+err.Error())
				}
			} else {
				whys = append(whys, "cgroup v1: "+err.Error())
			}
		}
	}
	if len(whys) == 0 {
		whys = append(whys, "no pids controller")
	}
	why := strings.Join(whys, "; ")
	if os.Geteuid() == 0 {
		return &procLimit{kind: "none", why: why + "; RLIMIT_NPROC does not bind root", fd: -1}
	}
	return &procLimit{kind: "rlimit", max: userProcs() + max, why: why, fd: -1}
}

// cgroup2Limit makes parent/name with pids.max, enabling the pids
// controller for parent's children if it is not yet.
func cgroup2Limit(parent, name string, max int) (*procLimit, error) {
	ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, err
	}
	if !strings.Contains(" "+strings.TrimSpace(string(ctl))+" ", " pids ") {
		return nil, fmt.Errorf("the pids controller is not delegated to %s", parent)
	}
	sub, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if !strings.Contains(" "+strings.TrimSpace(string(sub))+" ", " pids ") {
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0); err != nil {
			return nil, fmt.Errorf("enable pids for %s's children: %w", parent, err)
		}
	}
	sweep(parent)
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		os.Remove(dir)
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &procLimit{kind: "cgroup2", max: max, dir: dir, fd: fd}, nil
}

// sweep removes the empty session cgroups of guardsh processes that are
// gone (killed before they could remove theirs).
func sweep(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		pid, ok := strings.CutPrefix(e.Name(), "guardsh-")
		if !ok || !e.IsDir() {
			continue
		}
		if n, err := strconv.Atoi(pid); err == nil && unix.Kill(n, 0) == unix.ESRCH {
			os.Remove(filepath.Join(parent, e.Name())) // fails while not empty
		}
	}
}

// userProcs counts the processes of this user.
func userProcs() int {
	ents, _ := os.ReadDir("/proc")
	uid := os.Getuid()
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == uid {
			n++
		}
	}
	return n
}

// start starts cmd (start is its Start, attr its SysProcAttr) within the
// limit: created inside the cgroup (v2),
// forked while the privileged side is in it (v1), or with RLIMIT_NPROC
// set by the stage (spec.NProc).
func (l *procLimit) start(start func() error, attr *syscall.SysProcAttr) error {
	switch l.kind {
	case "cgroup2":
		attr.UseCgroupFD = true
		attr.CgroupFD = l.fd
		return start()
	case "cgroup1":
		procs := filepath.Join(l.dir, "cgroup.procs")
		back := filepath.Join(filepath.Dir(l.dir), "cgroup.procs")
		self := []byte(strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(procs, self, 0); err != nil {
			return fmt.Errorf("join the session's pids cgroup: %w", err)
		}
		err := start()
		if e := os.WriteFile(back, self, 0); e != nil && err == nil {
			err = fmt.Errorf("leave the session's pids cgroup: %w", e)
		}
		return err
	}
	return start()
}

// close removes the session's cgroup once its processes are gone.
func (l *procLimit) close() {
	if l == nil {
		return
	}
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
	if l.dir != "" {
		os.Remove(l.dir)
	}
}

// setNProc sets RLIMIT_NPROC to n (never above the hard limit).
func setNProc(n int) error {
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &cur); err != nil {
		return err
	}
	v := uint64(n)
	if cur.Max != unix.RLIM_INFINITY && v > cur.Max {
		v = cur.Max
	}
	return unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: v, Max: v})
}

// DescribeProcLimit says what would limit a session's processes here
// (for --doctor): it sets the limit up as a session would, and removes it.
func DescribeProcLimit() string {
	l := newProcLimit(sessionMaxProcs())
	defer l.close()
	return l.Describe()
}

// startCmd starts cmd, a session's stage built from spec, within l.
func (l *procLimit) startCmd(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	err := l.start(cmd.Start, cmd.SysProcAttr)
	if l.fd >= 0 {
		unix.Close(l.fd) // the child is created in it; the directory stays until close
		l.fd = -1
	}
	return err
}
