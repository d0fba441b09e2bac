package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/audit"
	_ "github.com/guardsh/guardsh/cmd/guardsh/internal/stagefirst" // the confining stage, before other packages' init
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
	"github.com/guardsh/guardsh/sandbox/proxy"
)

// init takes guardsh's --no-sandbox switch off the command line before the
// shell's option parser sees it. (A process that is the sandbox's
// confining stage never gets here: package stagefirst's init confined it
// and exec'd.)
func init() {
	sandbox.Stage() // no-op: stagefirst ran it; kept for safety if that import goes
	os.Args = stripNoSandbox(os.Args)
}

// noSandboxFlag is set by --no-sandbox.
var noSandboxFlag bool

// stripNoSandbox removes --no-sandbox from the options part of argv (before
// "--", the -c command or the script operand).
func stripNoSandbox(argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	out := []string{argv[0]}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--no-sandbox" {
			noSandboxFlag = true
			continue
		}
		out = append(out, a)
		if a == "--" || a == "-c" || !strings.HasPrefix(a, "-") || a == "-" {
			return append(out, argv[i+1:]...)
		}
		if a == "--mode" || a == "-o" {
			if i+1 < len(argv) {
				i++
				out = append(out, argv[i])
			}
		}
	}
	return out
}

// sessionEscalate runs approved commands through the privileged side; it
// is set by sandboxSession in a confined interpreter that has a broker, and
// is nil otherwise (interp.Config.Escalate).
var sessionEscalate interp.EscalateFunc

// sessionConfined is set by sandboxSession in an interpreter whose
// sandbox it verified (sandbox.Inherited): the policy then judges as for
// a verified sandbox, and installed programs run as programs.
var sessionConfined bool

// sandboxOff reports whether the user turned the sandbox off by its named
// switch, and how.
func sandboxOff() (string, bool) {
	if noSandboxFlag {
		return "off (--no-sandbox)", true
	}
	if strings.EqualFold(os.Getenv("GUARDSH_SANDBOX"), "off") {
		return "off (GUARDSH_SANDBOX=off)", true
	}
	return "", false
}

// backendsWanted lists the backends to try, in order: the platform's list,
// narrowed by GUARDSH_SANDBOX=<backend> and GUARDSH_SANDBOX_DISABLE
// (comma-separated backends to treat as absent, for testing).
func backendsWanted() []string {
	list := sandbox.Backends()
	if want := strings.ToLower(os.Getenv("GUARDSH_SANDBOX")); want != "" && want != "auto" {
		if slices.Contains(list, want) {
			list = []string{want}
		} else {
			list = nil
		}
	}
	var out []string
	for _, b := range list {
		if !slices.Contains(strings.Split(strings.ToLower(os.Getenv("GUARDSH_SANDBOX_DISABLE")), ","), b) {
			out = append(out, b)
		}
	}
	return out
}

// probeAll probes the wanted backends in order and returns the first that
// passes (ok false: none), with every result.
func probeAll(c sandbox.Config, all bool) (sandbox.ProbeResult, bool, []sandbox.ProbeResult) {
	var results []sandbox.ProbeResult
	var chosen sandbox.ProbeResult
	found := false
	if !all && os.Getenv("GUARDSH_SANDBOX_NOCACHE") != "1" && sandbox.ProbeCacheDir(c) == "" {
		fmt.Fprintln(os.Stderr, "guardsh: note: the sandbox probe is not cached: every cache directory (XDG_CACHE_HOME, XDG_RUNTIME_DIR) is inside a directory the sandbox leaves writable, and the kernel keyring that would authenticate a cache there cannot be used; set XDG_CACHE_HOME (or XDG_RUNTIME_DIR) outside /tmp, /var/tmp, /dev/shm and the project to save ~0.1 s per start")
	}
	for _, b := range backendsWanted() {
		var r sandbox.ProbeResult
		if all {
			r = sandbox.Probe(b, c) // the doctor always proves afresh
		} else {
			r = sandbox.CachedProbe(b, c)
		}
		results = append(results, r)
		if r.OK && !found {
			chosen, found = r, true
			if !all {
				break
			}
		}
	}
	return chosen, found, results
}

