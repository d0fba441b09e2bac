package guardsh

import (
	"path"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/protect"
)

// loc is where a path lies, as far as the rules care.
type loc uint8

const (
	locUnknown     loc = iota // not known statically
	locProject                // inside the project, below its root
	locProjectRoot            // the project root itself
	locTemp                   // below a temp dir
	locTempRoot               // a temp dir itself (/tmp)
	locSharedTmp              // below /tmp or /var/tmp but not the session's $TMPDIR
	locDevSafe                // /dev/null, /dev/stdout, ...
	locDevice                 // a block device or raw memory
	locHomeSub                // inside home, outside the project
	locHome                   // home itself
	locRoot                   // "/"
	locSystem                 // a system directory or below it
	locOther                  // any other absolute path
)

// pathEnv resolves paths for one command.
type pathEnv struct {
	dir, project, home, tmp string
	env                     func(string) string // for $TMPDIR (looked up when first needed), $XDG_CONFIG_HOME
	tmpDone                 bool
	// links are the symlinks a checked script made before the command
	// (see realPath).
	links map[string]string
	// resolved says paths are judged as the kernel resolves them (and the
	// directories above are resolved); otherwise as written.
	resolved bool
	// differs is set when a path judged as written resolves to something
	// else: the command must be judged in the resolved reading too.
	differs bool
	// realDir is dir resolved, for the comparison (set when first needed).
	realDir    string
	realDirSet bool
}

func newPathEnv(c *Command) pathEnv {
	e := pathEnv{dir: c.Dir, project: cleanAbs(c.Project), home: cleanAbs(c.Home), env: c.Env, links: c.links}
	if e.dir == "" {
		e.dir = e.project
	}
	if c.resolved {
		return e.realEnv()
	}
	return e
}

// tmpDir is the session's $TMPDIR ("" if unknown).
func (e *pathEnv) tmpDir() string {
	if e.env != nil && !e.tmpDone {
		if t := e.env("TMPDIR"); t != "" && path.IsAbs(t) {
			e.tmp = path.Clean(t)
		}
		e.tmpDone = true
	}
	return e.tmp
}

func cleanAbs(p string) string {
	if p == "" || !path.IsAbs(p) {
		return ""
	}
	return path.Clean(p)
}

// within reports whether p is base or below it.
func within(p, base string) bool {
	if base == "" || p == "" {
		return false
	}
	if base == "/" {
		return true
	}
	return p == base || strings.HasPrefix(p, base+"/")
}

// isDynamic reports whether an argument is a placeholder for a word whose
// value is not known statically (see dynWord).
func isDynamic(s string) bool { return len(s) > 0 && s[0] == 0 }

// dynWord makes the placeholder for a word not known statically; src is
// the word as written, for display.
func dynWord(src string) string { return "\x00" + src }

// displayArg shows an argument, dynamic placeholders as written.
func displayArg(s string) string {
	if isDynamic(s) {
		return s[1:]
	}
	return s
}

// abs makes p absolute: "~" and "$HOME" prefixes become home, relative
// paths are joined to the working directory. ok is false when p is not
// known statically or the working directory is unknown.
func (e *pathEnv) abs(p string) (string, bool) {
	j, ok := e.joined(p)
	if !ok {
		return "", false
	}
	return path.Clean(j), true
}

// joined is abs before cleaning: ".." and "." kept for realPath.
func (e *pathEnv) joined(p string) (string, bool) {
	if p == "" || isDynamic(p) || strings.ContainsRune(p, 0) {
		return "", false
	}
	switch {
	case p == "~+" || strings.HasPrefix(p, "~+/"):
		if e.dir == "" {
			return "", false
		}
		p = e.dir + p[2:]
	case p == "~-" || strings.HasPrefix(p, "~-/"):
		return "", false
	case p == "~" || strings.HasPrefix(p, "~/"):
		if e.home == "" {
			return "", false
		}
		p = e.home + p[1:]
	case strings.HasPrefix(p, "~"):
		// ~user: another user's home.
		name, rest, _ := strings.Cut(p[1:], "/")
		p = "/home/" + name + "/" + rest
	case p == "$HOME" || strings.HasPrefix(p, "$HOME/") || p == "${HOME}" || strings.HasPrefix(p, "${HOME}/"):
		if e.home == "" {
			return "", false
		}
		_, rest, _ := strings.Cut(p, "/")
		p = e.home + "/" + rest
	}
	if !path.IsAbs(p) {
		if e.dir == "" {
			return "", false
		}
		p = e.dir + "/" + p
	}
	return p, true
}

