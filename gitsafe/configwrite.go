package gitsafe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// ConfigWrite is a change to a repository's own config file (.git/config)
// that a command line makes: git config KEY VALUE, git config --unset KEY,
// git remote add NAME URL, git remote set-url NAME URL, git branch
// --set-upstream-to / --unset-upstream. The sandbox keeps that file
// read-only, so guardsh's privileged side makes an approved one itself
// (Locate, then Apply): it runs the same git words on a private copy of
// the file and writes the result back only when the keys that changed are
// the ones the command line names, to the values it names, and none of
// them makes git run a program.
type ConfigWrite struct {
	// Globals are the -C DIR words before the subcommand, in order.
	Globals []string
	// Words are the subcommand and its words, run as they are.
	Words []string
	// Options are the option words of the command line (--local, --unset,
	// --push, -u ...): an approval has to name them (interp.BrokerCheck).
	Options []string

	keys func(k string) bool // the keys the command may change (as git config --list names them)
	want map[string]*string  // a key's value afterwards (nil: absent)
}

// Harmless option words of a config write: they change nothing about
// what is written (--local is git config's default file).
var harmlessConfigOptions = []string{"--local"}

// NamedOptions are w's option words that an approval must name itself
// (every option but --local).
func (w *ConfigWrite) NamedOptions() []string {
	var out []string
	for _, o := range w.Options {
		if !slices.Contains(harmlessConfigOptions, o) {
			out = append(out, o)
		}
	}
	return out
}

// envRedirects are the variables that send git config (or git) to another
// file or repository than the one the working directory is in.
var envRedirects = []string{"GIT_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_WORK_TREE",
	"GIT_COMMON_DIR", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES"}

// ParseConfigWrite reads a git command line (without the program name)
// with its environment (getenv, EnvLookup of a list; nil: none). It
// returns nil, nil when the command does not write the config file of the repository it runs in (it reads, writes
// another file: --file, --global, --system, --worktree, GIT_CONFIG, or it
// is not one of ConfigWrite's commands), a ConfigWrite when it is one of
// those writes in a form Apply makes, and a *Refusal for a write of the
// repository's config in any other form (--add, --replace-all,
// --rename-section, --remove-section, --edit, --type, a value pattern,
// other options and global options) or of a key that runs a program or
// sends git elsewhere (RunsProgram, include, core.worktree ...): then the
// ConfigWrite comes too, to Locate the file the refused write is for.
func ParseConfigWrite(args []string, getenv func(string) string) (*ConfigWrite, error) {
	for _, name := range envRedirects {
		if getenv != nil && getenv(name) != "" {
			return nil, nil // git writes where the variable says; the sandbox decides
		}
	}
	w := &ConfigWrite{}
	badGlobal := ""
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "" || a[0] != '-' {
			break
		}
		switch {
		case isRedirectOption(a):
			return nil, nil
		case a == "-C" && i+1 < len(args):
			w.Globals = append(w.Globals, a, args[i+1])
			i++
		default:
			if badGlobal == "" {
				badGlobal = a
			}
			if (a == "-c" || a == "--exec-path" || a == "--config-env" || a == "--super-prefix") && i+1 < len(args) {
				i++
			}
		}
	}
	if i >= len(args) {
		return nil, nil
	}
	w.Words = args[i:]
	sub, rest := args[i], args[i+1:]
	var err error
	var ok bool
	switch sub {
	case "config":
		ok, err = w.parseConfig(rest)
	case "remote":
		ok, err = w.parseRemote(rest)
	case "branch":
		ok, err = w.parseBranch(rest)
	}
	switch {
	case err != nil:
		return w, err
	case !ok:
		return nil, nil
	case badGlobal != "":
		return w, &Refusal{Why: fmt.Sprintf("git option %s before the subcommand", badGlobal), Hint: hintWrite}
	}
	return w, nil
}

