package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// setByGuardsh are the variables the agent and the session set themselves
// in a clean environment (agentEnv, the sandbox's TMPDIR and Go cache,
// the shell's own, the session's pins; and guardsh's own GUARDSH_*
// hand-over variables) beside cleanEnvAllowed.
var setByGuardsh = []string{"HOME", "TMPDIR", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", "EDITOR",
	"GUARDSH_AGENT", "GUARDSH_CONFIG", "GUARDSH_MODE", "GOCACHE", "GOMODCACHE", "PWD", "OLDPWD", "SHLVL", "_",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "RUSTUP_HOME"}

// TestAgentCleanEnv: with --clean-env (or clean_env in agent.toml), env
// inside run_shell shows only the allow-listed variables and the per-run
// HOME, which ~-expanding tools can write; a variable of the agent's
// environment (MYVAR) does not reach the command; git still knows the
// user's identity; without the option the environment is inherited.
func TestAgentCleanEnv(t *testing.T) {
	t.Setenv("MYVAR", "inherited")
	t.Setenv("JAVA_HOME", "/opt/jdk")
	const probe = `env; echo ":home=$HOME"; touch ~/written && echo wrote-home; git config user.email || echo no-identity; echo "GIT_AUTHOR_EMAIL=$GIT_AUTHOR_EMAIL"`
	for _, noSandbox := range []bool{false, true} {
		args := []string{"--clean-env"}
		if noSandbox {
			args = append(args, "--no-sandbox")
		}
		// The user's global git identity, in the test's fake HOME.
		out, errs, _ := agentRunWith(t, func(home, config string) {
			os.MkdirAll(home, 0o755)
			os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Test User\n\temail = test@example.com\n"), 0o644)
			os.MkdirAll(filepath.Join(config, "guardsh"), 0o755)
			os.WriteFile(filepath.Join(config, "guardsh", "agent.toml"), []byte("env_allow = [\"JAVA_HOME\"]\n"), 0o644)
		}, []string{shellTurn(probe, 0)}, args...)
		realHome := os.Getenv("HOME")
		var names []string
		for _, l := range strings.Split(out, "\n") {
			if m := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=`).FindStringSubmatch(l); m != nil {
				names = append(names, m[1])
			}
		}
		if len(names) < 3 {
			t.Fatalf("noSandbox=%v: no env output:\n%s\n%s", noSandbox, out, errs)
		}
		for _, n := range names {
			if !slices.Contains(cleanEnvAllowed, n) && !strings.HasPrefix(n, "LC_") && !slices.Contains(setByGuardsh, n) && !strings.HasPrefix(n, "GUARDSH_") && n != "JAVA_HOME" {
				t.Errorf("noSandbox=%v: %s is in the clean environment", noSandbox, n)
			}
		}
		if strings.Contains(out, "MYVAR") || strings.Contains(out, "inherited") {
			t.Errorf("noSandbox=%v: MYVAR reached the command", noSandbox)
		}
		if !strings.Contains(out, "JAVA_HOME=/opt/jdk") {
			t.Errorf("noSandbox=%v: env_allow's JAVA_HOME missing", noSandbox)
		}
		m := regexp.MustCompile(`(?m)^:home=(.*)$`).FindStringSubmatch(out)
		if m == nil || m[1] == realHome || !strings.Contains(filepath.Base(m[1]), "guardsh-agent-home-") {
			t.Errorf("noSandbox=%v: HOME is not the run's own: %v (user's %s)", noSandbox, m, realHome)
		} else if _, err := os.Stat(m[1]); err == nil {
			t.Errorf("noSandbox=%v: the run's HOME %s is left after the run", noSandbox, m[1])
		}
		if !strings.Contains(out, "wrote-home") {
			t.Errorf("noSandbox=%v: ~ not writable:\n%s", noSandbox, out)
		}
		if !strings.Contains(out, "GIT_AUTHOR_EMAIL=test@example.com") {
			t.Errorf("noSandbox=%v: git identity lost:\n%s", noSandbox, out)
		}
	}
	out, _, _ := agentRun(t, "", []string{shellTurn(`echo "[$MYVAR]"`, 0)}, "--no-sandbox")
	if !strings.Contains(out, "[inherited]") {
		t.Errorf("without --clean-env the environment is not inherited:\n%s", out)
	}
}
