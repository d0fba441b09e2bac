package guardsh

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// Secret-free environments (issue 9, part 3). Agents inherit the user's
// environment, tokens included, and every command they run can read it.
// When scrubbing is on, the session starts with the environment minus the
// variables whose names look like secrets (DefaultSecretPatterns, plus the
// configuration's scrub patterns), except those the user's keep patterns
// name. Matching is on the variable's name, case-insensitively, with shell
// glob syntax (* ? [...]); one rule looks at values: a URL carrying a
// password (scheme://user:password@host, as in DATABASE_URL).

// DefaultSecretPatterns are the name patterns removed when scrubbing is on.
// The first eight are issue 9's list; the rest cover other common ways
// credentials are named. None of them matches PATH, HOME, TERM or
// SSH_AUTH_SOCK (a socket path, not a secret; the sandbox already keeps
// commands from connecting to it, and escalated git/ssh commands need it).
var DefaultSecretPatterns = []string{
	"*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*", "AWS_*", "GH_*", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"*_TOKEN_*",          // GH_TOKEN_FILE, SLACK_TOKEN_PROD
	"*SECRET*",           // SECRET_KEY_BASE, CLIENT_SECRET_ID
	"*_API_KEY*",         // GOOGLE_API_KEY_ID
	"*_APIKEY*",          // DD_APIKEY
	"*_PASSWD", "*_PASS", // SMTP_PASSWD, DB_PASS
	"*_PWD",               // MYSQL_PWD (not PWD, OLDPWD: no underscore before PWD)
	"*PASSPHRASE*",        // GPG_PASSPHRASE
	"*CREDENTIALS*",       // GOOGLE_APPLICATION_CREDENTIALS (a path: it says where the key file is)
	"*_PRIVATE_KEY*",      // JWT_PRIVATE_KEY_PATH
	"*_ACCESS_KEY*",       // MINIO_ACCESS_KEY_ID
	"*_AUTH",              // NPM_CONFIG__AUTH
	"*CONNECTION_STRING*", // AZURE_STORAGE_CONNECTION_STRING
	"*WEBHOOK*",           // SLACK_WEBHOOK_URL (the URL is the credential)
}

// urlPasswordPattern is the name under which the value rule is reported.
const urlPasswordPattern = "(value: URL with a password)"

// urlPasswordRE finds a URL with a password in its user info.
var urlPasswordRE = lazyRE(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)

// neverScrubbed reports whether the session needs name whatever the
// patterns say: the search path, the home directory, the terminal type,
// the working directory, and guardsh's own variables (GUARDSH_MODE,
// GUARDSH_CONFIG, the sandbox's GUARDSH_SANDBOX_* hand-over variables).
func neverScrubbed(name string) bool {
	switch strings.ToUpper(name) {
	case "PATH", "HOME", "TERM", "PWD":
		return true
	}
	return strings.HasPrefix(name, "GUARDSH_")
}

// EnvScrubbedVar is set in a scrubbing session's environment to the names
// removed, comma-separated ("" when none was): a nested guardsh, the
// confined interpreter and the user (echo $GUARDSH_ENV_SCRUBBED) see what
// is missing. It never holds values.
const EnvScrubbedVar = "GUARDSH_ENV_SCRUBBED"

// ScrubOn reports whether scrubbing applies: the configuration's
// scrub_secrets when a file set it, else def (off for the guardsh shell,
// on for guardsh-agent).
func (e *EnvConfig) ScrubOn(def bool) bool {
	if e == nil || e.ScrubSecrets == nil {
		return def
	}
	return *e.ScrubSecrets
}

// Scrub splits env ("NAME=value" entries) into what a session keeps and
// the names of what it removes: variables matching a default or a
// configured scrub pattern, or holding a URL with a password, unless a
// keep pattern names them. PATH, HOME, TERM, PWD and GUARDSH_* are always
// kept. removed holds names only, in env's order, each once. Scrub is a
// pure function; whether to call it is the caller's (ScrubOn).
func (e *EnvConfig) Scrub(env []string) (kept, removed []string) {
	kept = make([]string, 0, len(env))
	m := e.matcher()
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if m.why(name, value) == "" {
			kept = append(kept, kv)
			continue
		}
		if !slices.Contains(removed, name) {
			removed = append(removed, name)
		}
	}
	return kept, removed
}

