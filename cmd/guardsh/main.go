// Command guardsh is a guarded shell for AI coding agents: a bash-compatible
// command line whose every simple command is checked by guardsh's policy
// before it runs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/shellargs"
	"github.com/guardsh/guardsh/internal/version"
	"github.com/guardsh/guardsh/interp"
	"golang.org/x/term"
)

// Version is guardsh's version as the build sets it (go build -ldflags
// "-X main.Version=v1.2.3"); when it is empty, --version prints what the Go
// toolchain recorded (internal/version).
var Version string

// longModes are guardsh's own long options that replace running a shell
// (--check, --doctor, --hook, ...). Files of this package register them in
// init functions; each gets the arguments after its own name and returns the
// process exit status.
var longModes = map[string]func(args []string) int{}

func registerMode(name string, run func(args []string) int) {
	if _, dup := longModes[name]; dup {
		panic("guardsh: mode registered twice: " + name)
	}
	longModes[name] = run
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(argv []string) int {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || a == "-c" || !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--mode" || a == "-o" {
			i++
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		if m, ok := longModes[name]; ok {
			rest := append(append([]string{}, argv[:i]...), argv[i+1:]...)
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				rest = append([]string{v}, rest...)
			}
			return m(rest)
		}
	}
	inv, err := parseArgs(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", shellName(), err)
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	return shell(inv)
}

// shellName is $0 by default and the prefix of error messages: the name
// guardsh was started as ("guardsh", or "bash"/"sh" through a shim).
func shellName() string {
	if len(os.Args) == 0 {
		return "guardsh"
	}
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "-")
	if name == "" || name == "." {
		return "guardsh"
	}
	return name
}

// invocation is a parsed shell command line: bash's options (see
// shellargs.Parse) plus guardsh's own.
type invocation struct {
	*shellargs.Invocation
	mode guardsh.Mode
}

// guardshLongOpts are guardsh's long options that take a value ("--opt!": a
// flag without one).
var guardshLongOpts = map[string]bool{"--mode": true, "--scrub-env!": true}

func parseArgs(argv []string) (*invocation, error) {
	in, err := shellargs.Parse(argv, shellName(), guardshLongOpts)
	if err != nil {
		return nil, err
	}
	inv := &invocation{Invocation: in}
	modeName := os.Getenv("GUARDSH_MODE")
	for _, l := range in.Long {
		if v, ok := strings.CutPrefix(l, "--mode="); ok {
			modeName = v
		}
	}
	mode, err := guardsh.ParseMode(modeName)
	if err != nil {
		return nil, fmt.Errorf("--mode: %v", err)
	}
	inv.mode = mode
	// A login shell started by login(1) has "-" in front of argv[0].
	if len(os.Args) > 0 && strings.HasPrefix(filepath.Base(os.Args[0]), "-") {
		inv.Login = true
	}
	return inv, nil
}

const usage = `Usage:	guardsh [option] ...
	guardsh [option] script-file ...
	guardsh [option] -c command [name [args...]]
Shell options (as bash):
	-c -s -i -l -e -u -x -v -f -n -a -o option --login --norc --noprofile --posix
guardsh options:
	--mode default|plan|edits|auto|bypass|strict
	                                  the policy mode (also GUARDSH_MODE); strict runs only
	                                  allowlisted commands ([strict] in the config)
	--scrub-env                       remove secret-looking variables from the session ([env] in the config)
	--no-sandbox                      run commands without OS confinement (said in every audit record)
	--version, --help
Tools (each runs instead of a shell; see README.md):
	--check [--mode M] [--json] [-c CMD | FILE]
	                                  verdicts for command lines (stdin: one per line), nothing runs
	--explain CMD                     how the policy reads one command line
	--hook claude|codex|gemini [--rewrite|--no-rewrite]
	                                  answer an agent's pre-tool-use hook on stdin (claude
	                                  and gemini run allowed commands under guardsh by default)
	--launch [--confine] -- AGENT [ARGS...]
	                                  start an agent with guardsh as its shell
	--doctor                          what the sandbox can do on this machine, verified
	--audit [--since 7d] [--json]     what ran and what was refused, by rule and decision
	--advise [--times N] [--json] -- WORD...
	                                  the advisor's rating of one command, without running it
`

