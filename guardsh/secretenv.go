package guardsh

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Secret-free environments (docs/sandbox.md). Agents inherit the user's
// environment, tokens included, and every command they run can read it.
// When scrubbing is on, the session starts with the environment minus the
// variables whose names look like secrets (DefaultSecretPatterns, plus the
// configuration's scrub patterns), except those the user's keep patterns
// name. Matching is on the variable's name, case-insensitively, with shell
// glob syntax (* ? [...]); one rule looks at values: a URL carrying a
// password (scheme://user:password@host, as in DATABASE_URL).

// DefaultSecretPatterns are the name patterns removed when scrubbing is on.
// The first eight are the obvious ones; the rest cover other common ways
// credentials are named. None of them matches PATH, HOME, TERM, the desktop
// session's variables (DBUS_SESSION_BUS_ADDRESS, XDG_SESSION_*,
// DESKTOP_SESSION, SESSION_MANAGER) or the variables that hold a path to
// a file rather than a secret (SSH_AUTH_SOCK, KUBECONFIG, NETRC,
// PGPASSFILE, GIT_ASKPASS, XAUTHORITY): removing them breaks tools and
// hides nothing, since the file stays readable (deny reading it with a
// rule). secretValue looks at the values.
var DefaultSecretPatterns = []string{
	"*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*", "AWS_*", "GH_*", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"*TOKEN",            // TOKEN, NPM_CONFIG__AUTHTOKEN, npm_config_//registry.npmjs.org/:_authToken
	"*_TOKEN_*",         // GH_TOKEN_FILE, SLACK_TOKEN_PROD
	"*SECRET*",          // SECRET_KEY_BASE, CLIENT_SECRET_ID
	"*_API_KEY*",        // GOOGLE_API_KEY_ID
	"*APIKEY*",          // APIKEY, DD_APIKEY
	"*PASSWD", "*_PASS", // SMTP_PASSWD, PASSWD, DB_PASS
	"PASS", "PGPASS",
	"*_PWD",          // MYSQL_PWD (not PWD, OLDPWD: no underscore before PWD)
	"*PASSPHRASE*",   // GPG_PASSPHRASE
	"*CREDENTIAL*",   // GOOGLE_APPLICATION_CREDENTIALS (a path: it says where the key file is)
	"*CREDS",         // CREDS, DB_CREDS
	"*_PRIVATE_KEY*", // JWT_PRIVATE_KEY_PATH
	"*_ACCESS_KEY*",  // MINIO_ACCESS_KEY_ID
	"*_AUTH", "AUTH", // NPM_CONFIG__AUTH, npm_config_//host/:_auth
	"*AUTH_HEADER*",   // AUTH_HEADER
	"*AUTHORIZATION*", // HTTP_AUTHORIZATION
	"*_AUTH_CONFIG",   // DOCKER_AUTH_CONFIG (registry passwords, base64)
	"*BEARER*",        // BEARER
	"*COOKIE*",        // COOKIE, SESSION_COOKIE
	"*_PAT",           // GITHUB_PAT (a personal access token)
	"*JWT", "*_JWT_*", // JWT, CI_JOB_JWT, CI_JOB_JWT_V2 (not JWT_ALGORITHM)
	"*_SK",         // STRIPE_SK (a secret key)
	"*_DSN", "DSN", // SENTRY_DSN (the key is the URL's user), DATABASE_DSN
	"BW_SESSION",          // Bitwarden's unlocked vault
	"OP_SESSION_*",        // 1Password's unlocked vault
	"*CONNECTION_STRING*", // AZURE_STORAGE_CONNECTION_STRING
	"*WEBHOOK*",           // SLACK_WEBHOOK_URL (the URL is the credential)
}

// valueRule is one shape of secret value, removed whatever the variable's
// name: a URL carrying credentials, or a token whose prefix says what it is.
type valueRule struct {
	what    string   // reported by Why as "(value: what)"
	markers []string // the value is examined only when it holds one of them
	re      func() *regexp.Regexp
	// check, when set, must also accept the match's last group.
	check func(string) bool
}

