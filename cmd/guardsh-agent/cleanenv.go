package main

// The clean environment (--clean-env, clean_env in agent.toml): the
// model's commands start from an allow-listed environment instead of the
// agent's, with HOME in a directory of the run's own, so that tools that
// expand ~ read and write there, not in the user's home.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/protect"
)

// cleanEnvAllowed are the variables a clean environment keeps from the
// agent's own: what programs need to be found and to print (PATH, locale,
// terminal, time zone) and who the user is. HOME is replaced; TMPDIR is the
// session's.
var cleanEnvAllowed = []string{"PATH", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR", "TZ", "USER", "LOGNAME", "SHELL"}

// cleanEnvAllowedPrefix: the locale categories (LC_ALL, LC_CTYPE ...).
const cleanEnvAllowedPrefix = "LC_"

// cleanEnv returns the clean environment built from env (the agent's):
// the allowed variables, the names in extra (agent.toml's env_allow),
// HOME=home, and what keeps the common toolchains working without the
// user's home: git's identity from the user's global configuration
// (GIT_AUTHOR_*/GIT_COMMITTER_*, only when set there) and Go's module
// cache where Go would look for it with the user's HOME (GOMODCACHE), so
// builds keep working offline.
//
// Outside the sandbox (userGoCache) Go's build cache stays the user's too:
// a cold one costs a minute per run (measured: go test of a one-file module,
// 75.8 s cold against 0.6 s warm, Go 1.26, 2 cores); in the sandbox the
// agent's own cache is used (agentCaches). rustup's toolchain choice
// (RUSTUP_HOME) is the user's, or cargo and rustc do not start.
func cleanEnv(env []string, home string, extra []string, realHome string, userGoCache bool) []string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	var out []string
	seen := map[string]bool{}
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || seen[k] {
			continue
		}
		if slices.Contains(cleanEnvAllowed, k) || strings.HasPrefix(k, cleanEnvAllowedPrefix) || slices.Contains(extra, k) {
			seen[k] = true
			out = append(out, k+"="+get(k))
		}
	}
	out = append(out, "HOME="+home)
	if !seen["GOMODCACHE"] {
		if mc := goModCache(get, realHome); mc != "" {
			out = append(out, "GOMODCACHE="+mc)
		}
	}
	if !seen["RUSTUP_HOME"] && realHome != "" {
		if fi, err := os.Stat(filepath.Join(realHome, ".rustup")); err == nil && fi.IsDir() {
			out = append(out, "RUSTUP_HOME="+filepath.Join(realHome, ".rustup"))
		}
	}
	if userGoCache && !seen["GOCACHE"] {
		if c := get("GOCACHE"); c != "" {
			out = append(out, "GOCACHE="+c)
		} else if c, err := os.UserCacheDir(); err == nil {
			out = append(out, "GOCACHE="+filepath.Join(c, "go-build"))
		}
	}
	for _, id := range gitIdentity(env) {
		if k, _, _ := strings.Cut(id, "="); !seen[k] {
			out = append(out, id)
		}
	}
	return out
}

// goModCache is where Go finds its module cache for the user: GOMODCACHE,
// else the first GOPATH entry's pkg/mod, else ~/go/pkg/mod (go help
// gopath); "" when that does not exist.
func goModCache(get func(string) string, realHome string) string {
	mc := get("GOMODCACHE")
	if mc == "" {
		gp := filepath.SplitList(get("GOPATH"))
		switch {
		case len(gp) > 0 && gp[0] != "":
			mc = filepath.Join(gp[0], "pkg", "mod")
		case realHome != "":
			mc = filepath.Join(realHome, "go", "pkg", "mod")
		}
	}
	if mc == "" || !filepath.IsAbs(mc) {
		return ""
	}
	if fi, err := os.Stat(mc); err != nil || !fi.IsDir() {
		return ""
	}
	return mc
}

// gitIdentity is the user's git name and e-mail from their global
// configuration (run with the agent's environment), as the variables git
// reads first; nothing when git or the setting is missing.
func gitIdentity(env []string) []string {
	// outside the sandbox: a git no session could have planted
	wd, _ := os.Getwd()
	git, err := protect.TrustedProgram("git", protect.SessionWritable(wd))
	if err != nil {
		return nil
	}
	val := func(key string) string {
		cmd := exec.Command(git, "config", "--global", "--get", key)
		cmd.Env = env
		cmd.Dir = os.TempDir()
		var out bytes.Buffer
		cmd.Stdout = &out
		if cmd.Run() != nil {
			return ""
		}
		return strings.TrimSpace(out.String())
	}
	var out []string
	if n := val("user.name"); n != "" {
		out = append(out, "GIT_AUTHOR_NAME="+n, "GIT_COMMITTER_NAME="+n)
	}
	if e := val("user.email"); e != "" {
		out = append(out, "GIT_AUTHOR_EMAIL="+e, "GIT_COMMITTER_EMAIL="+e)
	}
	return out
}