// sessionConfig is the sandbox configuration for a session started here,
// with its private temporary directory (created; the caller removes it).
func sessionConfig() (sandbox.Config, error) {
	wd, err := os.Getwd()
	if err != nil {
		return sandbox.Config{}, err
	}
	project := os.Getenv("GUARDSH_PROJECT")
	if project == "" {
		project = sandbox.ProjectRoot(wd)
	}
	if _, err := sandbox.UsableTempDir(); err != nil { // inside another sandbox /tmp may be read-only
		return sandbox.Config{}, err
	}
	tmp, err := os.MkdirTemp("", "guardsh-")
	if err != nil {
		return sandbox.Config{}, err
	}
	home, _ := os.UserHomeDir()
	return sandbox.NewConfig(project, tmp, home, os.Getenv), nil
}

// sandboxSession confines the session before the interpreter starts
// (docs/sandbox.md). When it returns done, the process's work is over (the privileged side
// ran the confined interpreter as a child) and code is the exit status.
// Otherwise this process is the interpreter: already confined (describe
// says how), or unconfined because the user turned the sandbox off.
func sandboxSession(inv *invocation) (code int, done bool, describe string) {
	if desc, ok, err := sandbox.Inherited(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	} else if ok && (stacksOnOuter(desc) || sandbox.InNetworkSandbox()) {
		os.Unsetenv(sandbox.EnvRun) // confined again below, with a marker of its own
		// the agent chose this environment: it cannot turn the stack off
		if off, is := sandboxOff(); is {
			fmt.Fprintf(os.Stderr, "guardsh: warning: sandbox %s ignored: inside an agent confined by guardsh --launch --confine, commands are confined again\n", off)
			noSandboxFlag = false
			if strings.EqualFold(os.Getenv("GUARDSH_SANDBOX"), "off") {
				os.Unsetenv("GUARDSH_SANDBOX")
			}
		}
		// nor widen it: more writable paths, AF_UNIX sockets to anywhere
		for _, k := range []string{"GUARDSH_SANDBOX_WRITE", "GUARDSH_SANDBOX_UNIX"} {
			if v, set := os.LookupEnv(k); set && v != "" {
				fmt.Fprintf(os.Stderr, "guardsh: warning: %s ignored: inside an agent confined by guardsh --launch --confine, commands are confined again without it\n", k)
				os.Unsetenv(k)
			}
		}
	} else if ok {
		if err := sandbox.Harden(); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
			return 126, true, ""
		}
		sandbox.AdoptPassedFiles()
		if b := sessionBookkeeping; b != nil && !b.confirmed() {
			sessionBookkeeping = nil // its sandbox was not made for the script
		}
		sessionConfined = true
		if c := sandbox.ClientFromEnv(); c != nil {
			sessionEscalate = interp.EscalateThrough(c)
			sessionAdviseClient = c // the advisor's ratings come from the privileged side too
		}
		return 0, false, desc
	}
	if desc, off := sandboxOff(); off {
		fmt.Fprintf(os.Stderr, "guardsh: warning: sandbox %s: commands run without OS confinement\n", desc)
		if b := sessionBookkeeping; b != nil {
			if err := b.claim(); err != nil {
				fmt.Fprintf(os.Stderr, "guardsh: note: %s is not allowed: %v\n", b.what, err)
				sessionBookkeeping = nil
			}
		}
		return 0, false, desc
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	}
	project := os.Getenv("GUARDSH_PROJECT")
	if project == "" {
		project = sandbox.ProjectRoot(wd)
	}
	// The session's private temporary directory is named now and made
	// below, while the stage is already starting; inside another sandbox
	// the default temp dir may be read-only.
	if _, err := sandbox.UsableTempDir(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	}
	tmp, err := sandbox.NewTmpDirName()
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	}
	home, _ := os.UserHomeDir()
	c := sandbox.NewConfig(project, tmp, home, os.Getenv)
	madeTmp := false
	defer func() {
		if madeTmp {
			os.RemoveAll(c.TmpDir)
		}
	}()
	// The privileged side decides escalations with its own policy: the
	// same configuration, loaded here, out of the interpreter's reach.
	policy := guardsh.NewPolicy(inv.mode)
	files := map[string]*os.File{}
	netPolicy := &guardsh.NetworkPolicy{}
	var limits guardsh.AuditLimits
	if gcfg, err := guardsh.LoadConfig(home, c.Project, os.Getenv); err == nil {
		policy = gcfg.Policy(inv.mode)
		netPolicy, limits = &gcfg.Network, gcfg.AuditLimits()
		privilegedAdvise = brokerAdvise(gcfg, c.Project, home) // policy_setup.go
		// The audit log lives outside the sandbox: open it here and pass
		// it down (Landlock does not affect open files).
		if path := gcfg.AuditLogPath(home, os.Getenv); path != "" {
			if f, err := audit.OpenFile(path, gcfg.AuditLimits()); err == nil {
				files["audit"] = f
				defer f.Close()
			} else {
				fmt.Fprintf(os.Stderr, "guardsh: warning: %v: commands are not audited\n", err)
			}
		}
	}
	// Who answers the interpreter's asks (approval.go): the launcher's
	// channel, passed down; else the terminal, opened here like the audit
	// log, where this session may prompt on it.
	if ch := approvalChannel(); ch != nil {
		files["approval"] = ch
	} else if !underLauncher() && (sessionInteractive || terminalOptIn()) {
		if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
			files["tty"] = tty
			defer tty.Close()
		}
	}
	// An agent's bookkeeping script (bookkeeping.go): its one directory
	// writable in this session.
	if b := sessionBookkeeping; b != nil {
		if err := b.grant(&c); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: note: %s is not allowed: %v\n", b.what, err)
			sessionBookkeeping = nil
		}
	}
	// At the container level the protected paths inside the project are
	// guarded by the privileged side (integrity.go): restored before an
	// approved command runs outside the sandbox, and at the end.
	var guard *sandbox.Integrity
	restore := func(when string) {
		if guard == nil {
			return
		}
		changes, err := guard.Restore()
		if len(changes) > 0 {
			fmt.Fprintf(os.Stderr, "guardsh: protected paths changed during the session were restored %s: %s\n", when, strings.Join(changes, "; "))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		}
	}
	baseCheck := brokerCheck(policy, c.Project, home)
	check := func(r sandbox.Request) (sandbox.Rights, error) {
		restore("before an approved command ran")
		return baseCheck(r)
	}
	env := append(sessionEnviron(), "TMPDIR="+c.TmpDir) // without secrets when scrubbing (scrubenv.go)
	// One session id for the interpreter's records and the proxy's.
	sid := audit.NewSessionID()
	env = append(env, envAuditSession+"="+sid, proxyVar+"=1")
	// Ctrl-C reaches the interpreter through the terminal's process group;
	// the privileged side outlives it and forwards termination (Notify
	// below, once the stage is starting: it costs ~0.2 ms, a thread).
	signal.Ignore(os.Interrupt, syscall.SIGQUIT)

	// The session's temporary directory first: where the interpreter is
	// started from a confined thread (sandbox.StartGated) its confinement
	// is built at once, and the directory must exist for it.
	if err := os.Mkdir(c.TmpDir, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	}
	madeTmp = true
	// Start-up (docs/performance.md): the interpreter (or the stage) of
	// the first backend wanted starts at once, held back before it runs
	// anything (the stage: before it confines itself), so that its Go
	// start-up overlaps the work below; it is released only when the
	// backend is proven (the probe cache, or a probe), and aborted
	// otherwise.
	var s *sandbox.Session
	var broker *sandbox.Broker
	if wanted := backendsWanted(); len(wanted) > 0 && wanted[0] == sandbox.BackendLandlock {
		desc := sandbox.ProbeResult{Backend: wanted[0], ABI: sandbox.LandlockABI()}.Describe()
		if b, clientEnd, err := sandbox.NewBroker(wanted[0], c, check); err == nil {
			if gs, err := sandbox.StartGated(wanted[0], c, desc, env, clientEnd, files); err == nil {
				s, broker = gs, b
			}
			clientEnd.Close()
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	abort := func() {
		if s != nil {
			s.Abort()
			s = nil
		}
	}
	// The network by destination: the proxy the commands' connections go
	// through (netproxy.go); the interpreter reaches it where the session
	// has a network namespace of its own.
	var proxyAudit *audit.Log
	if f := files["audit"]; f != nil {
		proxyAudit = audit.New(f, sid)
		proxyAudit.SetLimits(limits)
	}
	netProxy := sessionProxy(netPolicy, proxyAudit, "")
	defer netProxy.Close()
	res, ok, results := probeAll(c, false)
	if !ok {
		abort()
		fmt.Fprintf(os.Stderr, "guardsh: no sandbox backend could be verified, so no command runs (%s).\n"+
			"guardsh: run `guardsh --doctor` for details; to run without OS confinement, which the audit log records, use --no-sandbox or GUARDSH_SANDBOX=off\n",
			probeSummary(results))
		return 126, true, ""
	}
	if s != nil && (res.Backend != s.Backend || res.Describe() != s.Desc) {
		abort() // another backend passed: start that one instead
	}
	missing := c.ProtectedMissing() // before anything confined can run
	// Every level: a protected path missing at the start cannot be covered
	// by a read-only mount, so one created during the session (a planted
	// .git/commondir or .guardsh.toml) is removed like the container
	// level's restores.
	// Only those whose directory existed: a repository the session makes
	// (git init) has its own .git/config and hooks, which are not undone.
	var guardPaths []string
	for _, p := range missing {
		if fi, err := os.Lstat(filepath.Dir(p)); err == nil && fi.IsDir() {
			guardPaths = append(guardPaths, p)
		}
	}
	if res.Backend == sandbox.BackendContainer {
		guardPaths = append(c.ProtectedInside(), guardPaths...)
	}
	if len(guardPaths) > 0 {
		g, err := sandbox.Snapshot(guardPaths)
		if err != nil {
			abort()
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
			return 126, true, ""
		}
		guard = g
		// The audit log, if it lies in a guarded tree (HOME under /tmp at
		// the container level), grows during the session: its new records
		// are kept, only a rewrite of the earlier ones is undone.
		guard.AppendOnlyFile(files["audit"])
		if res.Backend == sandbox.BackendContainer {
			// No PID namespace at this level: a process a command detached
			// (setsid, a double fork) would outlive the session and could
			// plant what the final restore just undid. As a subreaper the
			// privileged side adopts such orphans, and stops every one of
			// them before that restore.
			subreaper := interp.BecomeSubreaper() == nil
			defer func() {
				if subreaper {
					interp.StopSurvivors(time.Second)
				}
				restore("when the session ended")
			}()
		} else {
			defer restore("when the session ended")
		}
	}
	if res.Backend == sandbox.BackendContainer {
		fmt.Fprintln(os.Stderr, "guardsh: note: sandbox level \"container\" (Landlock + seccomp; this environment allows no namespaces): writes outside the project and the network are refused by the kernel; .git's hooks and config and the other protected paths inside the project are restored by guardsh, not kept read-only (guardsh --doctor)")
	}
	if s != nil {
		if err := s.Release(); err != nil {
			abort()
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
			return 126, true, ""
		}
	} else {
		b, clientEnd, err := sandbox.NewBroker(res.Backend, c, check)
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
			return 126, true, ""
		}
		s, err = sandbox.Start(res.Backend, c, res.Describe(), env, clientEnd, files)
		clientEnd.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
			return 126, true, ""
		}
		broker = b
	}
	broker.Advise = privilegedAdvise // nil unless [advisor] is on
	// An approved git config write the privileged side made is the
	// session's new state of that protected file (Restore keeps it): made
	// from the record (a file the session changed is refused) and recorded
	// as written, not as the file is by then.
	broker.ConfigWritten = guard.Accept
	broker.ConfigBase = guard.Recorded
	broker.Handlers = map[string]func(sandbox.Request, []*os.File) sandbox.Response{proxy.Kind: brokerProxyHandler(netProxy)}
	go broker.Serve()
	go func() {
		for sig := range sigs {
			s.Cmd.Process.Signal(sig)
		}
	}()
	err = s.Cmd.Wait()
	s.Close()
	var ee interface {
		ExitCode() int
		Sys() any
	}
	if err != nil && errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), true, ""
		}
		return ee.ExitCode(), true, ""
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: %v\n", err)
		return 126, true, ""
	}
	return 0, true, ""
}