// isRedirectOption reports whether a git global option sends git to
// another repository or config.
func isRedirectOption(a string) bool {
	for _, p := range []string{"--git-dir", "--work-tree", "--bare", "--namespace"} {
		if a == p || strings.HasPrefix(a, p+"=") {
			return true
		}
	}
	return false
}

const hintWrite = "guardsh's privileged side makes only these writes of the repository's config: git config [--local] KEY VALUE, git config [--local] --unset KEY, git remote add NAME URL, git remote set-url [--push] NAME URL, git branch --set-upstream-to=UPSTREAM [BRANCH], git branch --unset-upstream [BRANCH]; ask the human to make any other change"

// parseConfig reads git config's words (options come first: git config
// stops at the first word that is not an option).
func (w *ConfigWrite) parseConfig(rest []string) (bool, error) {
	unset := false
	var pos []string
	k := 0
	for ; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			k++
			break
		}
		if a == "" || a[0] != '-' {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--local":
		case a == "--unset":
			unset = true
		case a == "--file" || a == "-f" || name == "--file" || strings.HasPrefix(a, "-f") && len(a) > 2 ||
			a == "--global" || a == "--system" || a == "--worktree" || name == "--blob":
			return false, nil // another file: the sandbox decides
		case isConfigRead(a):
			return false, nil
		default:
			if !configWriteOption(a) {
				return false, nil // an option git config reads with (--show-origin, -z, --type ...)
			}
			return false, &Refusal{Why: "git config " + a + " is not a write guardsh's privileged side makes", Hint: hintWrite}
		}
		w.Options = append(w.Options, a)
	}
	pos = rest[k:]
	switch {
	case unset && len(pos) == 1:
		key := pos[0]
		if err := configKeyRefused(key, "", false); err != nil {
			return false, err
		}
		w.expect(key, nil)
		return true, nil
	case !unset && len(pos) == 2:
		key, v := pos[0], pos[1]
		if err := configKeyRefused(key, v, true); err != nil {
			return false, err
		}
		w.expect(key, &v)
		return true, nil
	case !unset && len(pos) < 2:
		return false, nil // a read (git config KEY), or nothing
	}
	return false, &Refusal{Why: fmt.Sprintf("git config with %d words after the options (a value pattern) is not a write guardsh's privileged side makes", len(pos)), Hint: hintWrite}
}

// isConfigRead reports whether a git config option makes it a read.
func isConfigRead(a string) bool {
	switch a {
	case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l":
		return true
	}
	return false
}

// configWriteOption reports whether a git config option makes it a write
// of another kind than Apply makes.
func configWriteOption(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "--add", "--replace-all", "--unset-all", "--rename-section", "--remove-section", "--edit", "-e",
		"--type", "--bool", "--int", "--bool-or-int", "--path", "--expiry-date", "--fixed-value", "--default", "--comment":
		return true
	}
	return false
}

// expect records that key must have value v afterwards (nil: absent), and
// that key alone may change.
func (w *ConfigWrite) expect(key string, v *string) {
	k := canonicalKey(key)
	w.want = map[string]*string{k: v}
	w.keys = func(x string) bool { return x == k }
}

