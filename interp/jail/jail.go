// Package jail is guardsh's one way to touch files in its own process: the
// shell's redirections, source, cd and globbing (through interp's FS) and the
// bundled agent's file tools (agentloop's Files) all resolve and open paths
// here, and the agent writes with [Jail.WriteAtomic] and [Jail.MkdirParents].
//
// The jail answers two questions and enforces one rule:
//
//   - Where does a path really lead? [Jail.Resolve] canonicalises it (every
//     symlink in every component, "." and "..") by the same procedure that
//     canonicalised the project root, and says whether the result lies inside
//     the project, compared component by component (/srv/app does not contain
//     /srv/app-evil), and which symlink led outside, if one did.
//   - Is it allowed? Not the jail's call: the caller hands the resolved truth
//     (a guardsh.Access) to the policy. The jail itself refuses only what can
//     never be meant: empty paths, NUL bytes, unexpanded "~" paths, and
//     guardsh's own private directories.
//   - Open what was checked: [Jail.Open] opens the canonical path with no
//     symlink allowed anywhere (openat2 RESOLVE_NO_SYMLINKS, or a walk with
//     O_NOFOLLOW per component), always O_NONBLOCK, then fstat: the caller
//     says whether only regular files are acceptable; a file with more than
//     one hard link is refused for writing; truncation happens only after
//     these checks.
//
// Every refusal is an *Error whose message is written for the model: what
// was wrong and what to do instead.
package jail

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symlinks one resolution may follow, as Linux's
// MAXSYMLINKS.
const maxLinks = 40

// Jail knows the project root and the directories no in-process access may
// touch. It is safe for concurrent use once configured.
type Jail struct {
	root    string   // canonical project root
	private []string // canonical directories refused to every access
}

// New returns a jail for the project rooted at project (absolute, or
// relative to the process's working directory). The root is canonicalised
// by the same procedure as every path later checked against it.
func New(project string) (*Jail, error) {
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		project = wd
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return nil, err
	}
	real, _, exists, err := canonical(abs, "")
	if err != nil {
		return nil, fmt.Errorf("project root %s: %w", project, err)
	}
	if !exists {
		return nil, fmt.Errorf("project root %s: no such directory", project)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("project root %s: %w", project, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("project root %s: not a directory", project)
	}
	return &Jail{root: real}, nil
}

// Root is the canonical project root.
func (j *Jail) Root() string { return j.root }

// AddPrivate makes dir (and everything under it) unreachable through the
// jail. guardsh uses it for its own directories (the interpreter's FIFO
// directory). Call it before the jail is shared between goroutines.
func (j *Jail) AddPrivate(dir string) error {
	real, _, _, err := canonical(filepath.Clean(dir), "")
	if err != nil {
		return err
	}
	j.private = append(j.private, real)
	return nil
}

// Contains reports whether the canonical path real lies inside the project:
// equal to the root or below it, compared per path component.
func (j *Jail) Contains(real string) bool { return within(j.root, real) }