// notWord is what may precede a token for it to be one: the start of the
// value or a character that cannot be part of it.
const notWord = `(?:^|[^A-Za-z0-9_-])`

// valueRules are the shapes of secret values. Markers are case-sensitive
// substrings, cheap to look for in every value; the regexp confirms a
// marker's hit (so that "task-runner-..." is not an OpenAI key, nor
// "Basic authentication" a credential).
var valueRules = []valueRule{
	{what: "URL with a password", markers: []string{"://"},
		re: lazyRE(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)},
	// https://TOKEN@github.com/..., a Sentry DSN: over http(s) a user
	// without a password is a token; ssh://git@host is a user name, kept
	// unless it is token-long.
	{what: "URL with a token as its user", markers: []string{"://"},
		re: lazyRE(`(?i)(?:\b(?:https?|wss?)://[^/@\s:?#]+@|[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9_-]{20,}@)`)},
	{what: "GitHub token", markers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazyRE(notWord + `(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{what: "GitLab token", markers: []string{"glpat-"}, re: lazyRE(notWord + `glpat-[A-Za-z0-9_-]{20,}`)},
	{what: "Slack token", markers: []string{"xox"}, re: lazyRE(notWord + `xox[abprse]-[A-Za-z0-9-]{10,}`)},
	{what: "API secret key (sk-...)", markers: []string{"sk-"}, re: lazyRE(notWord + `sk-[A-Za-z0-9_-]{20,}`)},
	{what: "Stripe key", markers: []string{"k_live_", "k_test_"}, re: lazyRE(notWord + `[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`)},
	{what: "AWS access key id", markers: []string{"AKIA", "ASIA"}, re: lazyRE(`(?:^|[^A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?:[^A-Z0-9]|$)`)},
	{what: "Authorization header", markers: []string{"uthorization", "UTHORIZATION"}, re: lazyRE(`(?i)authorization:\s*(?:[A-Za-z]+\s+)?\S{6,}`)},
	// The whole value is one credential after the scheme, with a digit
	// or a symbol in it: "Basic authentication" is prose.
	{what: "Bearer/Basic credentials", markers: []string{"earer", "EARER", "asic", "ASIC"},
		re:    lazyRE(`(?i)^\s*['"]?(?:bearer|basic)\s+([A-Za-z0-9._~+/-]{12,}=*)['"]?\s*$`),
		check: func(tok string) bool { return strings.ContainsAny(tok, "0123456789+/=._~-") }},
	{what: "JWT", markers: []string{"eyJ"}, re: lazyRE(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}`)},
	{what: "npm token", markers: []string{"npm_"}, re: lazyRE(notWord + `npm_[A-Za-z0-9]{36}`)},
	{what: "Hugging Face token", markers: []string{"hf_"}, re: lazyRE(notWord + `hf_[A-Za-z0-9]{30,}`)},
	{what: "Google API key", markers: []string{"AIza"}, re: lazyRE(notWord + `AIza[0-9A-Za-z_-]{35}`)},
	{what: "PyPI token", markers: []string{"pypi-"}, re: lazyRE(notWord + `pypi-AgE[A-Za-z0-9_-]{20,}`)},
	{what: "private key", markers: []string{"PRIVATE KEY"}, re: lazyRE(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)},
}

// secretValue returns why value v is a secret whatever its variable's
// name ("(value: GitHub token)"), "" when it does not look like one.
func secretValue(v string) string {
	if len(v) < 8 {
		return ""
	}
	for i := range valueRules {
		r := &valueRules[i]
		hit := false
		for _, m := range r.markers {
			if strings.Contains(v, m) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		m := r.re().FindStringSubmatch(v)
		if m == nil || r.check != nil && !r.check(m[len(m)-1]) {
			continue
		}
		return "(value: " + r.what + ")"
	}
	return ""
}

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
	return secretValue(value)
}

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