// canonicalKey is key as git config --list names it: section and variable
// in lower case, a subsection as it is.
func canonicalKey(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// configKeyRefused refuses a key (and value) the privileged side never
// writes, whatever the approval: one that makes git run a program
// (RunsProgram), read config from elsewhere (include, includeIf), look
// for the repository elsewhere (core.worktree, core.bare), name a file
// git writes to (writesFile) or a remote on this machine (localRemote;
// set false: an unset, which removes such a remote).
func configKeyRefused(key, v string, set bool) error {
	lk := strings.ToLower(key)
	if RunsProgram(lk, v) || strings.HasPrefix(lk, "include") || lk == "core.worktree" || lk == "core.bare" ||
		strings.HasPrefix(lk, "protocol.") || lk == "safe.directory" || lk == "core.attributesfile" || lk == "core.fsmonitor" ||
		lk == "core.hookspath" || lk == "core.pager" || lk == "core.editor" || lk == "core.sshcommand" || strings.HasPrefix(lk, "alias.") ||
		strings.HasPrefix(lk, "filter.") || writesFile(lk) || set && localRemote(key, v) {
		return &Refusal{Why: fmt.Sprintf("%s is a git config key that runs a program, sends git elsewhere, names a file git writes or a remote on this machine (whose hooks a push runs): guardsh's privileged side does not write it, whatever the approval", key),
			Hint: "Set it yourself in your own ~/.gitconfig or the repository's config if you trust it"}
	}
	return nil
}

// writesFile reports whether git config key k (lower case) names a file
// or directory git writes to: http.cookieFile (http.<url>.cookieFile),
// where git fetch over http saves curl's cookie jar with http.saveCookies,
// replacing the file (a ~/.bashrc) with lines holding the server's
// Set-Cookie values; format.outputDirectory, where git format-patch
// writes its patches (commit messages as written).
func writesFile(k string) bool {
	return strings.HasPrefix(k, "http.") && strings.HasSuffix(k, ".cookiefile") || k == "format.outputdirectory"
}

// localRemote reports whether config key key set to v names a remote on
// this machine (a path, ".", a file:// URL) as a remote's URL or push URL
// or as the base an url.<base>.insteadOf or pushInsteadOf leads to: the
// user's own git push to it runs that repository's receive-pack there,
// with its hooks, outside any sandbox.
func localRemote(key, v string) bool {
	lk := strings.ToLower(key)
	local := func(u string) bool {
		return strings.HasPrefix(strings.ToLower(u), "file://") || !strings.Contains(u, "://") && !scpLike(u)
	}
	switch {
	case strings.HasPrefix(lk, "remote.") && (strings.HasSuffix(lk, ".url") || strings.HasSuffix(lk, ".pushurl")):
		return local(v)
	case strings.HasPrefix(lk, "url.") && (strings.HasSuffix(lk, ".insteadof") || strings.HasSuffix(lk, ".pushinsteadof")):
		return local(key[len("url."):strings.LastIndexByte(key, '.')])
	}
	return false
}

// parseRemote reads git remote add NAME URL and git remote set-url
// [--push] NAME URL; its other writes (rename, remove, set-head,
// set-branches) change refs too and are refused.
func (w *ConfigWrite) parseRemote(rest []string) (bool, error) {
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		return false, nil // git remote [-v]: a read
	}
	op, words := rest[0], rest[1:]
	var opts, pos []string
	for k, a := range words {
		if a == "--" {
			pos = append(pos, words[k+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(pos) == 0 {
			opts = append(opts, a)
			continue
		}
		pos = append(pos, a)
	}
	switch op {
	case "add", "set-url":
	case "rename", "rm", "remove", "set-head", "set-branches", "prune", "update":
		if op == "prune" || op == "update" {
			return false, nil // refs and the network, not the config
		}
		return false, &Refusal{Why: "git remote " + op + " changes refs as well as the config: guardsh's privileged side does not make it", Hint: hintWrite}
	default:
		return false, nil // get-url, show: reads
	}
	push := false
	for _, o := range opts {
		if op == "set-url" && o == "--push" {
			push = true
			continue
		}
		return false, &Refusal{Why: "git remote " + op + " " + o + " is not a write guardsh's privileged side makes", Hint: hintWrite}
	}
	w.Options = opts
	if len(pos) != 2 {
		return false, &Refusal{Why: fmt.Sprintf("git remote %s with %d words (want NAME URL)", op, len(pos)), Hint: hintWrite}
	}
	name, url := pos[0], pos[1]
	if strings.Contains(url, "::") {
		return false, &Refusal{Why: "a remote URL with a transport:: prefix runs a remote helper program: guardsh's privileged side does not write it", Hint: "Add the remote yourself if you trust it"}
	}
	key := "remote." + name + ".url"
	if push {
		key = "remote." + name + ".pushurl"
	}
	if err := configKeyRefused(key, url, true); err != nil {
		return false, err
	}
	w.want = map[string]*string{key: &url}
	fetch := "remote." + name + ".fetch"
	w.keys = func(x string) bool { return x == key || op == "add" && x == fetch }
	return true, nil
}

// parseBranch reads git branch --set-upstream-to=UP / -u UP [BRANCH] and
// --unset-upstream [BRANCH]; other git branch commands are not config
// writes here.
func (w *ConfigWrite) parseBranch(rest []string) (bool, error) {
	// the branch and upstream operands name no config key of their own:
	// the keys that may change are any branch's remote and merge
	var opts []string
	upstream := false
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		switch {
		case a == "-u" || a == "--set-upstream-to":
			upstream = true
			opts = append(opts, a)
			k++ // its upstream operand
			continue
		case strings.HasPrefix(a, "--set-upstream-to=") || strings.HasPrefix(a, "-u") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			upstream = true
		case a == "--unset-upstream":
			upstream = true
		}
		opts = append(opts, a)
	}
	if !upstream {
		return false, nil
	}
	for _, o := range opts {
		name, _, _ := strings.Cut(o, "=")
		if o != "-u" && o != "--unset-upstream" && name != "--set-upstream-to" && !(strings.HasPrefix(o, "-u") && !strings.HasPrefix(o, "--")) {
			return false, &Refusal{Why: "git branch " + o + " with an upstream change is not a write guardsh's privileged side makes", Hint: hintWrite}
		}
	}
	w.Options = opts
	w.keys = func(x string) bool {
		return strings.HasPrefix(x, "branch.") && (strings.HasSuffix(x, ".remote") || strings.HasSuffix(x, ".merge"))
	}
	w.want = map[string]*string{}
	return true, nil
}

// maxConfigBytes bounds the config file Apply reads and writes.
const maxConfigBytes = 1 << 20

// Locate returns the config file w writes, run in dir with env (the
// caller's environment; GIT_* variables are dropped as Env does): the
// repository's own git directory's config, refused (a *Refusal) when the
// repository is redirected or its config runs programs (checkRepo), is
// bare, or its git directory is not the work tree's .git directory.
func (w *ConfigWrite) Locate(gitPath, dir string, env []string) (string, error) {
	env = Env(env)
	if err := checkRepo(gitPath, dir, env, w.Globals); err != nil {
		return "", err
	}
	out, err := run(gitPath, dir, env, append(append([]string(nil), w.Globals...), "rev-parse", "--path-format=absolute", "--absolute-git-dir", "--show-toplevel")...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || lines[1] == "" {
		return "", &Refusal{Why: "the repository has no work tree (bare)", Hint: hintRedirect}
	}
	gitDir, top := filepath.Clean(lines[0]), filepath.Clean(lines[1])
	if gitDir != filepath.Join(top, ".git") {
		return "", &Refusal{Why: fmt.Sprintf("the repository's git directory %s is not its work tree's .git", gitDir), Hint: hintRedirect}
	}
	return filepath.Join(gitDir, "config"), nil
}

// Apply makes w on the config file at path (what Locate returned), for a
// command run in dir: the file is read without following a link, w's git
// words run on a private copy of the repository's config (a git directory
// of its own; the objects and refs are the repository's, read only), and
// the result, checked as ConfigWrite says, is written back into the same
// file (the same inode: a read-only bind mount of it elsewhere stays).
// git's output goes to stdout and stderr; status is its exit status. An
// error means nothing was written.
func (w *ConfigWrite) Apply(gitPath, dir, path string, env []string, stdout, stderr io.Writer) (status int, err error) {
	status, _, err = w.ApplyFrom(gitPath, dir, path, nil, env, stdout, stderr)
	return status, err
}

// ApplyFrom is Apply made from base, the content the file must have (nil:
// the file as it is): where the session can write the file itself (the
// container level, where the privileged side's record of it is what
// counts), the write is made from the record, never from what the session
// put there, and refused when the file is not the record. written is the
// file's content afterwards (what the privileged side wrote, or the
// unchanged content); nil when nothing was written.
func (w *ConfigWrite) ApplyFrom(gitPath, dir, path string, base []byte, env []string, stdout, stderr io.Writer) (status int, written []byte, err error) {
	env = Env(env)
	gitDir := filepath.Dir(path)
	dfd, err := openDirNoFollow(gitDir)
	if err != nil {
		return 0, nil, &Refusal{Why: fmt.Sprintf("%s: %v", gitDir, err), Hint: hintRedirect}
	}
	defer unix.Close(dfd)
	old, err := readAt(dfd, "config")
	if err != nil {
		return 0, nil, &Refusal{Why: fmt.Sprintf("%s: %v", path, err), Hint: hintRedirect}
	}
	if base != nil {
		if !bytes.Equal(old, base) {
			return 0, nil, &Refusal{Why: path + " is not as the session's record of it (a command of the session changed it; the change is undone before an approved command runs)", Hint: "Run the command again"}
		}
		old = base
	}
	priv, err := os.MkdirTemp("", "guardsh-gitconfig-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(priv)
	head, err := readAt(dfd, "HEAD")
	if err != nil {
		return 0, nil, &Refusal{Why: fmt.Sprintf("%s: %v", filepath.Join(gitDir, "HEAD"), err), Hint: hintRedirect}
	}
	// Every file made exclusively: nothing planted in the private
	// directory is written through (what is read back is checked anyway).
	for _, d := range []string{"objects", "objects/info", "refs"} {
		if err := os.Mkdir(filepath.Join(priv, d), 0o700); err != nil {
			return 0, nil, err
		}
	}
	files := map[string][]byte{"config": old, "HEAD": head, "objects/info/alternates": []byte(filepath.Join(gitDir, "objects") + "\n")}
	if w.Words[0] == "branch" {
		// the upstream and the branch must exist as refs
		if b, err := readAt(dfd, "packed-refs"); err == nil {
			files["packed-refs"] = b
		}
		if err := copyRefs(gitDir, priv); err != nil {
			return 0, nil, err
		}
	}
	for name, b := range files {
		if err := writeExclusive(filepath.Join(priv, name), b); err != nil {
			return 0, nil, err
		}
	}
	argv := append(append(append([]string(nil), overrides...), "--git-dir="+priv), w.Words...)
	cmd := exec.Command(gitPath, argv...)
	cmd.Dir = dir
	for k := 1; k < len(w.Globals); k += 2 {
		if filepath.IsAbs(w.Globals[k]) {
			cmd.Dir = w.Globals[k]
		} else {
			cmd.Dir = filepath.Join(cmd.Dir, w.Globals[k])
		}
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil, nil // git's own refusal, said on stderr: nothing to write
		}
		return 0, nil, err
	}
	fd, err := openNoFollow(-1, filepath.Join(priv, "config"), unix.O_RDONLY)
	if err != nil {
		return 0, nil, err
	}
	f := os.NewFile(uintptr(fd), "config")
	newer, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	f.Close()
	if err != nil || len(newer) > maxConfigBytes {
		return 0, nil, fmt.Errorf("reading the written config: %v (or over %d bytes)", err, maxConfigBytes)
	}
	if err := w.check(gitPath, dir, env, old, newer); err != nil {
		return 0, nil, err
	}
	if bytes.Equal(old, newer) {
		return 0, old, nil
	}
	if err := rewriteAt(dfd, "config", old, newer); err != nil {
		return 0, nil, err
	}
	return 0, newer, nil
}

// check compares the config before and after as git reads them: only the
// keys w may change changed, to values no key refusal applies to, and the
// keys w names have the values it names.
func (w *ConfigWrite) check(gitPath, dir string, env []string, old, newer []byte) error {
	before, err := listConfig(gitPath, dir, env, old)
	if err != nil {
		return err
	}
	after, err := listConfig(gitPath, dir, env, newer)
	if err != nil {
		return err
	}
	changed := map[string]bool{}
	for k, vs := range after {
		if !slices.Equal(vs, before[k]) {
			changed[k] = true
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			changed[k] = true
		}
	}
	for k := range changed {
		if !w.keys(k) {
			return &Refusal{Why: fmt.Sprintf("the write would change %s, which the command line does not name", k), Hint: hintWrite}
		}
		for _, v := range after[k] {
			if err := configKeyRefused(k, v, true); err != nil {
				return err
			}
		}
	}
	for k, v := range w.want {
		got, ok := after[k]
		switch {
		case v == nil && ok:
			return &Refusal{Why: k + " is still set after the write", Hint: hintWrite}
		case v != nil && (len(got) != 1 || got[0] != *v):
			return &Refusal{Why: fmt.Sprintf("%s would be %q, not the value the command line names", k, got), Hint: hintWrite}
		}
	}
	return nil
}

// listConfig is git config --list of the config text b (read on stdin:
// nothing of it is a file anyone else can change meanwhile), by key in
// order of appearance.
func listConfig(gitPath, dir string, env []string, b []byte) (map[string][]string, error) {
	cmd := exec.Command(gitPath, append(append([]string(nil), overrides...), "config", "--file", "-", "--list", "-z")...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(b)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git config --list: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	m := map[string][]string{}
	for _, rec := range strings.Split(out.String(), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		m[k] = append(m[k], v)
	}
	return m, nil
}

// copyRefs copies the loose refs of gitDir into priv (at most 10,000
// files, none followed through a link).
func copyRefs(gitDir, priv string) error {
	n := 0
	root := filepath.Join(gitDir, "refs")
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(gitDir, p)
		switch {
		case d.IsDir():
			if rel == "refs" {
				return nil
			}
			return os.Mkdir(filepath.Join(priv, rel), 0o700)
		case d.Type().IsRegular():
			if n++; n > 10000 {
				return errors.New("more than 10,000 refs")
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 4096 {
				return nil
			}
			return writeExclusive(filepath.Join(priv, rel), b)
		}
		return nil
	})
}

func writeExclusive(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	return errors.Join(werr, f.Close())
}

// openDirNoFollow opens the directory at the absolute path p one component
// at a time, following no symbolic link on the way.
func openDirNoFollow(p string) (int, error) {
	if !filepath.IsAbs(p) {
		return -1, fmt.Errorf("%s is not absolute", p)
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range strings.Split(strings.Trim(filepath.Clean(p), "/"), "/") {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("opening %s without following a link: %w", c, err)
		}
		fd = next
	}
	return fd, nil
}

// openNoFollow opens name in the directory dfd (-1: name is a path) as a
// regular file with one link, without following a link or blocking on a
// FIFO.
func openNoFollow(dfd int, name string, flags int) (int, error) {
	if dfd < 0 {
		dfd = unix.AT_FDCWD
	}
	fd, err := unix.Openat(dfd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a regular file with one name", name)
	}
	return fd, nil
}

// readAt reads the regular file name in the directory dfd (bounded).
func readAt(dfd int, name string) ([]byte, error) {
	fd, err := openNoFollow(dfd, name, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err == nil && len(b) > maxConfigBytes {
		err = fmt.Errorf("over %d bytes", maxConfigBytes)
	}
	return b, err
}

// rewriteAt replaces the content of the regular file name in dfd, which
// must still be old, by newer, in place.
func rewriteAt(dfd int, name string, old, newer []byte) error {
	fd, err := openNoFollow(dfd, name, unix.O_RDWR)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	cur, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return &Refusal{Why: name + " changed while the write was being made", Hint: "Run the command again"}
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(newer, 0); err != nil {
		return err
	}
	return f.Sync()
}

// EnvLookup returns the lookup of name in env (NAME=value words, the last
// one wins), for ParseConfigWrite.
func EnvLookup(env []string) func(string) string {
	return func(name string) string {
		for _, e := range slices.Backward(env) {
			if v, ok := strings.CutPrefix(e, name+"="); ok {
				return v
			}
		}
		return ""
	}
}