// hasGlob reports whether s contains glob metacharacters.
func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// globBase cuts a pattern at its first component containing a glob; whole
// reports whether that component is a bare glob ("*", ".*", "*.*") that
// matches everything in the directory.
func globBase(p string) (base string, whole bool) {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p, false
	}
	j := strings.LastIndexByte(p[:i], '/')
	comp := p[j+1:]
	if k := strings.IndexByte(comp, '/'); k >= 0 {
		comp = comp[:k]
	}
	// A pattern without a literal part ("*", ".*", "[a-z]*", "?*") matches
	// everything in the directory.
	rest := globLiteral(comp)
	whole = rest == "" || rest == "." || rest == "{,.}"
	if j < 0 {
		return ".", whole
	}
	if j == 0 {
		return "/", whole
	}
	return p[:j], whole
}

// globLiteral strips the wildcards (*, ?, [...]) from a pattern.
func globLiteral(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*', '?':
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				b.WriteByte(c)
				continue
			}
			i += j + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

var systemTop = map[string]bool{
	"bin": true, "boot": true, "dev": true, "etc": true, "lib": true, "lib32": true, "lib64": true,
	"libx32": true, "opt": true, "proc": true, "root": true, "run": true, "sbin": true, "srv": true,
	"sys": true, "usr": true, "var": true, "home": true, "Users": true, "System": true,
	"Library": true, "Applications": true, "private": true, "nix": true, "snap": true, "mnt": true,
	"media": true, "Volumes": true, "cdrom": true, "lost+found": true, "tmp": true, "efi": true,
}

var devSafe = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/full": true,
	"/dev/ptmx": true,
}

// isDevice reports whether p names a block device or raw memory.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	n := p[len("/dev/"):]
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "loop", "dm-", "md", "sr", "disk/", "mapper/", "mem", "kmem", "port", "nbd", "rbd", "zd", "bcache", "ram"} {
		if strings.HasPrefix(n, pre) {
			return true
		}
	}
	return false
}

