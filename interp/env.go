package interp

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellEnv is the environment a shell starts with: SHLVL goes up by one,
// as in bash.
func shellEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	lvl := 0
	for _, kv := range env {
		if strings.HasPrefix(kv, "_=") {
			continue // $_ is the shell's own (the last argument)
		}
		if v, ok := strings.CutPrefix(kv, "SHLVL="); ok {
			lvl, _ = strconv.Atoi(strings.TrimSpace(v))
			continue
		}
		out = append(out, kv)
	}
	return append(out, "SHLVL="+strconv.Itoa(lvl+1))
}

// bashVersion is what guardsh reports in BASH_VERSION: the bash release
// whose behaviour mvdan's interpreter and guardsh's fixes follow, so that
// scripts take their bash branch.
const bashVersion = "5.2.15(1)-release"

// prelude sets the variables bash sets itself, unexported as in bash.
func (g *Runner) prelude() error {
	self, err := os.Executable()
	if err != nil {
		self = "/bin/bash"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "BASH=%s\n", evalQuote(self))
	fmt.Fprintf(&b, "BASH_VERSION=%s\n", evalQuote(bashVersion))
	mach, ostype := machType()
	fmt.Fprintf(&b, "BASH_VERSINFO=(5 2 15 1 release %s)\n", mach)
	fmt.Fprintf(&b, "MACHTYPE=%s\nHOSTTYPE=%s\nOSTYPE=%s\n", mach, strings.SplitN(mach, "-", 2)[0], ostype)
	if h, err := os.Hostname(); err == nil && g.env.Get("HOSTNAME").String() == "" {
		fmt.Fprintf(&b, "HOSTNAME=%s\n", evalQuote(h))
	}
	b.WriteString("GUARDSH=1\n")
	if !hasEnv(g.cfg.Env, "HOME") {
		// mvdan sets HOME when the environment has none; bash does not
		b.WriteString("unset HOME\n")
	}
	if !g.env.Get("PATH").IsSet() {
		// bash's built-in default, unexported as in bash
		b.WriteString("PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.\n")
	}
	if g.cfg.Interactive && g.env.Get("PS1").String() == "" {
		b.WriteString(`PS1='\s-\v\$ '` + "\n")
	}
	if g.env.Get("PS2").String() == "" {
		b.WriteString("PS2='> '\n")
	}
	if g.env.Get("PS4").String() == "" {
		b.WriteString("PS4='+ '\n")
	}
	b.WriteString(importFuncs(g.cfg.Env)) // bash's exported functions
	f, err := syntax.NewParser().Parse(strings.NewReader(b.String()), "")
	if err != nil {
		return err
	}
	// One Run for all of them: each Run ends by copying every variable
	// (the whole environment) into mvdan's Runner.Vars. A block, not the
	// File: running a File implies an exit (EXIT trap).
	return g.r.Run(context.Background(), &syntax.Stmt{Cmd: &syntax.Block{Stmts: f.Stmts}})
}

// dynEnviron is the base environment of a runner: the process environment
// plus variables guardsh computes when they are read ($! as a real PID).
type dynEnviron struct {
	g    *Runner
	list expand.Environ
}

func newDynEnviron(g *Runner, env []string) *dynEnviron {
	return &dynEnviron{g: g, list: expand.ListEnviron(env...)}
}

func (e *dynEnviron) Get(name string) expand.Variable {
	str := func(s string) expand.Variable {
		return expand.Variable{Set: true, Kind: expand.String, Str: s}
	}
	switch name {
	case "SECONDS":
		return str(strconv.Itoa(int(time.Since(e.g.start) / time.Second)))
	case "BASHPID", pidVar:
		return str(strconv.Itoa(e.g.pid()))
	case "EPOCHSECONDS":
		return str(strconv.FormatInt(time.Now().Unix(), 10))
	case flagsVar:
		flags := "hB"
		if e.g.cfg.Interactive {
			flags = "hiBHs"
			if isTerminal(e.g.cfg.Stdin) {
				flags = "himBHs" // job control needs a terminal
			}
		} else if e.g.dashC {
			flags = "hBc"
		}
		return str(flags)
	case "EPOCHREALTIME":
		now := time.Now()
		return str(fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000))
	}
	if name == "_" {
		return str(e.g.bs.lastArgValue())
	}
	if name == fdLastVar {
		return str(strconv.FormatInt(e.g.fds.last.Load(), 10))
	}
	if name == ppidVar {
		return str(strconv.Itoa(e.g.ppid()))
	}
	if name == bangVar {
		pid := e.g.sh.lastBgPid()
		if pid == "" {
			return expand.Variable{}
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: pid}
	}
	return e.list.Get(name)
}

// Each lists the environment and, as they are now, the computed
// variables: a background subshell (a pipeline element, cmd &) copies the
// environment with Each, and must still see $! and friends.
func (e *dynEnviron) Each(f func(name string, vr expand.Variable) bool) {
	stop := false
	e.list.Each(func(name string, vr expand.Variable) bool {
		if !f(name, vr) {
			stop = true
			return false
		}
		return true
	})
	if stop {
		return
	}
	for _, name := range []string{"SECONDS", "BASHPID", "EPOCHSECONDS", "EPOCHREALTIME", ppidVar, pidVar} {
		if !f(name, e.Get(name)) {
			return
		}
	}
	if pid := e.g.sh.lastBgPidNoWait(); pid != "" {
		f(bangVar, expand.Variable{Set: true, Kind: expand.String, Str: pid})
	}
}

// pid is $$: the process's PID, or for a nested shell (a child process
// in bash) the virtual PID it has in the process table, which kill and
// wait know. Two scripts of one session naming temp files after $$ do
// not collide.
func (g *Runner) pid() int {
	if g.cfg.shared != nil && g.grp != nil && g.grp.vpid != 0 {
		return g.grp.vpid
	}
	return os.Getpid()
}

// ppid is $PPID: the process's parent, or for a nested shell the $$ of
// the shell that started it.
func (g *Runner) ppid() int {
	if g.cfg.shared != nil && g.cfg.parentPid != 0 {
		return g.cfg.parentPid
	}
	return os.Getppid()
}

// machType returns bash's MACHTYPE and OSTYPE for this platform.
func machType() (mach, ostype string) {
	cpu := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "riscv64": "riscv64", "ppc64le": "powerpc64le", "s390x": "s390x"}[runtime.GOARCH]
	if cpu == "" {
		cpu = runtime.GOARCH
	}
	switch runtime.GOOS {
	case "darwin":
		if cpu == "aarch64" {
			cpu = "arm64"
		}
		return cpu + "-apple-darwin", "darwin"
	case "linux":
		vendor := "unknown"
		if cpu == "x86_64" || cpu == "i686" {
			vendor = "pc"
		}
		return cpu + "-" + vendor + "-linux-gnu", "linux-gnu"
	}
	return cpu + "-unknown-" + runtime.GOOS, runtime.GOOS
}

// firstToken is the first shell token of s: an operator or a word.
func firstToken(s string) string {
	for _, op := range []string{";;", "&&", "||", ";", "&", "|", "(", ")", "<", ">"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	end := strings.IndexAny(s, " \t;&|()<>")
	if end < 0 {
		return s
	}
	return s[:end]
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// isTerminal reports whether r is a terminal, without putting it in
// blocking mode (as File.Fd would).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	sc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) })
	return tty
}
