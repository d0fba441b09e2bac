package guardsh

import (
	"os"
	"path"
	"strconv"
	"strings"
)

// A path a rule looks at has two readings: as written (the logical path,
// ".." taken lexically, the way bash's cd and most people read it) and as
// resolved (what the kernel opens: every symlink followed where it is met,
// ".." taken after the component before it is resolved, /proc's magic links
// to a process's root, cwd and fds followed). A command is judged in both
// readings and the more dangerous verdict wins (classifyArgsIn,
// ClassifyAccess); the second reading is only computed when some path of
// the command resolves to something other than it is spelled.

// unknownLink is a symlink target not known statically (ln -s "$X" L in a
// checked script): whatever lies below the link is not known either.
const unknownLink = "\x00"

// maxLinkHops is the kernel's limit on symlinks followed in one lookup
// (ELOOP); a path that needs more does not resolve.
const maxLinkHops = 40

// realPath resolves p, an absolute path (not necessarily clean), as the
// kernel would: each component in turn, symlinks replaced by their target
// where they are met, ".." applied to what is resolved so far. links are
// symlinks a checked script creates before the command runs, by absolute
// path; they win over the file system. dir is the command's own working
// directory (for /proc/self/cwd), already resolved. ok is false when the
// path leads through a link whose target is not known or loops.
func realPath(p, dir string, links map[string]string) (string, bool) {
	if !path.IsAbs(p) {
		return "", false
	}
	return walkFrom("/", p, dir, links)
}

// walkFrom resolves rel (relative, or absolute: then from "/") below cur,
// a path already resolved (no symlinks in it).
func walkFrom(cur, rel, dir string, links map[string]string) (string, bool) {
	return walkLinks(cur, rel, func(p string) (string, bool) { return readLink(p, dir, links) })
}

// walkLinks resolves rel below cur (a path without symlinks), following
// the links read reports: read returns a name's target and whether it is a
// link; a target of unknownLink, or more than maxLinkHops links, is a path
// that cannot be resolved (ok false).
func walkLinks(cur, rel string, read func(string) (string, bool)) (string, bool) {
	parts := strings.Split(rel, "/")
	hops := 0
	for i := 0; i < len(parts); i++ {
		c := parts[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		t, isLink := read(next)
		if !isLink {
			cur = next
			continue
		}
		if t == unknownLink {
			return "", false
		}
		if hops++; hops > maxLinkHops {
			return "", false
		}
		if path.IsAbs(t) {
			cur = "/"
		}
		parts = append(strings.Split(t, "/"), parts[i+1:]...)
		i = -1
	}
	return cur, true
}

// realName is realPath for an operation on a name itself (unlink, rename,
// creating a link): the last component is not followed.
func realName(p, dir string, links map[string]string) (string, bool) {
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") {
		return realPath(p, dir, links)
	}
	parent, base := path.Split(p)
	r, ok := realPath(parent, dir, links)
	if !ok {
		return "", false
	}
	return path.Join(r, base), true
}

// readLink returns the target of p when p is a symlink. /proc/self and
// /proc/thread-self are not followed (they name the command's own process,
// not guardsh's); their root is "/" and their cwd the command's working
// directory. Their fds, and /dev/fd's, are the command's own, opened by
// redirections the jail judged: not followed. Another process's root that
// cannot be read is taken as "/", the reading that exposes the most.
func readLink(p, dir string, links map[string]string) (string, bool) {
	if t, ok := links[p]; ok {
		return t, true
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		proc, sub, _ := strings.Cut(rest, "/")
		self := proc == "self" || proc == "thread-self"
		if !self {
			if _, err := strconv.Atoi(proc); err != nil {
				return osReadlink(p) // /proc/mounts, /proc/net, ...
			}
		}
		switch {
		case sub == "":
			if self {
				return "", false
			}
		case sub == "root":
			if self {
				return "/", true
			}
			if t, ok := osReadlink(p); ok {
				return t, true
			}
			return "/", true
		case sub == "cwd" && self:
			if dir == "" {
				return unknownLink, true
			}
			return dir, true
		case self && (sub == "fd" || strings.HasPrefix(sub, "fd/") || sub == "exe"):
			return "", false
		case strings.HasPrefix(sub, "task/"):
			// /proc/PID/task/TID/root and cwd: the thread's, the same
			if _, tsub, ok := strings.Cut(sub[len("task/"):], "/"); ok && tsub == "root" {
				if self {
					return "/", true
				}
				if t, ok := osReadlink(p); ok {
					return t, true
				}
				return "/", true
			}
		}
	}
	if p == "/dev/fd" || strings.HasPrefix(p, "/dev/fd/") || p == "/dev/stdin" || p == "/dev/stdout" || p == "/dev/stderr" {
		return "", false
	}
	return osReadlink(p)
}

func osReadlink(p string) (string, bool) {
	t, err := os.Readlink(p)
	if err != nil || t == "" {
		return "", false
	}
	return t, true
}

// realEnv returns e with its directories resolved: the frame in which
// resolved paths are located (a project reached through a symlink is the
// project in both readings).
func (e pathEnv) realEnv() pathEnv {
	r := e
	r.resolved = true
	canon := func(p string) string {
		if p == "" {
			return ""
		}
		if q, ok := realPath(p, "", e.links); ok {
			return q
		}
		return p
	}
	r.dir = canon(e.dir)
	r.project = canon(e.project)
	r.home = canon(e.home)
	if t := r.tmpDir(); t != "" {
		r.tmp = canon(t)
	}
	return r
}
