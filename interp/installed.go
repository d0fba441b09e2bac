package interp

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/shellargs"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// Installed programs (docs/sandbox.md, "Installed programs"): under a
// verified session sandbox, a shell script the session could not have
// written (a version manager's shim, a script in /usr/bin or ~/bin) runs as
// the program it is, with the real shell its shebang names, inside the
// sandbox. The command that named it was judged; its internals are not.
// Scripts in a writable tree (the project, the temp dirs), and every string
// the agent hands over (-c, eval, source, sh -c), run in guardsh's own
// interpreter, every command judged. Without a verified sandbox every
// script is interpreted.

// sessionRoots lists the trees a session may write: the project, the
// session's temporary directory, the shared temp dirs and the extra
// writable paths of the sandbox's configuration, canonical. It is taken
// once, from the first runner's environment (a script's own TMPDIR=...
// changes nothing).
func sessionRoots(project string, envList []string) []string {
	env := expand.ListEnviron(envList...)
	var roots []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		roots = append(roots, filepath.Clean(p))
	}
	add(project)
	add(env.Get("GUARDSH_PROJECT").String())
	add(env.Get("TMPDIR").String())
	for _, t := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		add(t)
	}
	for _, w := range filepath.SplitList(env.Get("GUARDSH_SANDBOX_WRITE").String()) {
		add(w)
	}
	return roots
}

// outsideSession reports whether path (absolute) lies where the session
// cannot write: as written, resolved, and by its directory, outside every
// writable root and on a read-only mount (the sandbox remounts everything
// but its writable roots read-only; a mount it could not remount does not
// count). The kernel's answer decides: a writable root the configuration
// here does not know of is still a writable mount.
func (g *Runner) outsideSession(path string) bool {
	if !g.policy.Sandboxed || !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false
	}
	roots := g.sh.roots
	for _, p := range []string{path, real, parent, filepath.Dir(real)} {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") || r == "/" {
				return false
			}
		}
		if !readOnlyMount(p) {
			return false
		}
	}
	return true
}

// realShell finds the shell a script's shebang names (sh, bash or dash;
// want is its path as the shebang wrote it, or a bare name for env): that
// path, else the first on the script's PATH, else /usr/bin and /bin, else
// the real shell guardsh --launch set aside (guardsh.RealShells: in its
// namespace /bin/bash is guardsh), skipping guardsh itself (its bash/sh
// shims shadow the real shell on PATH) and anything the session could
// have written. "" if none.
func (g *Runner) realShell(env expand.Environ, want string) string {
	name := filepath.Base(want)
	var cands []string
	if filepath.IsAbs(want) {
		cands = append(cands, want)
	}
	for _, d := range filepath.SplitList(env.Get("PATH").String()) {
		if filepath.IsAbs(d) {
			cands = append(cands, filepath.Join(d, name))
		}
	}
	cands = append(cands, "/usr/bin/"+name, "/bin/"+name)
	if p := guardsh.RealShells()[name]; p != "" {
		// under guardsh --launch the shells above are guardsh; the
		// launcher set the real one aside where no session can write
		cands = append(cands, p)
	}
	for _, c := range cands {
		fi, err := os.Stat(c)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 || isSelf(c) {
			continue
		}
		if g.outsideSession(c) {
			return c
		}
	}
	return ""
}

// startHookVars are the variables through which bash or sh would run code
// of the caller's choosing before the script's first line (BASH_ENV, ENV),
// or change how it runs (SHELLOPTS, BASHOPTS: xtrace with a PS4 that
// expands commands): an installed program runs without them.
var startHookVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "BASH_XTRACEFD": true,
}

// programEnv is env without the shell start-up hooks and exported
// functions (BASH_FUNC_name%%=..., and the older name=() { ... } form).
func programEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if startHookVars[name] || strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(val, "() {") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runInstalledScript runs an installed script (path; shell and opts from
// its shebang) with the real shell, as the kernel would: shell [opts]
// path args... . ok is false when it must be interpreted instead (not
// installed, or no real shell found).
func (g *Runner) runInstalledScript(ctx context.Context, hc interp.HandlerContext, shell string, opts []string, path string, args []string) (err error, ok bool) {
	if !g.outsideSession(path) {
		return nil, false
	}
	sh := g.realShell(hc.Env, shell)
	if sh == "" {
		return nil, false
	}
	argv := append([]string{sh}, opts...)
	argv = append(argv, path)
	argv = append(argv, args[1:]...)
	err = g.runProcessEnv(ctx, hc, sh, argv, programEnv(g.pinEnv(execEnv(hc))))
	if err != nil {
		g.netNote(hc, args[0]) // python3 through a pyenv shim is python3
	}
	return err, true
}

// InstalledShell returns the real shell to run "NAME SCRIPT ARGS..." with
// (name is sh, bash or dash, as the shell was called) when script is an
// installed program under a verified sandbox (see outsideSession), and ok
// false when guardsh must interpret it. For a guardsh started by a script's
// "#!/usr/bin/env bash" that found guardsh's bash shim first on PATH.
func (g *Runner) InstalledShell(name, script string) (shell string, ok bool) {
	p := script
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.r.Dir, p)
	}
	if !shellNames[filepath.Base(name)] || !g.outsideSession(p) {
		return "", false
	}
	sh := g.realShell(g.env, filepath.Base(name))
	return sh, sh != ""
}

// ProgramEnv is env without the shell start-up hooks an installed program
// runs without (see programEnv).
func ProgramEnv(env []string) []string { return programEnv(env) }

// runInstalledInvocation runs "bash [OPTS] SCRIPT ARGS..." (argv) with the
// real shell when SCRIPT is an installed program; ok is false when guardsh
// must interpret it.
func (g *Runner) runInstalledInvocation(ctx context.Context, hc interp.HandlerContext, inv *shellargs.Invocation, argv, env []string) (err error, ok bool) {
	if inv.Script == "" || inv.Command != nil || inv.Interactive || inv.Stdin || len(inv.Long) > 0 {
		return nil, false
	}
	p := inv.Script
	if !filepath.IsAbs(p) {
		p = filepath.Join(hc.Dir, p)
	}
	if !g.outsideSession(p) {
		return nil, false
	}
	sh := g.realShell(hc.Env, filepath.Base(argv[0]))
	if sh == "" {
		return nil, false
	}
	args := append([]string{sh}, argv[1:]...)
	return g.runProcessEnv(ctx, hc, sh, args, programEnv(g.pinEnv(applyEnv(execEnv(hc), env)))), true
}