// locate classifies an absolute, clean path.
func (e *pathEnv) locate(p string) loc {
	switch {
	case devSafe[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") || strings.HasPrefix(p, "/dev/pts/"):
		return locDevSafe
	case isDevice(p):
		return locDevice
	}
	// Home wins over a project that holds it (guardsh started in /tmp or
	// /home): home and what is in it are never "inside the project".
	if e.home != "" && e.home != "/" && e.project != e.home && within(e.home, e.project) {
		if p == e.home {
			return locHome
		}
		if within(p, e.home) {
			return locHomeSub
		}
	}
	if e.project != "" && e.project != "/" {
		if p == e.project {
			return locProjectRoot
		}
		if within(p, e.project) {
			return locProject
		}
	}
	// Home before the temp dirs: a throwaway HOME may live in /tmp.
	if e.home != "" && e.home != "/" && p == e.home {
		return locHome
	}
	if p == "/" {
		return locRoot
	}
	// Ancestors of home or the project hold them.
	if within(e.home, p) || within(e.project, p) {
		return locSystem
	}
	tmp := e.tmpDir()
	inTmp := tmp != "" && tmp != "/" && within(p, tmp)
	inHome := e.home != "" && e.home != "/" && within(p, e.home)
	if inTmp && (!inHome || within(tmp, e.home)) {
		if p == tmp {
			return locTempRoot
		}
		return locTemp
	}
	if inHome {
		return locHomeSub
	}
	for _, t := range sharedTempRoots {
		if p == t {
			return locTempRoot
		}
		if within(p, t) {
			return locSharedTmp
		}
	}
	top := p[1:]
	if i := strings.IndexByte(top, '/'); i >= 0 {
		top = top[:i]
	}
	if systemTop[top] {
		return locSystem
	}
	return locOther
}

// sharedTempRoots are the temp dirs every session and user shares.
var sharedTempRoots = [...]string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp"}

// sharedTempRoot reports whether abs is one of sharedTempRoots.
func sharedTempRoot(abs string) bool {
	for _, t := range sharedTempRoots {
		if abs == t {
			return true
		}
	}
	return false
}

// target is one path argument of a command, resolved.
type target struct {
	arg   string // as given
	abs   string // absolute, clean; the glob's base for patterns
	loc   loc
	whole bool // a bare glob over abs ("dir/*")
}

// resolve classifies a path argument.
func (e *pathEnv) resolve(arg string) target { return e.resolveAt(arg, true) }

// resolveName classifies a path argument whose last component an operation
// acts on itself (rm, mv, the name ln creates): a symlink there is not
// followed.
func (e *pathEnv) resolveName(arg string) target { return e.resolveAt(arg, false) }

func (e *pathEnv) resolveAt(arg string, follow bool) target {
	t := target{arg: arg}
	if isDynamic(arg) {
		return t
	}
	p := arg
	if hasGlob(p) {
		base, whole := globBase(p)
		t.whole = whole
		if !whole {
			// a pattern names children of its base, not the base
			comp := p[len(base):]
			if base == "." && !strings.HasPrefix(p, "./") {
				comp = p
			}
			comp = strings.TrimPrefix(comp, "/")
			if i := strings.IndexByte(comp, '/'); i >= 0 {
				comp = comp[:i]
			}
			p = strings.TrimSuffix(base, "/") + "/" + comp
		} else {
			p = base
		}
	}
	j, ok := e.joined(p)
	if !ok {
		return t
	}
	follow = follow || t.whole || hasGlob(arg)
	real := realPath
	if !follow {
		real = realName
	}
	if e.resolved {
		r, ok := real(j, e.dir, e.links)
		if !ok {
			return t
		}
		t.abs = r
		t.loc = e.locate(r)
		return t
	}
	t.abs = path.Clean(j)
	t.loc = e.locate(t.abs)
	if !e.differs {
		e.differs = e.resolvesElsewhere(p, t.abs, follow)
	}
	return t
}

// resolvesElsewhere reports whether p (an argument after glob cutting),
// written as abs, resolves to another path.
func (e *pathEnv) resolvesElsewhere(p, abs string, followLast bool) bool {
	if !e.realDirSet {
		e.realDirSet = true
		if e.dir != "" {
			r, ok := realPath(e.dir, "", e.links)
			if !ok || r != e.dir {
				return true
			}
			e.realDir = r
		}
	}
	var r string
	var ok bool
	relative := !path.IsAbs(p) && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$")
	switch {
	case relative && e.realDir != "" && followLast:
		// below the working directory, resolved once
		r, ok = walkFrom(e.realDir, p, e.realDir, e.links)
	case relative:
		r, ok = realName(e.realDir+"/"+p, e.realDir, e.links)
	case followLast:
		j, _ := e.joined(p)
		r, ok = realPath(j, e.realDir, e.links)
	default:
		j, _ := e.joined(p)
		r, ok = realName(j, e.realDir, e.links)
	}
	return !ok || r != abs
}

// inside reports whether l is the project, the session's temp dir or a
// harmless device.
func (l loc) inside() bool {
	return l == locProject || l == locProjectRoot || l == locTemp || l == locDevSafe
}

// writable reports whether the session sandbox lets commands write there:
// inside, or below the shared /tmp (writable unless GUARDSH_SANDBOX_TMP=0;
// agents keep their bookkeeping there).
func (l loc) writable() bool { return l.inside() || l == locSharedTmp }

// where anchors the protected list (package protect) for this command.
func (e *pathEnv) where() protect.Where {
	w := protect.Where{Project: e.project, Home: e.home}
	if e.env != nil {
		w.ConfigHome, w.Config, w.Shim = e.env("XDG_CONFIG_HOME"), e.env("GUARDSH_CONFIG"), e.env("GUARDSH_LAUNCH_SHIM")
		w.StateHome = e.env("XDG_STATE_HOME")
	}
	return w
}

// protectedWrite reports whether writing abs is denied everywhere: the
// things of package protect (shell start-up files, ~/.ssh, git's config,
// hooks and indirection files, guardsh's config), and a ".git" itself (a
// directory renamed away, or a file that points git elsewhere).
func (e *pathEnv) protectedWrite(abs string) bool {
	if abs == "" {
		return false
	}
	if strings.HasSuffix(abs, "/.git") {
		return true
	}
	_, ok := protect.Match(abs, e.where())
	return ok
}

// agentConfig reports whether abs is an AI agent's settings file.
func agentConfig(abs string) bool {
	return strings.Contains(abs, "/.claude/settings") || strings.HasSuffix(abs, "/.claude.json") ||
		strings.Contains(abs, "/.codex/config") || strings.Contains(abs, "/.gemini/settings") ||
		strings.Contains(abs, "/.cursor/") || strings.Contains(abs, "/.claude/hooks")
}

var credentialHome = []string{
	".ssh/", ".aws/", ".config/gcloud/", ".azure/", ".kube/config", ".docker/config.json", ".netrc",
	".git-credentials", ".gnupg/", ".local/share/keyrings/", ".password-store/", ".config/gh/hosts.yml",
	".npmrc", ".pypirc", ".vault-token", ".terraform.d/credentials", ".config/op/", ".mozilla/",
	".config/google-chrome/", ".config/chromium/", ".config/BraveSoftware/", "Library/Keychains/",
	"Library/Application Support/Google/Chrome/", "Library/Application Support/Firefox/",
	".cargo/credentials", ".gem/credentials", ".config/hub", ".m2/settings.xml", ".pgpass",
	".my.cnf", ".config/rclone/", ".boto", ".s3cfg", ".databrickscfg", ".config/doctl/",
	".oci/", ".config/heroku/", ".netlify/", ".fly/", ".config/gitlab", ".claude/.credentials.json",
	".local/share/password", ".age/", ".config/sops/",
	// the remote CLIs whose reads run under the session's proxy
	".mc/", ".config/glab-cli/", ".config/argocd/", ".wrangler/", ".config/.wrangler/", ".config/stripe/",
}

// loginFile reports whether abs is a shell start-up file a login shell
// sources (/etc/profile, ~/.bashrc, ...; package protect's Startup
// entries, and the bash completion scripts): reading it is harmless.
func (e *pathEnv) loginFile(abs string) bool {
	if strings.HasPrefix(abs, "/etc/bash_completion") || strings.HasPrefix(abs, "/usr/share/bash-completion/") {
		return true
	}
	en, ok := protect.Match(abs, protect.Where{Home: e.home})
	return ok && en.Startup
}

// agentState reports whether abs is an agent's shell state that its
// command wrapper sources (Claude Code's shell snapshots).
func (e *pathEnv) agentState(abs string) bool {
	return e.home != "" && (strings.HasPrefix(abs, e.home+"/.claude/shell-snapshots/") || strings.HasPrefix(abs, e.home+"/.codex/shell_snapshots/"))
}

// credential reports whether reading abs exposes secrets.
func (e *pathEnv) credential(abs string) bool {
	if abs == "" {
		return false
	}
	base := path.Base(abs)
	if strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub") {
		return true
	}
	switch abs {
	case "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/master.passwd":
		return true
	}
	if strings.HasPrefix(abs, "/root/.ssh") || strings.HasPrefix(abs, "/etc/ssh/ssh_host_") && !strings.HasSuffix(abs, ".pub") {
		return true
	}
	if e.home == "" {
		return false
	}
	rel, ok := strings.CutPrefix(abs, e.home+"/")
	if !ok {
		return false
	}
	if rel == ".ssh/known_hosts" || strings.HasSuffix(rel, ".pub") {
		return false
	}
	for _, c := range credentialHome {
		if rel == strings.TrimSuffix(c, "/") || strings.HasPrefix(rel, c) {
			return true
		}
	}
	return false
}

