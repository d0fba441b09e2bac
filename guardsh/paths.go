package guardsh

import (
	"path"
	"strings"
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
	env                     func(string) string // for $TMPDIR, looked up when first needed
}

func newPathEnv(c *Command) pathEnv {
	e := pathEnv{dir: c.Dir, project: cleanAbs(c.Project), home: cleanAbs(c.Home), env: c.Env}
	if e.dir == "" {
		e.dir = e.project
	}
	return e
}

// tmpDir is the session's $TMPDIR ("" if unknown).
func (e *pathEnv) tmpDir() string {
	if e.env != nil {
		if t := e.env("TMPDIR"); t != "" && path.IsAbs(t) {
			e.tmp = path.Clean(t)
		}
		e.env = nil
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
	return path.Clean(p), true
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
	for _, t := range [...]string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp"} {
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

// target is one path argument of a command, resolved.
type target struct {
	arg   string // as given
	abs   string // absolute, clean; the glob's base for patterns
	loc   loc
	whole bool // a bare glob over abs ("dir/*")
}

// resolve classifies a path argument.
func (e *pathEnv) resolve(arg string) target {
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
	a, ok := e.abs(p)
	if !ok {
		return t
	}
	t.abs = a
	t.loc = e.locate(a)
	return t
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

var rcFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true, ".profile": true,
	".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true, ".zlogout": true, ".kshrc": true,
	".mkshrc": true, ".cshrc": true, ".tcshrc": true, ".login": true, ".logout": true, ".inputrc": true,
	".bash_aliases": true, ".envrc": false,
}

// protectedWrite reports whether writing abs is denied everywhere:
// shell rc files, ~/.ssh, .git/hooks, .git/config, guardsh's config.
func (e *pathEnv) protectedWrite(abs string) bool {
	if abs == "" {
		return false
	}
	if strings.Contains(abs, "/.git/hooks/") || strings.HasSuffix(abs, "/.git/hooks") ||
		strings.HasSuffix(abs, "/.git/config") || strings.HasSuffix(abs, "/.git") || gitControlFile(abs) {
		return true
	}
	if e.project != "" && abs == e.project+"/.guardsh.toml" {
		return true
	}
	switch {
	case abs == "/etc/profile", abs == "/etc/bash.bashrc", abs == "/etc/bashrc", abs == "/etc/zshrc",
		abs == "/etc/zshenv", abs == "/etc/environment", strings.HasPrefix(abs, "/etc/profile.d"),
		strings.HasPrefix(abs, "/etc/zsh/"), strings.HasPrefix(abs, "/etc/sudoers"),
		strings.HasPrefix(abs, "/etc/ssh/"), abs == "/etc/passwd", abs == "/etc/shadow", abs == "/etc/group":
		return true
	}
	if e.home == "" {
		return false
	}
	rel, ok := strings.CutPrefix(abs, e.home+"/")
	if !ok {
		return false
	}
	if rcFiles[rel] || rel == ".ssh" || strings.HasPrefix(rel, ".ssh/") ||
		strings.HasPrefix(rel, ".config/fish/") || rel == ".config/guardsh" ||
		strings.HasPrefix(rel, ".config/guardsh/") || strings.HasPrefix(rel, ".local/state/guardsh") {
		return true
	}
	return false
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
}

// loginFile reports whether abs is a shell start-up file a login shell
// sources (/etc/profile, ~/.bashrc, ...): reading it is harmless.
func (e *pathEnv) loginFile(abs string) bool {
	switch {
	case abs == "/etc/profile", abs == "/etc/bash.bashrc", abs == "/etc/bashrc", abs == "/etc/zshrc",
		abs == "/etc/zprofile", abs == "/etc/zshenv", abs == "/etc/environment",
		strings.HasPrefix(abs, "/etc/profile.d/"), strings.HasPrefix(abs, "/etc/bash_completion"),
		strings.HasPrefix(abs, "/usr/share/bash-completion/"):
		return true
	}
	if e.home != "" {
		if rel, ok := strings.CutPrefix(abs, e.home+"/"); ok && rcFiles[rel] {
			return true
		}
	}
	return false
}

// agentState reports whether abs is an agent's shell state that its
// command wrapper sources (Claude Code's shell snapshots).
func (e *pathEnv) agentState(abs string) bool {
	return e.home != "" && strings.HasPrefix(abs, e.home+"/.claude/shell-snapshots/")
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
// source, cd, a glob or an agent file tool.
func (p *Policy) ClassifyAccess(a Access) Verdict {
	e := pathEnv{dir: a.Dir, project: cleanAbs(a.Project), home: cleanAbs(a.Home), tmp: cleanAbs(a.TmpDir)}
	abs := a.Resolved
	if abs == "" {
		var ok bool
		if abs, ok = e.abs(a.Path); !ok {
			return p.settle(judged(kOther, idUnknown, "path not known: "+displayArg(a.Path)))
		}
	}
	abs = path.Clean(abs)
	l := e.locate(abs)
	if a.Resolved != "" && a.Project != "" && !a.Inside && (l == locProject || l == locProjectRoot) {
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
