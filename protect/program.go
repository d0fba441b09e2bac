package protect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// TrustedProgram returns the program name resolves to through $PATH, like
// exec.LookPath, skipping every candidate that lies, symbolic links
// resolved (its directory or the file itself), inside one of untrusted:
// directories a sandboxed session may write, where a command could have
// planted a program of that name. The privileged side runs what it returns
// unconfined, so it must be a program no session wrote. Relative $PATH
// entries are skipped too.
func TrustedProgram(name string, untrusted []string) (string, error) {
	var roots []string
	for _, r := range untrusted {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		roots = append(roots, filepath.Clean(r))
		if e, err := filepath.EvalSymlinks(r); err == nil && e != r {
			roots = append(roots, e)
		}
	}
	inside := func(p string) bool {
		for _, r := range roots {
			if r == "/" || p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		cand := filepath.Join(dir, name)
		fi, err := os.Stat(cand)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		rdir, err := filepath.EvalSymlinks(filepath.Clean(dir))
		if err != nil || inside(filepath.Clean(dir)) || inside(rdir) {
			continue
		}
		real, err := filepath.EvalSymlinks(cand)
		if err != nil || inside(real) {
			continue
		}
		return cand, nil
	}
	return "", errors.New(name + ": not found in $PATH outside the directories sandboxed sessions may write")
}

// SessionWritable lists the directories sandboxed sessions in project may
// write, beyond which the privileged side looks for the programs it runs
// (TrustedProgram): the project, the shared temporary directories (/tmp,
// /var/tmp, /dev/shm, $TMPDIR) and $GUARDSH_SANDBOX_WRITE's entries. A
// directory only another project's session may write is not known here
// (docs/limits.md).
func SessionWritable(project string) []string {
	out := []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir()}
	if project != "" && filepath.IsAbs(project) {
		out = append(out, project)
	}
	for _, w := range filepath.SplitList(os.Getenv("GUARDSH_SANDBOX_WRITE")) {
		if filepath.IsAbs(w) {
			out = append(out, w)
		}
	}
	return out
}
