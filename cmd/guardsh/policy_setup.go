package main

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// loadedConfig is the session's configuration, loaded once by buildPolicy.
var loadedConfig struct {
	sync.Mutex
	cfg     *guardsh.Config
	home    string
	project string
}

// sessionProject is the project root of a session started here:
// $GUARDSH_PROJECT, else the enclosing git work tree, else the working
// directory (as the sandbox decides it).
func sessionProject() string {
	if p := os.Getenv("GUARDSH_PROJECT"); p != "" {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return sandbox.ProjectRoot(wd)
}

// buildPolicy loads the user's and the project's configuration and returns
// the session's policy. The mode follows guardsh's precedence: the --mode
// flag or GUARDSH_MODE (modeFromFlag: mode came from one of them), then the
// configuration, then default. A broken configuration file is an error;
// parts of an untrusted project file that were not applied are warned
// about on stderr.
func buildPolicy(mode guardsh.Mode, modeFromFlag bool) (*guardsh.Policy, error) {
	home, _ := os.UserHomeDir()
	project := sessionProject()
	cfg, err := guardsh.LoadConfig(home, project, os.Getenv)
	if err != nil {
		return nil, err
	}
	if _, confined := os.LookupEnv(sandbox.EnvRun); !confined {
		// (The privileged side already showed them before it started the
		// confined interpreter.)
		for _, w := range cfg.Warnings {
			fmt.Fprintf(os.Stderr, "guardsh: warning: %s\n", w)
		}
	}
	loadedConfig.Lock()
	loadedConfig.cfg, loadedConfig.home, loadedConfig.project = cfg, home, project
	loadedConfig.Unlock()
	if !modeFromFlag && cfg.Mode != "" {
		mode = cfg.Mode
	}
	// A guardsh started inside this session (a nested guardsh, a script's
	// shell) gets the same mode and the same user configuration file, not
	// whatever a changed HOME or XDG_CONFIG_HOME would point it to. (The
	// rules deny setting GUARDSH_* from inside a session.)
	os.Setenv("GUARDSH_MODE", string(mode))
	os.Setenv("GUARDSH_CONFIG", guardsh.UserConfigPath(home, os.Getenv))
	return cfg.Policy(mode), nil
}

// modeExplicit reports whether the mode was chosen for this invocation
// (--mode or GUARDSH_MODE), which beats the configuration's mode.
func modeExplicit(inv *invocation) bool {
	if os.Getenv("GUARDSH_MODE") != "" {
		return true
	}
	for _, l := range inv.Long {
		if strings.HasPrefix(l, "--mode=") || l == "--mode" {
			return true
		}
	}
	return false
}

// sessionAuditLog opens the session's audit log (see sessionAudit) at the
// path the configuration chooses. A log that cannot be opened is reported
// and the session goes on without one.
func sessionAuditLog() *audit.Log {
	loadedConfig.Lock()
	cfg, home := loadedConfig.cfg, loadedConfig.home
	loadedConfig.Unlock()
	path := cfg.AuditLogPath(home, os.Getenv)
	a, err := sessionAudit(path, cfg.AuditLimits())
	if err != nil {
		// A guardsh started inside a sandboxed session (a nested guardsh,
		// a script run through the bash/sh shims) cannot open the log
		// outside the sandbox; the session that started it recorded its
		// command line. Said only when nobody recorded anything.
		if _, confined := os.LookupEnv(sandbox.EnvRun); !confined {
			fmt.Fprintf(os.Stderr, "guardsh: warning: %v: commands are not audited\n", err)
		}
		return nil
	}
	return a
}

// sessionAdviseClient is the privileged side's channel in a confined
// interpreter that has one (session.go): the advisor's ratings come
// through it, since the interpreter has no network.
var sessionAdviseClient *sandbox.Client

// privilegedAdvise answers the confined interpreter's advise requests on
// the privileged side (sandbox.Broker.Advise; session.go sets it).
var privilegedAdvise sandbox.AdviseFunc

// sessionAdvisor is the session's advisor (interp.Config.Advisor), nil when
// the configuration leaves it off. A confined interpreter asks the
// privileged side; an unconfined one (--no-sandbox) asks the model itself;
// a guardsh started inside another's sandbox can do neither, and says so
// for every command it would have rated.
func sessionAdvisor() interp.Advisor {
	loadedConfig.Lock()
	cfg := loadedConfig.cfg
	loadedConfig.Unlock()
	if cfg == nil || !cfg.Advisor.Enabled {
		return nil
	}
	limit := cfg.Advisor.Limit()
	if sessionAdviseClient != nil {
		return interp.AdviseThrough(sessionAdviseClient, limit)
	}
	if _, confined := os.LookupEnv(sandbox.EnvRun); confined {
		return interp.UnavailableAdvisor("this guardsh runs inside another guardsh's sandbox, with no network and no privileged side to ask (the outer session rated the command that started it)", limit)
	}
	return newAdvisor(cfg)
}

// brokerAdvise is the privileged side's answer to advise requests, with
// its own advisor and cache; nil when its configuration leaves it off.
func brokerAdvise(cfg *guardsh.Config, project, home string) sandbox.AdviseFunc {
	if cfg == nil || !cfg.Advisor.Enabled {
		return nil
	}
	return interp.BrokerAdvise(newAdvisor(cfg), project, home)
}

func newAdvisor(cfg *guardsh.Config) interp.Advisor {
	return interp.NewAdvisor(cfg.Advisor, os.Getenv)
}
