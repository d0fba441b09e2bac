package guardsh

import (
	"strings"
)

// cmdName normalises a command word to the program's name: the base name
// of a path (/usr/bin/rm, C:\Git\bin\git.exe), without a leading backslash
// (\rm), quotes, ".exe", in lower case.
func cmdName(w string) string {
	if isDynamic(w) {
		return w
	}
	w = strings.TrimLeft(w, `\`)
	w = strings.Trim(w, `"'`)
	if i := strings.LastIndexByte(w, '/'); i >= 0 && i < len(w)-1 {
		w = w[i+1:]
	}
	if strings.Contains(w, `\`) {
		if i := strings.LastIndexByte(w, '\\'); i < len(w)-1 {
			w = w[i+1:]
		}
	}
	w = strings.ToLower(w)
	w = strings.TrimSuffix(w, ".exe")
	return w
}

// baseName strips version suffixes: python3.11 -> python, pip3 -> pip,
// mkfs.ext4 -> mkfs, gcc-13 -> gcc.
func baseName(n string) string {
	for _, pre := range [...]string{"python", "pypy", "pip", "perl", "ruby", "php", "node", "lua", "mkfs", "fsck", "mkswap", "gcc", "g++", "clang", "clang++", "awk", "idle"} {
		if strings.HasPrefix(n, pre) && len(n) > len(pre) {
			rest := n[len(pre):]
			if strings.Trim(rest, "0123456789.-_") == "" || pre == "mkfs" || pre == "fsck" {
				return pre
			}
		}
	}
	return n
}

// isAssignWord reports whether w looks like NAME=value.
func isAssignWord(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 || isDynamic(w) {
		return false
	}
	for k := 0; k < i; k++ {
		c := w[k]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// basicArgv strips leading NAME=value words and normalises the command
// name, leaving wrappers in place.
func basicArgv(args []string) []string {
	i := 0
	for i < len(args) && isAssignWord(args[i]) {
		i++
	}
	if i >= len(args) {
		return nil
	}
	out := make([]string, len(args)-i)
	copy(out, args[i:])
	out[0] = baseName(cmdName(out[0]))
	return out
}

// NormalizeArgv resolves an argv to the command that actually runs, in the
// form rules match: leading NAME=value words dropped, the program by its
// name (/usr/bin/rm and \rm become rm), wrappers stripped (sudo, doas,
// env, nice, timeout, nohup, command, exec, xargs, uv run, ...), and git's
// global options (-C, -c, --git-dir) removed. Shells with -c are kept as
// they are (sh -c STRING).
func NormalizeArgv(args []string) []string {
	for range maxDepth {
		args = basicArgv(args)
		if len(args) == 0 {
			return args
		}
		if inner, _, ok := unwrap(args); ok && len(inner) > 0 {
			args = inner
			continue
		}
		if args[0] == "git" {
			i := skipGitGlobals(args)
			if i > 1 && i < len(args) {
				args = append([]string{"git"}, args[i:]...)
			}
		}
		return args
	}
	return args
}

// optSpec describes a command's options well enough to find its operands.
type optSpec struct {
	short string   // short options that take an argument
	long  []string // long options that take an argument (without "--")
}

func (s optSpec) longTakes(name string) bool {
	for _, l := range s.long {
		if l == name {
			return true
		}
	}
	return false
}

// skip returns the index of the first operand at or after i ("--" ends
// the options and is skipped), at most len(args).
func (s optSpec) skip(args []string, i int) int {
	return min(s.skip1(args, i), len(args))
}

func (s optSpec) skip1(args []string, i int) int {
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return i + 1
		}
		if len(a) < 2 || a[0] != '-' || isDynamic(a) {
			return i
		}
		i++
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && s.longTakes(a[2:]) {
				i++
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			if strings.IndexByte(s.short, a[k]) >= 0 {
				if k == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return i
}

// hasShort reports whether the option words before end contain short flag
// c (in a cluster) or one of the long names.
func hasOpt(args []string, c byte, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isDynamic(a) || len(a) < 2 || a[0] != '-' {
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[2:], "=")
			for _, l := range long {
				if name == l {
					return true
				}
			}
			continue
		}
		if c != 0 && strings.IndexByte(a[1:], c) >= 0 {
			return true
		}
	}
	return false
}

var (
	specSudo    = optSpec{short: "ugpCDhrtTUR", long: []string{"user", "group", "prompt", "close-from", "chdir", "host", "role", "type", "command-timeout", "other-user", "chroot"}}
	specDoas    = optSpec{short: "uC"}
	specPkexec  = optSpec{long: []string{"user"}}
	specEnv     = optSpec{short: "uCP", long: []string{"unset", "chdir", "argv0", "default-signal", "ignore-signal", "block-signal"}}
	specNice    = optSpec{short: "n", long: []string{"adjustment"}}
	specIonice  = optSpec{short: "cnPpu", long: []string{"class", "classdata", "pid", "pgid", "uid"}}
	specTimeout = optSpec{short: "ks", long: []string{"kill-after", "signal"}}
	specTime    = optSpec{short: "fo", long: []string{"format", "output"}}
	specStdbuf  = optSpec{short: "ioe", long: []string{"input", "output", "error"}}
	specChrt    = optSpec{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}
	specFlock   = optSpec{short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}}
	specWatch   = optSpec{short: "nq", long: []string{"interval", "equexit"}}
	specExec    = optSpec{short: "a"}
	specStrace  = optSpec{short: "eoOpPsSuUXbIE", long: []string{"output", "trace", "signal", "user"}}
	specXargs   = optSpec{short: "aEdILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-lines", "max-chars", "process-slot-var", "eof", "replace"}}
	specGitTop  = optSpec{short: "Cc", long: []string{"git-dir", "work-tree", "namespace", "exec-path", "config-env", "super-prefix", "list-cmds"}}
	specCaff    = optSpec{short: "tw"}
	specXvfb    = optSpec{short: "nsefwp", long: []string{"server-num", "server-args", "error-file", "auth-file", "wait"}}
	specRun0    = optSpec{short: "uDg", long: []string{"user", "group", "chdir", "description", "property", "setenv", "nice", "machine", "slice", "unit", "background"}}
)

// privWrappers change the user a command runs as.
var privWrappers = map[string]bool{
	"sudo": true, "doas": true, "su": true, "pkexec": true, "runuser": true, "run0": true, "sudoedit": true,
	"chroot": true, "machinectl": true, "gosu": true, "su-exec": true, "setpriv": true,
	"nsenter": true, "systemd-run": true, "unshare": true, "capsh": true,
}

// unwrap returns the command a wrapper runs. script is set instead when the
// wrapper runs a shell string (su -c STR, flock -c STR, watch).
func unwrap(args []string) (inner []string, script string, ok bool) {
	name := args[0]
	switch name {
	case "sudo":
		if len(args) > 1 && (args[1] == "-e" || args[1] == "--edit") {
			return nil, "", false
		}
		i := specSudo.skip(args, 1)
		for i < len(args) && isAssignWord(args[i]) {
			i++
		}
		if i >= len(args) {
			return nil, "", false
		}
		return args[i:], "", true
	case "doas":
		i := specDoas.skip(args, 1)
		return tail(args, i)
	case "pkexec", "run0", "gosu", "su-exec":
		spec := specPkexec
		if name == "run0" {
			spec = specRun0
		}
		i := spec.skip(args, 1)
		if name == "gosu" || name == "su-exec" {
			i++ // user
		}
		return tail(args, i)
	case "su", "runuser":
		for k := 1; k < len(args); k++ {
			a := args[k]
			switch {
			case a == "-c" || a == "--command" || a == "--session-command":
				if k+1 < len(args) {
					return nil, args[k+1], true
				}
			case strings.HasPrefix(a, "--command=") || strings.HasPrefix(a, "--session-command="):
				_, v, _ := strings.Cut(a, "=")
				return nil, v, true
			case name == "runuser" && (a == "-u" || a == "--user"):
				if k+2 < len(args) {
					i := k + 2
					if args[i] == "--" {
						i++
					}
					return tail(args, i)
				}
			}
		}
		return nil, "", false
	case "chroot":
		i := optSpec{long: []string{"userspec", "groups"}}.skip(args, 1)
		if i+1 < len(args) {
			return args[i+1:], "", true
		}
		return nil, "", false
	case "env":
		i := 1
		for i < len(args) {
			a := args[i]
			if a == "-" { // same as -i
				i++
				continue
			}
			if a == "-S" || a == "--split-string" {
				if i+1 < len(args) {
					return append(strings.Fields(args[i+1]), args[i+2:]...), "", true
				}
				return nil, "", false
			}
			if strings.HasPrefix(a, "-S") && len(a) > 2 {
				return append(strings.Fields(a[2:]), args[i+1:]...), "", true
			}
			if strings.HasPrefix(a, "--split-string=") {
				return append(strings.Fields(a[len("--split-string="):]), args[i+1:]...), "", true
			}
			j := specEnv.skip(args, i)
			if j == i {
				break
			}
			i = j
			if i > 0 && args[i-1] == "--" {
				break
			}
		}
		for i < len(args) && isAssignWord(args[i]) {
			i++
		}
		return tail(args, i)
	case "nice":
		return tail(args, specNice.skip(args, 1))
	case "ionice":
		if hasOpt(args[1:], 'p', "pid", "pgid", "uid") || hasOpt(args[1:], 'P') || hasOpt(args[1:], 'u') {
			return nil, "", false
		}
		return tail(args, specIonice.skip(args, 1))
	case "ld.so", "ld-linux.so.2", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld-musl-x86_64.so.1", "ld-musl-aarch64.so.1":
		// the dynamic loader runs the program it is given
		return tail(args, optSpec{long: []string{"library-path", "preload", "inhibit-rpath", "audit", "argv0", "glibc-hwcaps-prepend", "glibc-hwcaps-mask"}}.skip(args, 1))
	case "nsenter":
		return tail(args, optSpec{short: "tSGwrd", long: []string{"target", "setuid", "setgid", "wd", "root", "wdns", "env"}}.skip(args, 1))
	case "unshare":
		return tail(args, optSpec{short: "R", long: []string{"root", "wd", "map-user", "map-group", "setuid", "setgid", "propagation", "setgroups", "kill-child"}}.skip(args, 1))
	case "systemd-run":
		return tail(args, optSpec{short: "pEMH", long: []string{"unit", "property", "description", "slice", "uid", "gid", "nice", "working-directory", "setenv", "machine", "host", "on-calendar", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "timer-property", "path-property", "socket-property", "service-type", "expand-environment"}}.skip(args, 1))
	case "capsh":
		for k, a := range args {
			if a == "--" && k+2 < len(args) && args[k+1] == "-c" {
				return nil, args[k+2], true
			}
		}
		return nil, "", false
	case "firejail", "bwrap-lite", "sg", "script":
		if name == "sg" || name == "script" {
			for k := 1; k < len(args); k++ {
				a := args[k]
				if (a == "-c" || a == "--command") && k+1 < len(args) {
					return nil, args[k+1], true
				}
				if strings.HasPrefix(a, "--command=") {
					return nil, a[len("--command="):], true
				}
				if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c") && k+1 < len(args) {
					return nil, args[k+1], true // script -qc CMD
				}
			}
			return nil, "", false
		}
		return tail(args, optSpec{}.skip(args, 1))
	case "nohup", "builtin", "unbuffer", "dbus-run-session", "catchsegv", "torsocks", "busybox", "toybox", "linux32", "linux64", "setarch":
		i := 1
		if name == "nohup" || name == "builtin" {
			i = optSpec{}.skip(args, 1)
		}
		if name == "setarch" {
			i = 2
		}
		return tail(args, i)
	case "timeout":
		i := specTimeout.skip(args, 1)
		return tail(args, i+1)
	case "time":
		return tail(args, specTime.skip(args, 1))
	case "stdbuf":
		return tail(args, specStdbuf.skip(args, 1))
	case "setsid":
		return tail(args, optSpec{}.skip(args, 1))
	case "chrt":
		if hasOpt(args[1:], 'p', "pid") {
			return nil, "", false
		}
		i := specChrt.skip(args, 1)
		return tail(args, i+1)
	case "taskset":
		if hasOpt(args[1:], 'p', "pid") {
			return nil, "", false
		}
		i := optSpec{}.skip(args, 1)
		return tail(args, i+1)
	case "flock":
		for k := 1; k < len(args); k++ {
			if (args[k] == "-c" || args[k] == "--command") && k+1 < len(args) {
				return nil, args[k+1], true
			}
		}
		i := specFlock.skip(args, 1)
		return tail(args, i+1)
	case "watch":
		i := specWatch.skip(args, 1)
		if i >= len(args) {
			return nil, "", false
		}
		return args[i:], "", true
	case "command":
		if hasOpt(args[1:], 'v') || hasOpt(args[1:], 'V') {
			return nil, "", false
		}
		return tail(args, optSpec{}.skip(args, 1))
	case "exec":
		return tail(args, specExec.skip(args, 1))
	case "strace", "ltrace":
		if hasOpt(args[1:], 'p') {
			return nil, "", false
		}
		return tail(args, specStrace.skip(args, 1))
	case "caffeinate":
		return tail(args, specCaff.skip(args, 1))
	case "xvfb-run":
		return tail(args, specXvfb.skip(args, 1))
	case "proxychains", "proxychains4":
		return tail(args, optSpec{short: "f"}.skip(args, 1))
	case "xargs":
		i := specXargs.skip(args, 1)
		if i >= len(args) {
			return []string{"echo"}, "", true
		}
		return args[i:], "", true
	case "uv", "poetry", "pipenv", "pdm", "hatch", "rye":
		// uv run CMD, poetry run CMD ...
		i := optSpec{long: []string{"with", "python", "directory", "project", "env-file", "group", "extra"}}.skip(args, 1)
		if i < len(args) && args[i] == "run" {
			j := optSpec{short: "p", long: []string{"with", "python", "directory", "project", "env-file", "group", "extra", "package", "env", "environment"}}.skip(args, i+1)
			return tail(args, j)
		}
	case "bundle", "npm", "pnpm", "yarn", "conda", "mamba", "direnv", "dotenv":
		if len(args) > 2 && (args[1] == "exec" || (args[1] == "run" && (name == "conda" || name == "mamba"))) {
			spec := optSpec{short: "np", long: []string{"name", "prefix", "package", "cwd"}}
			return tail(args, spec.skip(args, 2))
		}
	}
	return nil, "", false
}

func tail(args []string, i int) ([]string, string, bool) {
	if i >= len(args) || i < 1 {
		return nil, "", false
	}
	return args[i:], "", true
}

// skipGitGlobals returns the index of git's subcommand.
func skipGitGlobals(args []string) int {
	i := 1
	for i < len(args) {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || isDynamic(a) {
			return i
		}
		i++
		switch {
		case a == "-C" || a == "-c":
			i++
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if specGitTop.longTakes(a[2:]) {
				i++
			}
		}
	}
	return i
}