// Why returns the pattern that removes variable name with value, or "" if
// it is kept.
func (e *EnvConfig) Why(name, value string) string {
	return e.matcher().why(name, value)
}

// envMatcher is an EnvConfig's patterns, compiled.
type envMatcher struct {
	keep, extra []glob
	extraSrc    []string
}

func (e *EnvConfig) matcher() *envMatcher {
	m := &envMatcher{}
	if e != nil {
		m.keep, m.extra, m.extraSrc = compileGlobs(e.Keep), compileGlobs(e.Extra), e.Extra
	}
	return m
}

func (m *envMatcher) why(name, value string) string {
	if name == "" || neverScrubbed(name) {
		return ""
	}
	lower := strings.ToLower(name)
	for _, g := range m.keep {
		if g.match(lower) {
			return ""
		}
	}
	for i, g := range defaultGlobs() {
		if g.match(lower) {
			return DefaultSecretPatterns[i]
		}
	}
	for i, g := range m.extra {
		if g.match(lower) {
			return m.extraSrc[i]
		}
	}
	if strings.Contains(value, "://") && urlPasswordRE().MatchString(value) {
		return urlPasswordPattern
	}
	return ""
}

// globFold matches a name already lower-cased against pattern p,
// ignoring case.
func globFold(p, lower string) bool { return compileGlob(p).match(lower) }

// glob is a compiled name pattern: words and * are matched without
// path.Match (scrubbing runs at every session start); patterns with ? or
// [...] fall back to it.
type glob struct {
	parts []string // lower-cased, split on *; nil: use pattern
	pat   string   // lower-cased pattern, for path.Match
}

func compileGlob(p string) glob {
	lp := strings.ToLower(p)
	if strings.ContainsAny(p, "?[") {
		return glob{pat: lp}
	}
	return glob{parts: strings.Split(lp, "*"), pat: lp}
}

func (g glob) match(lower string) bool {
	if g.parts == nil {
		ok, _ := path.Match(g.pat, lower)
		return ok
	}
	if len(g.parts) == 1 {
		return lower == g.pat
	}
	first, last := g.parts[0], g.parts[len(g.parts)-1]
	if len(lower) < len(first)+len(last) || !strings.HasPrefix(lower, first) || !strings.HasSuffix(lower, last) {
		return false
	}
	rest := lower[len(first) : len(lower)-len(last)]
	for _, mid := range g.parts[1 : len(g.parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return true
}

func compileGlobs(ps []string) []glob {
	out := make([]glob, len(ps))
	for i, p := range ps {
		out[i] = compileGlob(p)
	}
	return out
}

// defaultGlobs are DefaultSecretPatterns compiled, on first use.
var defaultGlobs = sync.OnceValue(func() []glob { return compileGlobs(DefaultSecretPatterns) })

// checkEnvPattern reports what is wrong with a keep or scrub pattern, ""
// when it is a valid glob over variable names.
func checkEnvPattern(p string) string {
	if p == "" {
		return "empty pattern"
	}
	for _, r := range p {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
		case strings.ContainsRune("*?[]!^-", r):
		default:
			return fmt.Sprintf("%q is not a variable name pattern: only letters, digits, _ and the glob characters * ? [...] may appear (no =, no values)", p)
		}
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Sprintf("%q is not a valid glob (unclosed [ ?)", p)
	}
	return ""
}

// ScrubSession is Scrub for a session's starting environment: out is env
// without the secret-looking variables and with EnvScrubbedVar naming
// them, after the names env's own EnvScrubbedVar already lists (a session
// started inside a scrubbing one); names is that list, never nil.
func (e *EnvConfig) ScrubSession(env []string) (out, names []string) {
	kept, removed := e.Scrub(env)
	names = []string{}
	out = kept[:0:0]
	for _, kv := range kept {
		if v, ok := strings.CutPrefix(kv, EnvScrubbedVar+"="); ok {
			names = appendNew(names, SplitScrubbed(v)...)
			continue
		}
		out = append(out, kv)
	}
	names = appendNew(names, removed...)
	return append(out, EnvScrubbedVar+"="+strings.Join(names, ",")), names
}

// SplitScrubbed splits a value of EnvScrubbedVar into names.
func SplitScrubbed(v string) []string {
	var out []string
	for _, n := range strings.Split(v, ",") {
		if n != "" {
			out = appendNew(out, n)
		}
	}
	return out
}

func appendNew(list []string, add ...string) []string {
	for _, n := range add {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}