// ClassifyAccess decides one in-process file access: a redirection,
// source, cd, a glob or an agent file tool. The path is judged as resolved
// (Resolved, or resolved here when not given) and as written; the more
// dangerous reading wins.
func (p *Policy) ClassifyAccess(a Access) Verdict {
	e := pathEnv{dir: a.Dir, project: cleanAbs(a.Project), home: cleanAbs(a.Home), tmp: cleanAbs(a.TmpDir), env: a.Env, tmpDone: true}
	written, wok := e.abs(a.Path)
	if a.Resolved == "" {
		if !wok {
			return p.settle(judged(kOther, idUnknown, "path not known: "+displayArg(a.Path)))
		}
		j, _ := e.joined(a.Path)
		re := e.realEnv()
		if r, ok := realPath(j, re.dir, nil); !ok {
			return p.settle(judged(kOther, idUnknown, "path does not resolve (a symlink loop): "+displayArg(a.Path)))
		} else if r != written {
			ra := a
			ra.Resolved, ra.Inside = r, true
			if re.project != "" {
				ra.Inside = within(r, re.project)
			}
			return p.accessBoth(a, written, re, ra)
		}
		return p.classifyAccessAt(a, e, written, false)
	}
	re := e.realEnv()
	if wok && written != path.Clean(a.Resolved) {
		return p.accessBoth(a, written, re, a)
	}
	return p.classifyAccessAt(a, re, path.Clean(a.Resolved), a.Project != "")
}