func shell(inv *invocation) int {
	if inv.Help {
		fmt.Printf("guardsh %s, a guarded bash-compatible shell for AI coding agents\n", version.Of(Version))
		fmt.Print(usage)
		return 0
	}
	if inv.Version {
		fmt.Printf("guardsh %s (bash-compatible: GNU bash 5.2 behaviour)\n", version.Of(Version))
		return 0
	}
	interactive := inv.Interactive ||
		(inv.Command == nil && inv.Script == "" && term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stderr.Fd())))
	inv.Interactive = interactive
	sessionInteractive = interactive
	approvalChannel() // taken before anything starts: no command inherits it (approval.go)
	policy, err := buildPolicy(inv.mode, modeExplicit(inv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", shellName(), err)
		return 2
	}
	inv.mode = policy.Mode
	// an agent's bookkeeping script (bookkeeping.go)
	sessionBookkeeping = claudeSnapshotScript(inv, os.Getenv)
	scrubSessionEnv(inv) // before the interpreter starts, in or out of the sandbox (scrubenv.go)
	code, done, sandboxDesc := sandboxSession(inv)
	if done {
		return code
	}
	policy.Sandboxed = sessionConfined
	if sessionBookkeeping != nil {
		sessionBookkeeping.apply(policy)
	}
	if penv := startProxyRelay(); penv != nil { // netproxy.go
		if sessionEnv == nil {
			sessionEnv = os.Environ()
		}
		sessionEnv = append(sessionEnv, penv...)
		policy.NetProxy = true // connections are decided by destination
	}
	sessionEnv = dropEnv(sessionEnv, proxyVar)
	jfs, err := interp.NewJailFS("") // the path jail for in-process file access (interp/fs.go)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", shellName(), err)
		return 2
	}
	defer jfs.Close()
	auditLog := sessionAuditLog()
	auditLog.SetEnvScrubbed(envScrubbed)
	defer auditLog.Flush() // records of pure builtins may wait in its buffer
	r, err := interp.New(interp.Config{
		FS:          jfs,
		Policy:      policy,
		Gate:        sessionGate(),
		Audit:       auditLog,
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Name:        inv.Name,
		Params:      inv.Params,
		Opts:        inv.Opts,
		Interactive: interactive,
		Sandbox:     sandboxDesc,
		Escalate:    sessionEscalate,
		Env:         sessionEnv,       // nil: os.Environ(); scrubbed by scrubSessionEnv
		Advisor:     sessionAdvisor(), // policy_setup.go
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", shellName(), err)
		return 2
	}
	// -i with -c or a script (Aider runs "$SHELL -i -c CMD") runs that, as
	// bash does, after the start-up files; only without one is there a
	// read-eval loop.
	if interactive && inv.Command == nil && inv.Script == "" {
		return r.Interactive(context.Background(), interp.InteractiveOptions{
			Login: inv.Login && !inv.NoProfile,
			RC:    !inv.NoRC,
		})
	}
	ctx, stop := r.WatchSignals(context.Background())
	defer stop()
	switch {
	case inv.Login && !inv.NoProfile:
		r.SourceLogin(ctx)
	case interactive && !inv.NoRC:
		r.SourceRC(ctx)
	}
	var status int
	switch {
	case inv.Command != nil:
		status = r.RunDashC(ctx, *inv.Command, inv.Name)
	case inv.Script != "":
		if sh, ok := r.InstalledShell(shellName(), inv.Script); ok && len(inv.Long) == 0 && !interactive {
			// an installed program, started through guardsh's bash or
			// sh shim (a shebang's env found it first on PATH): the real
			// shell runs it, in this sandbox
			err := syscall.Exec(sh, append([]string{sh}, os.Args[1:]...), interp.ProgramEnv(os.Environ()))
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", shellName(), sh, err)
			return 126
		}
		status = r.RunScriptFile(ctx, inv.Script, shellName())
	default:
		var in io.Reader = os.Stdin
		status = r.Run(ctx, in, inv.Name)
	}
	return r.Finish(status)
}