// within reports whether path equals dir or lies below it, per component.
func within(dir, path string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// Resolved is what a path really leads to.
type Resolved struct {
	Path   string // as given
	Abs    string // absolute, lexically (joined with the working directory)
	Real   string // canonical: no symlink, ".", ".." or "//" left
	Inside bool   // Real lies inside the project
	// Link is the symlink (as a path, its own location canonical) through
	// which the path left the project, if it did.
	Link   string
	Exists bool // Real exists (false: it would be created)
}

// Resolve canonicalises path, relative to the working directory dir, and
// says whether it stays in the project. It refuses empty paths, NUL bytes,
// unexpanded "~" paths and guardsh's private directories with an *Error; a
// path that does not exist (yet) resolves as far as it exists, the rest
// lexically.
func (j *Jail) Resolve(dir, path string) (Resolved, error) {
	if err := CheckSyntax(path); err != nil {
		return Resolved{}, err
	}
	abs := path
	if !filepath.IsAbs(abs) {
		if dir == "" || !filepath.IsAbs(dir) {
			return Resolved{}, &Error{Op: "resolve", Path: path, Rule: RuleRelative,
				Reason: "relative path without an absolute working directory",
				Hint:   "give an absolute path"}
		}
		abs = dir + "/" + abs
	}
	real, link, exists, err := canonical(abs, j.root)
	if err != nil {
		return Resolved{}, &Error{Op: "open", Path: path, Err: err,
			Hint: "check the path for a symbolic link loop"}
	}
	res := Resolved{Path: path, Abs: filepath.Clean(abs), Real: real, Inside: j.Contains(real), Exists: exists}
	if !res.Inside {
		res.Link = link
	}
	for _, p := range j.private {
		if within(p, real) {
			return res, &Error{Op: "resolve", Path: path, Rule: RulePrivate,
				Reason: "this is guardsh's private directory (" + p + ")",
				Hint:   "use $TMPDIR or the project for temporary files"}
		}
	}
	return res, nil
}

// CheckSyntax refuses paths that can never be meant: empty, containing a
// NUL byte, or starting with a "~" that the shell did not expand.
func CheckSyntax(path string) error {
	switch {
	case path == "":
		return &Error{Op: "open", Path: path, Rule: RuleEmpty,
			Reason: "empty path (a variable that expanded to nothing?)",
			Hint:   "name the file, e.g. ./out.txt, and check that the variable is set"}
	case strings.IndexByte(path, 0) >= 0:
		return &Error{Op: "open", Path: strings.ReplaceAll(path, "\x00", `\0`), Rule: RuleNUL,
			Reason: "the path contains a NUL byte, which no file name can",
			Hint:   "remove the NUL byte from the path"}
	case isTilde(path):
		return &Error{Op: "open", Path: path, Rule: RuleTilde,
			Reason: `the path starts with "~", which was not expanded (it was quoted or came from a variable)`,
			Hint:   `write "$HOME/..." or the absolute path; for a file really named so, write ./` + path}
	}
	return nil
}

// isTilde reports whether path starts with ~ or ~user followed by / or end.
func isTilde(path string) bool {
	if !strings.HasPrefix(path, "~") {
		return false
	}
	first, _, _ := strings.Cut(path, "/")
	for _, c := range first[1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// canonical resolves the absolute path abs as the kernel would: component
// by component, following every symlink (relative targets from the link's
// directory, absolute ones from /), ".." physically after the symlinks
// before it. Once a component does not exist (or is not a directory), the
// rest is joined lexically and exists is false. link is the first symlink,
// located inside root, that took the resolution outside it ("" when root is
// "" or no such link).
func canonical(abs, root string) (real, link string, exists bool, err error) {
	var (
		cur   = "/"
		rest  = abs
		links = 0
	)
	for {
		rest = strings.TrimLeft(rest, "/")
		if rest == "" {
			return cur, link, true, nil
		}
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		switch comp {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		st, lerr := os.Lstat(next)
		if lerr != nil {
			if errors.Is(lerr, fs.ErrNotExist) || errors.Is(lerr, syscall.ENOTDIR) {
				return filepath.Join(next, filepath.Clean("/"+rest)), link, false, nil
			}
			return "", "", false, lerr
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			if rest != "" && !st.IsDir() {
				// "file/x": the kernel says ENOTDIR; nothing below exists.
				return filepath.Join(next, filepath.Clean("/"+rest)), link, false, nil
			}
			continue
		}
		if links++; links > maxLinks {
			return "", "", false, syscall.ELOOP
		}
		target, rerr := os.Readlink(next)
		if rerr != nil {
			return "", "", false, rerr
		}
		if target == "" {
			return filepath.Join(next, filepath.Clean("/"+rest)), link, false, nil
		}
		if link == "" && root != "" && within(root, next) {
			// Where does the link alone lead? Resolve its target on its own
			// to see whether it leaves the project.
			if t, _, _, terr := canonical(joinTarget(cur, target), ""); terr == nil && !within(root, t) {
				link = next
			}
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		rest = target + "/" + rest
	}
}

func joinTarget(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return target
	}
	return dir + "/" + target
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