// sessionAudit opens the session's audit log: the descriptor the
// privileged side opened before confinement when there is one (a confined
// interpreter cannot open a file outside the project for writing), else
// the file at path.
func sessionAudit(path string, lim guardsh.AuditLimits) (*audit.Log, error) {
	if f := sandbox.PassedFile("audit"); f != nil {
		a := audit.New(f, os.Getenv(envAuditSession))
		a.SetLimits(lim)
		return a, nil
	}
	if path == "" {
		return nil, nil
	}
	return audit.Open(path, lim)
}

func probeSummary(results []sandbox.ProbeResult) string {
	if len(results) == 0 {
		return "no backend enabled: GUARDSH_SANDBOX=" + os.Getenv("GUARDSH_SANDBOX") + " GUARDSH_SANDBOX_DISABLE=" + os.Getenv("GUARDSH_SANDBOX_DISABLE")
	}
	var parts []string
	for _, r := range results {
		why := r.Err
		for _, ch := range r.Checks {
			if !ch.OK && why == "" {
				why = ch.Name + ": " + ch.Detail
			}
		}
		parts = append(parts, r.Backend+": "+why)
	}
	return strings.Join(parts, "; ")
}

// brokerCheck is the privileged side's own decision on an escalation
// request (interp.BrokerCheck): the request is classified again by the
// broker's policy; a denied command is refused; rights that no rule of the
// broker's policy (configuration or an earlier "allow for this session"
// given here) grants need a human's answer: the launcher's, or at the
// privileged side's own terminal prompt (privilegedGate).
func brokerCheck(policy *guardsh.Policy, project, home string) func(sandbox.Request) (sandbox.Rights, error) {
	return interp.BrokerCheck(policy, project, home, func(cmd guardsh.Command, _ guardsh.Verdict, want sandbox.Rights) error {
		rights := cmp.Or(interp.RightsText(want), "nothing")
		if gate := privilegedGate(); gate != nil { // approval.go
			ask := guardsh.Verdict{Decision: guardsh.Ask, Rule: "sandbox.escalate",
				Reason:  "the privileged side asks too: this runs with " + rights + " beyond the sandbox",
				Effects: interp.EscalationEffects(want)}
			session := guardsh.ApprovalRule(cmd)
			session.ID = "session.escalate." + strconv.Itoa(len(policy.Session)+1)
			session.Decision = guardsh.Allow
			session.Network, session.Write = want.Network, want.Writes
			switch gate.Approve(context.Background(), interp.GateRequest{Command: cmd, Verdict: ask, Session: session}) {
			case interp.GateAllowSession:
				policy.Session = append(policy.Session, session)
				return nil
			case interp.GateAllowOnce:
				return nil
			}
		}
		return fmt.Errorf("guardsh: not run: %q needs %s beyond the sandbox and the privileged side got no approval from a human at the terminal. Approve it interactively, or add a rule granting these rights to your config", strings.Join(cmd.Args, " "), rights)
	})
}
