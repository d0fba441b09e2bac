package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// SeatbeltProfile returns the sandbox-exec(1) profile (SBPL) for c on
// macOS: everything allowed except writes outside the writable roots (and
// to the protected paths inside them), the network unless c.Network,
// and inspecting or signalling other processes. In SBPL the last matching
// rule wins, so the protected paths are denied after the writable roots
// are allowed.
//
// The profile text is unit-tested; it has not been run on a Mac by the
// project's CI (see README "Limits").
func SeatbeltProfile(c Config) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	b.WriteString("(deny file-write*)\n(allow file-write*\n")
	for _, r := range c.WritableRoots() {
		for _, p := range darwinAliases(r) {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(p))
		}
	}
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty", "/dev/ptmx"} {
		fmt.Fprintf(&b, "  (literal %s)\n", sbplString(d))
	}
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\")\n  (regex #\"^/dev/fd/\"))\n")
	if len(c.Protected) > 0 || c.GitDir() != "" {
		b.WriteString("(deny file-write*\n")
		for _, p := range c.Protected {
			for _, a := range darwinAliases(p) {
				fmt.Fprintf(&b, "  (subpath %s)\n", sbplString(a))
			}
		}
		if g := c.GitDir(); g != "" {
			// .git itself may not be renamed or removed (its contents may
			// change: commits must work).
			fmt.Fprintf(&b, "  (literal %s)\n", sbplString(g))
		}
		b.WriteString(")\n")
	}
	if !c.Network {
		b.WriteString("(deny network*)\n")
		if c.Unix {
			b.WriteString("(allow network* (remote unix-socket))\n")
		} else {
			for _, r := range c.WritableRoots() {
				for _, a := range darwinAliases(r) {
					fmt.Fprintf(&b, "(allow network-outbound (remote unix-socket (path-regex %s)))\n", sbplRegex("^"+regexp.QuoteMeta(a)+"/"))
				}
			}
		}
	}
	b.WriteString("(deny process-info* (target others))\n")
	b.WriteString("(deny signal (target others))\n")
	b.WriteString("(deny mach-priv-task-port)\n")
	return b.String()
}

// darwinAliases lists p and, for /tmp and /var paths, the /private form
// that macOS resolves them to.
func darwinAliases(p string) []string {
	out := []string{p}
	for _, pre := range []string{"/tmp", "/var", "/etc"} {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			out = append(out, filepath.Join("/private", p))
		}
	}
	return out
}

// sbplRegex writes re as an SBPL regex literal.
func sbplRegex(re string) string {
	return `#"` + strings.ReplaceAll(re, `"`, `\"`) + `"`
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
