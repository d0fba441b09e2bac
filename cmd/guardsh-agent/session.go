package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/agentloop"
	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// init runs the sandbox's confining stage when this process is one (the
// probe, or the agent's shell session being confined), and the confined
// session itself; neither returns. (In init, not main, so that a test
// binary started as the session is the session too.)
func init() {
	sandbox.Stage()
	if len(os.Args) > 1 && os.Args[1] == sessionArg {
		os.Exit(sessionMain(os.Args[2:]))
	}
}

// sessionArg is the hidden first argument of the agent's confined shell
// session process.
const sessionArg = "__session"

// shellSession is the agent's run_shell session and how to end it.
type shellSession struct {
	shell agentloop.Shell
	desc  string
	close func()
}

// startShell starts the agent's guardsh session: a child process confined
// by the sandbox (Landlock+seccomp or bubblewrap, proven by the probe
// first), speaking the agentloop session protocol. The agent itself stays
// outside: it must reach Ollama. local decides the file tools' accesses
// (same policy, in this process). With the sandbox turned off by its named
// switch the session runs in this process.
// runHome, if set, is the clean environment's HOME: writable in the
// sandbox.
// admin are the session's arguments for the admin context (adminArgs).
func startShell(root string, md guardsh.Mode, policy *guardsh.Policy, local *interp.Runner, env []string, runHome string, admin []string, noSandbox bool, audit *os.File, stderr io.Writer) (*shellSession, error) {
	if why, off := sandboxOff(noSandbox); off {
		fmt.Fprintf(stderr, "guardsh-agent: warning: sandbox %s: the agent's commands run without OS confinement\n", why)
		return &shellSession{shell: localShell{local}, desc: why, close: func() {
			interp.KillDescendants(os.Getpid(), nil, nil, time.Second)
		}}, nil
	}
	tmp, err := os.MkdirTemp("", "guardsh-agent-")
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	c := sandbox.NewConfig(root, tmp, home, os.Getenv)
	env, c = agentCaches(env, c)
	if runHome != "" {
		c.Writable = append(c.Writable, sandbox.Canon(runHome))
	}
	var chosen sandbox.ProbeResult
	var tried []string
	for _, b := range backendsWanted() {
		r := sandbox.Probe(b, c)
		if r.OK {
			chosen = r
			break
		}
		why := r.Err
		for _, ch := range r.Checks {
			if !ch.OK && why == "" {
				why = ch.Name + ": " + ch.Detail
			}
		}
		tried = append(tried, b+": "+why)
	}
	if !chosen.OK {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("no sandbox backend could be verified (%s), so the agent runs no command; see `guardsh --doctor`, or run without OS confinement (recorded in the audit log) with --no-sandbox or GUARDSH_SANDBOX=off", strings.Join(tried, "; "))
	}
	// spawn starts one session process; a session that dies (a command
	// killed it) is replaced by the next one on the next command.
	spawn := func() (*agentloop.RemoteShell, func(), error) {
		reqR, reqW, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		respR, respW, err := os.Pipe()
		if err != nil {
			reqR.Close()
			reqW.Close()
			return nil, nil, err
		}
		// The escalation channel: approved commands that need more than
		// the sandbox run here, decided again by this process.
		broker, clientEnd, err := sandbox.NewBroker(chosen.Backend, c, brokerCheck(local, policy, root, home))
		if err != nil {
			reqR.Close()
			reqW.Close()
			respR.Close()
			respW.Close()
			return nil, nil, err
		}
		broker.Advise = agentBrokerAdvise(root, home) // advisor.go
		broker.Stopping = stoppingCall.Load
		go broker.Serve()
		// sandbox.Start runs this binary again with os.Args: make them the
		// session's.
		saved := os.Args
		os.Args = append([]string{saved[0], sessionArg, "--mode", string(md), "--project", root, "--home", home}, admin...)
		s, err := sandbox.Start(chosen.Backend, c, chosen.Describe(), append(env, "TMPDIR="+tmp), clientEnd,
			map[string]*os.File{"agent-req": reqR, "agent-resp": respW, "audit": audit})
		os.Args = saved
		reqR.Close()
		respW.Close()
		clientEnd.Close()
		if err != nil {
			reqW.Close()
			respR.Close()
			return nil, nil, fmt.Errorf("cannot start the sandboxed shell session: %v", err)
		}
		exited := make(chan struct{})
		go func() { s.Cmd.Wait(); s.Close(); close(exited) }()
		stop := func() {
			reqW.Close() // the session ends when its requests end
			select {
			case <-exited:
			case <-time.After(3 * time.Second):
				s.Cmd.Process.Kill()
				<-exited
			}
			respR.Close()
		}
		rs, err := agentloop.NewRemoteShell(reqW, respR, local.DecideAccess)
		if err != nil {
			stop()
			return nil, nil, err
		}
		return rs, stop, nil
	}
	pre := interp.Descendants(os.Getpid())
	rs, stop, err := spawn()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	sh := &restartingShell{cur: rs, stop: stop, spawn: spawn, access: local.DecideAccess,
		infra: newSince(pre)}
	warnCreated := c.ProtectedMissing()
	return &shellSession{shell: sh, desc: rs.Sandbox, close: func() {
		sh.stop()
		// Whatever is left (the session's adopted orphans came here when
		// it ended: this process is a subreaper too) goes with the agent.
		interp.KillDescendants(os.Getpid(), nil, nil, time.Second)
		os.RemoveAll(tmp)
		for _, p := range warnCreated {
			if _, err := os.Lstat(p); err == nil {
				fmt.Fprintf(stderr, "guardsh-agent: warning: %s was created during the run (it is protected when it exists at the start); review it before git or your shell uses it\n", p)
			}
		}
	}}, nil
}

