package guardsh

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// The [strict] section: the strict profile's allowlist.
//
//	[strict]
//	defaults = true                      # keep the built-in profile (default)
//	program_dirs = ["/usr/local/go/bin"] # more directories programs run from (user file only)
//	env = ["MY_TEST_*"]                  # variables scripts may set for programs (globs)
//
//	[[strict.command]]
//	name = "grep"                        # or "git status": a command plus subcommand words
//	flags = ["-n", "-i", "-r", "-l"]     # flags without a value, short and long
//	value_flags = ["-e", "--max-count"]  # flags that take a value; any other is refused
//	path_flags = ["-o", "--output"]      # flags whose value is a path inside the project
//	paths = true                         # positional arguments are paths inside the project (default)
//	max_args = 2                         # at most this many positional arguments (default: any)
//
// A project file's [strict] is ignored with a warning unless the project is
// trusted: the allowlist is the human's.

type fileStrict struct {
	Defaults    *bool               `toml:"defaults"`
	ProgramDirs []string            `toml:"program_dirs"`
	Env         []string            `toml:"env"`
	Command     []fileStrictCommand `toml:"command"`
}

type fileStrictCommand struct {
	Name       string   `toml:"name"`
	Flags      []string `toml:"flags"`
	ValueFlags []string `toml:"value_flags"`
	PathFlags  []string `toml:"path_flags"`
	Paths      *bool    `toml:"paths"`
	MaxArgs    *int     `toml:"max_args"`
}

// StrictConfig is the strict profile's configured allowlist (the zero
// value keeps the built-in profile alone).
type StrictConfig struct {
	// NoDefaults drops the built-in profile (defaults = false).
	NoDefaults bool
	// Commands are the configured entries, user file first.
	Commands []StrictEntry
	// ProgramDirs are directories programs may run from besides
	// DefaultProgramDirs (user file only).
	ProgramDirs []string
	// Env lists variables (globs) a script may set for the programs it
	// runs, besides the built-in harmless ones.
	Env []string
}

func (c *Config) applyStrict(file, src string, f *fileStrict, home string, project bool) error {
	if f == nil {
		return nil
	}
	if project && !c.ProjectTrusted {
		l, col := locateKey(src, "strict", 0, "")
		if l == 1 && col == 1 {
			l, col = locateKey(src, "strict.command", 0, "")
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: [strict] ignored: only the user file or a trusted project configures the strict allowlist (add the project to trusted_projects in the user file to let it)", file, l, col))
		return nil
	}
	if f.Defaults != nil {
		c.Strict.NoDefaults = !*f.Defaults
	}
	for _, d := range f.ProgramDirs {
		l, col := locateKey(src, "strict", 0, "program_dirs")
		if project {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: [strict] program_dirs ignored: only the user file chooses where programs run from", file, l, col))
			break
		}
		p := expandHome(d, home)
		if !filepath.IsAbs(p) {
			return &ConfigError{file, l, col, fmt.Sprintf("strict.program_dirs: %q is not an absolute path", d)}
		}
		c.Strict.ProgramDirs = append(c.Strict.ProgramDirs, filepath.Clean(p))
	}
	for _, e := range f.Env {
		if _, err := path.Match(e, ""); err != nil || e == "" || strings.ContainsAny(e, "= \t") {
			l, col := locateKey(src, "strict", 0, "env")
			return &ConfigError{file, l, col, fmt.Sprintf("strict.env: %q is not a variable name or glob", e)}
		}
		c.Strict.Env = append(c.Strict.Env, e)
	}
	for i, fc := range f.Command {
		bad := func(key, format string, args ...any) error {
			l, col := locateKey(src, "strict.command", i, key)
			return &ConfigError{file, l, col, fmt.Sprintf("strict.command %d (%s): ", i+1, orUnnamed(fc.Name)) + fmt.Sprintf(format, args...)}
		}
		words := strings.Fields(fc.Name)
		if len(words) == 0 {
			return bad("", "missing name (a command plus subcommand words, e.g. name = \"git status\")")
		}
		for _, w := range words {
			if strings.Contains(w, "/") || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?[=$`'\"\\") {
				return bad("name", "%q: name a command by its plain name and subcommand words (no paths, flags or globs)", w)
			}
		}
		seen := map[string]string{}
		for _, list := range []struct {
			key   string
			flags []string
		}{{"flags", fc.Flags}, {"value_flags", fc.ValueFlags}, {"path_flags", fc.PathFlags}} {
			for _, fl := range list.flags {
				switch {
				case len(fl) < 2 || fl[0] != '-' || fl == "--" || strings.ContainsAny(fl, "= \t"):
					return bad(list.key, "%q is not a flag (write \"-n\" or \"--count\", without a value)", fl)
				case seen[fl] == "value_flags" && list.key == "path_flags":
					// a path flag is a value flag: listing it in both is fine
				case seen[fl] != "":
					return bad(list.key, "%q is listed twice (in %s and %s)", fl, seen[fl], list.key)
				}
				seen[fl] = list.key
			}
		}
		e := StrictEntry{Words: words, Flags: fc.Flags, ValueFlags: fc.ValueFlags, PathFlags: fc.PathFlags, Paths: true, MaxArgs: -1}
		if fc.Paths != nil {
			e.Paths = *fc.Paths
		}
		if fc.MaxArgs != nil {
			if *fc.MaxArgs < 0 {
				return bad("max_args", "max_args must be 0 or more")
			}
			e.MaxArgs = *fc.MaxArgs
		}
		l, _ := locateKey(src, "strict.command", i, "")
		e.Source = fmt.Sprintf("%s:%d", file, l)
		c.Strict.Commands = append(c.Strict.Commands, e)
	}
	return nil
}
