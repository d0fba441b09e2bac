package main

// The admin context (guardsh/admin.go): entered only by the human's flags
// when they start guardsh-agent, never from inside a guardsh session or
// sandbox, by the environment or by a config file.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
)

// deviceList is the repeatable --admin-device flag.
type deviceList []string

func (d *deviceList) String() string { return strings.Join(*d, ",") }

func (d *deviceList) Set(s string) error {
	*d = append(*d, s)
	return nil
}

// adminGrant builds the admin context the flags ask for (nil: none), or
// refuses it inside a session: this process then is a command of one.
func adminGrant(on bool, devices []string, getenv func(string) string) (*guardsh.AdminGrant, error) {
	if !on && len(devices) == 0 {
		return nil, nil
	}
	if why := insideSession(getenv); why != "" {
		return nil, fmt.Errorf("%w (%s)", guardsh.ErrAdminNested, why)
	}
	src := "--admin"
	if len(devices) > 0 {
		src = "--admin-device " + strings.Join(devices, " --admin-device ")
	}
	return guardsh.NewAdminGrant(devices, src)
}

// insideSession says why this process runs inside a guardsh session or
// sandbox ("" if it does not seem to): the agent's and the sandbox's
// markers, and no_new_privs, which every guardsh sandbox sets and no
// process can clear.
func insideSession(getenv func(string) string) string {
	switch {
	case getenv("GUARDSH_AGENT") != "":
		return "GUARDSH_AGENT is set: started by guardsh-agent's shell"
	case getenv(sandbox.EnvRun) != "":
		return sandbox.EnvRun + " is set: inside guardsh's sandbox"
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(l, []byte("NoNewPrivs:")); ok && string(bytes.TrimSpace(v)) == "1" {
				return "no_new_privs is set: inside a sandbox"
			}
		}
	}
	return agentAncestor()
}

// agentAncestor says which ancestor of this process is a guardsh-agent
// ("" if none is, or /proc cannot tell): this very program (the same file)
// or a program named guardsh-agent. A command cannot leave its run's tree:
// the agent is a subreaper, so even an orphan's new parent is the agent.
// Without the sandbox this is what holds when a command removed
// GUARDSH_AGENT or started a renamed copy.
func agentAncestor() string {
	self, _ := os.Executable()
	me, _ := os.Stat(self)
	pid := os.Getppid()
	for range 64 {
		if pid <= 1 {
			return ""
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
			exe = strings.TrimSuffix(exe, " (deleted)")
			fi, err := os.Stat(exe)
			if me != nil && err == nil && os.SameFile(me, fi) || filepath.Base(exe) == "guardsh-agent" {
				return fmt.Sprintf("started under guardsh-agent (pid %d, %s)", pid, exe)
			}
		}
		pid = parentOf(pid)
	}
	return ""
}

// parentOf is pid's parent from /proc/PID/stat (0 if unknown).
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// adminArgs hands the grant to the sandboxed session process (its argv,
// which no command of the session can change).
func adminArgs(g *guardsh.AdminGrant) []string {
	if g == nil {
		return nil
	}
	out := []string{"--admin-source", g.Source}
	for _, d := range g.Devices {
		out = append(out, "--admin-device", d)
	}
	return out
}