// stoppingCall is set while the time limit or an interrupt stops the
// running call's processes (restartingShell.RunCommand); the broker
// answers escalated commands ending then as Stopped.
var stoppingCall atomic.Bool

// restartingShell is the sandboxed session, started again when a command
// ended it (kill $$, exec): the model is told that cd and variables are
// gone.
type restartingShell struct {
	cur    *agentloop.RemoteShell
	stop   func()
	spawn  func() (*agentloop.RemoteShell, func(), error)
	access func(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict
	// infra are this process's descendants right after the session
	// started: the session and the sandbox's processes around it, which
	// Reap leaves alone.
	infra map[interp.ProcKey]bool
}

func (r *restartingShell) RunCommand(ctx context.Context, src string, stdout, stderr io.Writer) int {
	if r.cur.Dead() != nil {
		r.stop()
		pre := interp.Descendants(os.Getpid())
		rs, stop, err := r.spawn()
		if err != nil {
			fmt.Fprintf(stderr, "guardsh-agent: the shell session ended and could not be started again: %v\n", err)
			return 126
		}
		r.cur, r.stop = rs, stop
		r.infra = newSince(pre) // not the orphans the old session left here
		fmt.Fprintln(stderr, "guardsh-agent: the previous shell session had ended (a command ended it); this is a new one in the project root: earlier cd and variables are gone")
	}
	// What the command starts and what it leaves behind are this
	// process's descendants: the session's process groups, what left them
	// (setsid: the session is a subreaper and adopts the orphans), and
	// the commands escalated to this process (the broker runs them here).
	// When the time limit passes or the run is cancelled, everything that
	// appeared during the call is stopped: SIGTERM, SIGKILL a second
	// later, again every 200 ms until the session answers. Earlier calls'
	// background jobs were there before and stay.
	before := interp.Descendants(os.Getpid())
	for k := range r.infra {
		delete(before, k) // examined: the command's processes are below the session
	}
	done, killed := make(chan struct{}), make(chan struct{})
	stoppingCall.Store(false)
	stopKill := context.AfterFunc(ctx, func() {
		defer close(killed)
		// Before any process is signalled: an escalated command that ends
		// now is answered Stopped, so the session does not go on to the
		// next command before the cancellation reaches it.
		stoppingCall.Store(true)
		for {
			interp.KillDescendants(os.Getpid(), before, r.infra, time.Second)
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	defer func() {
		close(done)
		if !stopKill() {
			<-killed // nothing of it runs on once the result is back
		}
	}()
	return r.cur.RunCommand(ctx, src, stdout, stderr)
}

func (r *restartingShell) Cwd() string { return r.cur.Cwd() }

// Reap stops every process the commands left running (agentloop.Reaper):
// all of this process's descendants but the session and the sandbox's
// processes around it.
func (r *restartingShell) Reap() []string {
	return stoppedNames(interp.KillDescendants(os.Getpid(), nil, r.infra, time.Second))
}

// localShell is the session without the sandbox: this process's own
// interpreter runs the commands.
type localShell struct{ *interp.Runner }

// Reap stops every process the commands left running (agentloop.Reaper):
// all of this process's descendants.
func (l localShell) Reap() []string {
	return stoppedNames(interp.KillDescendants(os.Getpid(), nil, nil, time.Second))
}

// newSince returns this process's descendants that are not in pre: the
// processes of a session just started.
func newSince(pre map[interp.ProcKey]bool) map[interp.ProcKey]bool {
	now := interp.Descendants(os.Getpid())
	for k := range pre {
		delete(now, k)
	}
	return now
}

func stoppedNames(ps []interp.StoppedProc) []string {
	var out []string
	for _, p := range ps {
		if p.Zombie {
			continue // it had ended already
		}
		out = append(out, fmt.Sprintf("%d (%s)", p.Pid, p.Name))
	}
	return out
}

func (r *restartingShell) DecideAccess(ctx context.Context, a guardsh.Access, tool, diff string) guardsh.Verdict {
	return r.access(ctx, a, tool, diff)
}

// agentCaches gives the sandboxed session a Go build cache it may write:
// the user's own (~/.cache/go-build) is outside the sandbox, and sharing it
// writable would let a confined command plant entries that the user's
// unconfined builds trust. The agent's sessions get their own persistent
// one instead (warm from one run to the next), unless GOCACHE is set.
func agentCaches(env []string, c sandbox.Config) ([]string, sandbox.Config) {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOCACHE="); ok && v != "" {
			return env, c
		}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return env, c
	}
	dir := filepath.Join(base, "guardsh", "agent-go-build")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return env, c
	}
	c.Writable = append(c.Writable, sandbox.Canon(dir))
	return append(env, "GOCACHE="+dir), c
}

// sandboxOff reports whether the user turned the sandbox off, and how.
func sandboxOff(flagOff bool) (string, bool) {
	switch {
	case flagOff:
		return "off (--no-sandbox)", true
	case strings.EqualFold(os.Getenv("GUARDSH_SANDBOX"), "off"):
		return "off (GUARDSH_SANDBOX=off)", true
	}
	return "", false
}

// backendsWanted is the platform's backend list narrowed by
// GUARDSH_SANDBOX=<backend> and GUARDSH_SANDBOX_DISABLE, as for guardsh.
func backendsWanted() []string {
	list := sandbox.Backends()
	if want := strings.ToLower(os.Getenv("GUARDSH_SANDBOX")); want != "" && want != "auto" {
		list = slices.DeleteFunc(slices.Clone(list), func(b string) bool { return b != want })
	}
	off := strings.Split(strings.ToLower(os.Getenv("GUARDSH_SANDBOX_DISABLE")), ",")
	return slices.DeleteFunc(list, func(b string) bool { return slices.Contains(off, b) })
}

// sessionMain is the confined shell session: it serves the agent's
// run_shell requests in one persistent guardsh runner with the session's
// policy until the agent closes the request pipe.
func sessionMain(args []string) int {
	desc, ok, err := sandbox.Inherited()
	if err != nil || !ok {
		fmt.Fprintf(os.Stderr, "guardsh-agent: %s is the agent's sandboxed shell session and runs only confined (%v)\n", sessionArg, err)
		return 126
	}
	if err := sandbox.Harden(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 126
	}
	// Orphans of the commands (setsid, daemons) are adopted by the session,
	// not init: a time limit finds and stops them (interp/reap_linux.go).
	if err := interp.BecomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: warning: cannot adopt orphaned processes (%v): a command that leaves its process group escapes the time limit\n", err)
	}
	fs := flag.NewFlagSet(sessionArg, flag.ContinueOnError)
	mode := fs.String("mode", "", "")
	project := fs.String("project", "", "")
	userHome := fs.String("home", "", "")
	adminSource := fs.String("admin-source", "", "")
	var adminDevices deviceList
	fs.Var(&adminDevices, "admin-device", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	in, out := sandbox.PassedFile("agent-req"), sandbox.PassedFile("agent-resp")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "guardsh-agent: session: the agent's pipes were not passed")
		return 126
	}
	// Ctrl-C reaches the commands through the terminal; the session itself
	// lives on (the agent cancels the running request).
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, os.Interrupt, syscall.SIGQUIT)
	go func() {
		for range sigs {
		}
	}()
	// The user's home, which the policy protects, even when the commands'
	// HOME is the run's own (the clean environment).
	home := *userHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	gcfg, err := guardsh.LoadConfig(home, *project, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 2
	}
	md, err := guardsh.ParseMode(*mode)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 2
	}
	// The gate: the terminal, which the sandbox leaves reachable.
	var gate interp.Gate
	if tg, err := interp.OpenTerminalGate(); err == nil {
		gate = tg
	}
	var alog *audit.Log
	if f := sandbox.PassedFile("audit"); f != nil {
		alog = audit.New(f, "")
		alog.SetLimits(gcfg.AuditLimits())
		defer alog.Close()
		if v, ok := os.LookupEnv(guardsh.EnvScrubbedVar); ok {
			alog.SetEnvScrubbed(append([]string{}, guardsh.SplitScrubbed(v)...))
		}
	}
	jfs, err := interp.NewJailFS(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 2
	}
	defer jfs.Close()
	policy := gcfg.Policy(md)
	policy.Sandboxed = true // verified above (sandbox.Inherited)
	if *adminSource != "" {
		// The agent checked and resolved the grant; this argv is its word.
		policy.Admin = &guardsh.AdminGrant{Devices: adminDevices, Source: *adminSource}
		alog.SetAdmin(policy.Admin.Describe())
	}
	cfg := interp.Config{
		FS:       jfs,
		Policy:   policy,
		Project:  *project,
		Dir:      *project,
		Env:      os.Environ(),
		Name:     "guardsh",
		Sandbox:  desc,
		Gate:     gate,
		Audit:    alog,
		UserHome: home,
	}
	if cl := sandbox.ClientFromEnv(); cl != nil {
		cfg.Escalate = escalateThrough(cl)
		cfg.Advisor = sessionAdvisor(gcfg, cl) // advisor.go
	}
	r, err := interp.New(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 2
	}
	if err := agentloop.ServeShell(in, out, r, desc); err != nil && !errors.Is(err, os.ErrClosed) {
		fmt.Fprintf(os.Stderr, "guardsh-agent: session: %v\n", err)
		return 1
	}
	return 0
}