// accessBoth judges an access as written (abs, in the written frame) and
// as resolved (r, in the resolved frame re); the stricter verdict wins.
func (p *Policy) accessBoth(a Access, abs string, re pathEnv, r Access) Verdict {
	e := pathEnv{dir: a.Dir, project: cleanAbs(a.Project), home: cleanAbs(a.Home), tmp: cleanAbs(a.TmpDir), env: a.Env, tmpDone: true}
	w := a
	w.Link = ""
	v := p.classifyAccessAt(w, e, abs, false)
	rv := p.classifyAccessAt(r, re, path.Clean(r.Resolved), r.Project != "")
	if rv.Decision > v.Decision {
		return rv
	}
	return v
}

// classifyAccessAt judges an access to abs located in e; jailed says
// a.Inside is the jail's word on whether abs lies in the project.
func (p *Policy) classifyAccessAt(a Access, e pathEnv, abs string, jailed bool) Verdict {
	abs = path.Clean(abs)
	l := e.locate(abs)
	if jailed && !a.Inside && (l == locProject || l == locProjectRoot) {
		// The jail says it leads outside (a symlink).
		l = locOther
	}
	j := &judgement{}
	what := abs
	if a.Link != "" {
		what = abs + " via symlink " + a.Link
	}
	switch {
	case strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/"):
		// bash's network redirections: the classic reverse shell
		j.eff.Network = true
		j.match(idNetReverseShell, "redirection to "+abs)
	case l == locDevSafe:
		j.kind = kPure
	case l == locDevice:
		id := idDiskReadRaw
		if a.Write {
			id = idDevice
		}
		j.match(id, what)
	case a.Write:
		j.eff.Writes = append(j.eff.Writes, abs)
		switch {
		case e.protectedWrite(abs):
			j.match(idWriteProtected, what)
		case agentConfig(abs):
			j.match(idWriteAgentConfig, what)
		case a.Via == "redirect" && slices.Contains(p.Bookkeeping, abs):
			j.kind = kPure
			j.allowID = idAgentBookkeeping
		case l.writable():
			j.kind = kEdit
		default:
			j.kind = kOther
			j.match(idWriteOutside, what)
		}
	default:
		j.eff.Reads = append(j.eff.Reads, abs)
		switch {
		case e.credential(abs):
			j.kind = kRead
			j.match(idReadCredentials, what)
		case l.inside() || l == locTempRoot || l == locSharedTmp || e.agentState(abs) || a.Via == "glob" || a.Via == "cd" || a.Via == "stat" ||
			(a.Via == "source" || a.Via == "startup") && e.loginFile(abs):
			// reading inside the project needs no approval, even in
			// default mode (plan mode is for reading); nor do listing a
			// directory for a glob, changing into it or stat: they read
			// names, not contents (a command reading the files asks then)
			j.kind = kPure
			j.allowID = idReadOnly
		default:
			j.kind = kRead
			j.match(idReadOutside, what)
		}
	}
	p.strictAccess(j, l, a, abs, what)
	if p.Mode == ModeEdits && a.Via == "agent" && (!a.Write || a.Inside) {
		// Edits mode: the agent's file tools change the project freely;
		// what asks in auto mode (outside, credentials, agent settings)
		// still asks.
		return p.settleIn(j, ModeAuto)
	}
	v := p.settle(j)
	if v.Rule == idModeDefault.String() && a.Write {
		// Not a shell command: say what default mode asks about here.
		v.Reason = "default mode asks before every file change: " + abs
		v.Hint = "approve it, or run with --mode edits to let the agent's file tools change the project without asking (shell commands still ask)"
		if a.Via != "agent" {
			v.Hint = "approve it, or run guardsh --mode auto to allow changes inside the project"
		}
	}
	return v
}
