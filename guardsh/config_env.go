package guardsh

import (
	"fmt"
	"strings"
)

// The [env] section (secretenv.go does the scrubbing):
//
//	[env]
//	scrub_secrets = true          # default: off for guardsh, on for guardsh-agent
//	keep = ["GH_TOKEN", "NPM_*"]  # names or globs kept even if they look secret
//	scrub = ["ACME_*"]            # more names or globs to remove
//
// A project file (.guardsh.toml) that the user does not trust may turn
// scrubbing on and add scrub patterns; its keep entries and a
// scrub_secrets = false are ignored with a warning.

type fileEnv struct {
	ScrubSecrets *bool    `toml:"scrub_secrets"`
	Keep         []string `toml:"keep"`
	Scrub        []string `toml:"scrub"`
}

// EnvConfig configures the secret-free environment ([env]).
type EnvConfig struct {
	// ScrubSecrets is scrub_secrets as the files set it; nil when none
	// did (the program's default applies, see ScrubOn).
	ScrubSecrets *bool
	// Source is where ScrubSecrets came from ("file:line").
	Source string
	// Keep are the patterns of variables kept even if they look secret
	// (the user file's, and a trusted project's).
	Keep []string
	// Extra are the patterns removed besides DefaultSecretPatterns.
	Extra []string
}

func (c *Config) applyEnv(file, src string, f *fileEnv, project bool) error {
	if f == nil {
		return nil
	}
	trusted := !project || c.ProjectTrusted
	for _, list := range []struct {
		key  string
		pats []string
	}{{"keep", f.Keep}, {"scrub", f.Scrub}} {
		for _, p := range list.pats {
			if why := checkEnvPattern(p); why != "" {
				l, col := locateEnvValue(src, list.key, p)
				return &ConfigError{file, l, col, fmt.Sprintf("env.%s: %s", list.key, why)}
			}
			if list.key == "scrub" && neverScrubbed(p) {
				l, col := locateEnvValue(src, list.key, p)
				return &ConfigError{file, l, col, fmt.Sprintf("env.scrub: %s is never scrubbed: the session needs PATH, HOME, TERM, PWD and guardsh's own GUARDSH_* variables", p)}
			}
		}
	}
	if b := f.ScrubSecrets; b != nil {
		l, col := locateKey(src, "env", 0, "scrub_secrets")
		switch {
		case *b || trusted:
			v := *b
			c.Env.ScrubSecrets, c.Env.Source = &v, fmt.Sprintf("%s:%d", file, l)
		default:
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: env.scrub_secrets = false ignored: an untrusted project may turn scrubbing on, not off (add the project to trusted_projects in the user file to let it)", file, l, col))
		}
	}
	if len(f.Keep) > 0 {
		if trusted {
			c.Env.Keep = append(c.Env.Keep, f.Keep...)
		} else {
			l, col := locateKey(src, "env", 0, "keep")
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: env.keep %s ignored: an untrusted project cannot keep variables that look secret (keep them in the user file's [env], or add the project to trusted_projects)", file, l, col, strings.Join(f.Keep, ", ")))
		}
	}
	c.Env.Extra = append(c.Env.Extra, f.Scrub...)
	return nil
}

// locateEnvValue finds the pattern p in the [env] array key: the line and
// column of its opening quote, else of the key.
func locateEnvValue(src, key, p string) (int, int) {
	l, col := locateKey(src, "env", 0, key)
	lines := strings.Split(src, "\n")
	for i := l - 1; i >= 0 && i < len(lines) && i < l+50; i++ {
		for _, q := range []string{`"` + p + `"`, `'` + p + `'`} {
			if j := strings.Index(lines[i], q); j >= 0 {
				return i + 1, j + 1
			}
		}
		if i > l-1 && strings.Contains(lines[i], "=") {
			break // the next key: the pattern was written some other way
		}
	}
	return l, col
}
