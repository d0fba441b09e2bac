package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// Secret-free environments (docs/sandbox.md): with [env] scrub_secrets =
// true or --scrub-env, the session's environment loses its secret-looking
// variables before the interpreter starts: the confined interpreter
// (session.go) and the interpreter in this process without the sandbox
// (main.go) start with sessionEnv, and escalated commands get the
// interpreter's environment. This process keeps its own (the privileged
// side's advisor may need OLLAMA_*) in the Go runtime's copy (os.Getenv);
// the copy the kernel shows in /proc/<pid>/environ is blanked. The names removed are in
// GUARDSH_ENV_SCRUBBED and in the env_scrubbed field of the session's first
// audit record; nothing is printed.

// sessionEnv is the environment the session's interpreter starts with when
// scrubbing is on (nil: off, the process's own); envScrubbed the names
// removed (nil when off).
var (
	sessionEnv  []string
	envScrubbed []string
)

// sessionEnviron is the environment the session's interpreter starts with.
func sessionEnviron() []string {
	if sessionEnv != nil {
		return slices.Clone(sessionEnv)
	}
	return os.Environ()
}

// scrubEnvFlag reports whether --scrub-env was given.
func scrubEnvFlag(inv *invocation) bool {
	return slices.Contains(inv.Long, "--scrub-env")
}

// scrubSessionEnv applies the configuration's [env] section and
// --scrub-env: it sets sessionEnv and envScrubbed. Call it after
// buildPolicy (which loads the configuration) and before the sandbox or the
// interpreter starts. A guardsh started inside a scrubbing session (the
// confined interpreter, a nested guardsh) scrubs too, whatever its own
// flags, and inherits the list of names already removed.
func scrubSessionEnv(inv *invocation) {
	loadedConfig.Lock()
	cfg, home := loadedConfig.cfg, loadedConfig.home
	loadedConfig.Unlock()
	var ec *guardsh.EnvConfig
	if cfg != nil {
		ec = &cfg.Env
	}
	if _, had := os.LookupEnv(guardsh.EnvScrubbedVar); !had && !scrubEnvFlag(inv) && !ec.ScrubOn(false) {
		return
	}
	sessionEnv, envScrubbed = ec.ScrubSession(os.Environ())
	_, confined := os.LookupEnv(sandbox.EnvRun)
	if !confined {
		// Without the sandbox the interpreter is this process: blank the
		// secrets in the environment it was started with too, which
		// /proc/$$/environ shows (with the sandbox, a confined command
		// cannot read it; blanking costs nothing and closes it twice).
		// The confined interpreter was started without them.
		if _, err := interp.ClearInitialEnviron(func(n, v string) bool { return ec.Why(n, v) != "" }); err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: warning: the secrets are still in /proc/%d/environ: %v\n", os.Getpid(), err)
		}
	}
	// A human starting an interactive session is told once (by the
	// privileged side); -c and scripts print nothing: agents parse stderr.
	if inv.Interactive && !confined && len(envScrubbed) > 0 {
		fmt.Fprintf(os.Stderr, "guardsh: secret-looking variables removed from this session: %s (keep one with [env] keep = [...] in %s)\n",
			strings.Join(envScrubbed, ", "), guardsh.UserConfigPath(home, os.Getenv))
	}
}

// doctorEnv is the secret-free environment part of guardsh --doctor: the
// setting for guardsh and guardsh-agent, the patterns, and the names of the
// variables of the doctor's own environment a session would remove.
func doctorEnv(w io.Writer) {
	fmt.Fprintln(w, "secret-free environment ([env] in the config, --scrub-env):")
	home, _ := os.UserHomeDir()
	cfg, err := guardsh.LoadConfig(home, sessionProject(), os.Getenv)
	if err != nil {
		fmt.Fprintf(w, "  error: %v\n", err)
		return
	}
	ec := &cfg.Env
	src := "default"
	if ec.ScrubSecrets != nil {
		src = "scrub_secrets at " + ec.Source
	}
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	fmt.Fprintf(w, "  guardsh: %s (%s; --scrub-env turns it on for one session)\n", onOff(ec.ScrubOn(false)), src)
	fmt.Fprintf(w, "  guardsh-agent: %s (%s; --scrub-env=false turns it off for one run)\n", onOff(ec.ScrubOn(true)), src)
	if v, ok := os.LookupEnv(guardsh.EnvScrubbedVar); ok {
		fmt.Fprintf(w, "  this session is scrubbed already; removed: %s\n", cmp.Or(strings.ReplaceAll(v, ",", ", "), "nothing"))
	}
	fmt.Fprintf(w, "  patterns: %s; and values shaped like a secret whatever the name (URLs with credentials, ghp_/glpat-/xox?-/sk-/AKIA... tokens, Bearer/Basic credentials, JWTs, private keys)\n", strings.Join(guardsh.DefaultSecretPatterns, " "))
	if len(ec.Extra) > 0 {
		fmt.Fprintf(w, "  scrub (configured): %s\n", strings.Join(ec.Extra, " "))
	}
	if len(ec.Keep) > 0 {
		fmt.Fprintf(w, "  keep (configured): %s\n", strings.Join(ec.Keep, " "))
	}
	_, removed := ec.Scrub(os.Environ())
	fmt.Fprintf(w, "  would remove from this environment: %s\n", cmp.Or(strings.Join(removed, ", "), "nothing"))
	fmt.Fprintln(w, "  not covered: secrets in files (~/.aws/credentials, .env, ~/.netrc) are readable unless a rule denies them")
}
