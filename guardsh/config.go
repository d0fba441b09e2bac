package guardsh

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Configuration files.
//
// The user file is $GUARDSH_CONFIG if set, else
// $XDG_CONFIG_HOME/guardsh/config.toml, else ~/.config/guardsh/config.toml.
// The project file is .guardsh.toml at the project root. Both are optional;
// a file that exists but cannot be read, parsed or checked is an error that
// names the file, line and column: guardsh never runs on a half-understood
// configuration.
//
//	# ~/.config/guardsh/config.toml
//	mode = "auto"                          # default | plan | auto | bypass | strict
//	trusted_projects = ["~/src/guardsh"]   # their .guardsh.toml may also allow
//
//	[[rule]]
//	id = "user.make-test"
//	decision = "allow"                     # allow | ask | deny
//	prefix = ["make", "test*"]             # normalised argv prefix, each word a glob
//	match = ["make test", "make test-unit V=1"]
//	not_match = ["make install"]
//
//	[[rule]]
//	id = "user.npm-install"
//	decision = "ask"
//	prefix = ["npm", "install"]
//	network = true                         # rights an approved command receives
//	write = ["~/.npm"]
//
// A project file (it comes with the repository the agent works on) may only
// tighten: its allow rules, its rights (network, write) and a mode looser
// than the user's are ignored with a warning unless the user file lists the
// project in trusted_projects.

// UserConfigFile is the name of the user file under the config directory.
const UserConfigFile = "guardsh/config.toml"

// ProjectConfigFile is the project file's name at the project root.
const ProjectConfigFile = ".guardsh.toml"

// Config is the merged configuration of one session.
type Config struct {
	// Mode is the mode the configuration asks for; "" if none does.
	Mode Mode
	// ModeSource names where Mode came from ("file:line").
	ModeSource string
	// Rules are the user's rules followed by the project's, checked.
	Rules []Rule
	// Trusted lists the user's trusted project roots (absolute, cleaned).
	Trusted []string
	// ProjectTrusted reports whether the project root is among Trusted.
	ProjectTrusted bool
	// AuditPath is the audit log's path if the user file sets one; "" means
	// the default (see AuditLogPath). AuditOff turns the audit log off.
	AuditPath string
	AuditOff  bool
	// AuditLimit holds the user file's [audit] max_session_mb,
	// max_file_mb and keep (zero: the default).
	AuditLimit AuditLimits
	// Files lists the files that were loaded.
	Files []string
	// Advisor configures the local model's second opinion (config_advisor.go).
	Advisor AdvisorConfig
	// Strict is the strict profile's allowlist (config_strict.go).
	Strict StrictConfig
	// Env configures the secret-free environment (config_env.go).
	Env EnvConfig
	// Network decides connections by destination (config_network.go,
	// network.go).
	Network NetworkPolicy
	// Launch and Approval are the user file's [launch] and [approval]
	// (config_launch.go).
	Launch   LaunchConfig
	Approval ApprovalConfig
	// Warnings are parts of the project file guardsh did not apply, each
	// "file:line:col: what and why". The caller must show them.
	Warnings []string
}

// ConfigError is a configuration file guardsh could not accept.
type ConfigError struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
	Msg       string
}

// Error returns "file:line:col: msg".
func (e *ConfigError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// UserConfigPath returns the user file's path for home and env.
func UserConfigPath(home string, env func(string) string) string {
	if env == nil {
		env = func(string) string { return "" }
	}
	if p := env("GUARDSH_CONFIG"); p != "" {
		return p
	}
	if x := env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, UserConfigFile)
	}
	return filepath.Join(home, ".config", UserConfigFile)
}

// fileConfig is one file as written.
type fileConfig struct {
	Mode            string       `toml:"mode"`
	TrustedProjects []string     `toml:"trusted_projects"`
	Audit           *auditConfig `toml:"audit"`
	Rule            []fileRule   `toml:"rule"`
	// Sections parsed and merged in files of their own.
	Advisor  *fileAdvisor  `toml:"advisor"`  // config_advisor.go
	Strict   *fileStrict   `toml:"strict"`   // config_strict.go
	Env      *fileEnv      `toml:"env"`      // config_env.go
	Network  *fileNetwork  `toml:"network"`  // config_network.go
	Launch   *fileLaunch   `toml:"launch"`   // config_launch.go
	Approval *fileApproval `toml:"approval"` // config_launch.go
}

type auditConfig struct {
	Path         string `toml:"path"`
	Enabled      *bool  `toml:"enabled"`
	MaxSessionMB *int64 `toml:"max_session_mb"`
	MaxFileMB    *int64 `toml:"max_file_mb"`
	Keep         *int   `toml:"keep"`
}

type fileRule struct {
	ID       string   `toml:"id"`
	Decision string   `toml:"decision"`
	Prefix   []string `toml:"prefix"`
	Reason   string   `toml:"reason"`
	Hint     string   `toml:"hint"`
	Network  bool     `toml:"network"`
	Write    []string `toml:"write"`
	Match    []string `toml:"match"`
	NotMatch []string `toml:"not_match"`
}

// LoadConfig reads the user file and the project file (project is the
// project root; "" means none) and checks every rule, including its
// match/not_match examples. env looks up environment variables (nil: none).
func LoadConfig(home, project string, env func(string) string) (*Config, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	cfg := &Config{}
	user := UserConfigPath(home, env)
	uf, usrc, err := readConfigFile(user)
	if err != nil {
		return nil, err
	}
	if uf != nil {
		cfg.Files = append(cfg.Files, user)
		for _, t := range uf.TrustedProjects {
			p := expandHome(t, home)
			if !filepath.IsAbs(p) {
				l, c := locateKey(usrc, "", 0, "trusted_projects")
				return nil, &ConfigError{user, l, c, fmt.Sprintf("trusted_projects: %q is not an absolute path (write it as /path or ~/path)", t)}
			}
			cfg.Trusted = append(cfg.Trusted, filepath.Clean(p))
		}
		if uf.Mode != "" {
			m, err := ParseMode(uf.Mode)
			if err != nil {
				l, c := locateKey(usrc, "", 0, "mode")
				return nil, &ConfigError{user, l, c, err.Error()}
			}
			l, _ := locateKey(usrc, "", 0, "mode")
			cfg.Mode, cfg.ModeSource = m, fmt.Sprintf("%s:%d", user, l)
		}
		if a := uf.Audit; a != nil {
			if a.Path != "" {
				p := expandHome(a.Path, home)
				if !filepath.IsAbs(p) {
					l, c := locateKey(usrc, "audit", 0, "path")
					return nil, &ConfigError{user, l, c, fmt.Sprintf("audit.path: %q is not an absolute path", a.Path)}
				}
				cfg.AuditPath = p
			}
			if a.Enabled != nil && !*a.Enabled {
				cfg.AuditOff = true
			}
			for _, n := range []struct {
				key string
				v   *int64
				to  *int64
			}{{"max_session_mb", a.MaxSessionMB, &cfg.AuditLimit.SessionBytes}, {"max_file_mb", a.MaxFileMB, &cfg.AuditLimit.FileBytes}} {
				if n.v == nil {
					continue
				}
				if *n.v < 1 || *n.v > 1<<20 {
					l, c := locateKey(usrc, "audit", 0, n.key)
					return nil, &ConfigError{user, l, c, fmt.Sprintf("audit.%s: %d is not a size in MiB from 1 to 1048576", n.key, *n.v)}
				}
				*n.to = *n.v << 20
			}
			if a.Keep != nil {
				if *a.Keep < 1 || *a.Keep > 100 {
					l, c := locateKey(usrc, "audit", 0, "keep")
					return nil, &ConfigError{user, l, c, fmt.Sprintf("audit.keep: %d is not a number of files from 1 to 100", *a.Keep)}
				}
				cfg.AuditLimit.Keep = *a.Keep
			}
		}
		rules, err := checkRules(user, usrc, uf.Rule, home, "")
		if err != nil {
			return nil, err
		}
		cfg.Rules = append(cfg.Rules, rules...)
		if err := cfg.applySections(user, usrc, uf, home, false); err != nil {
			return nil, err
		}
	}
	if project == "" {
		return cfg, nil
	}
	cfg.ProjectTrusted = trustedProject(cfg.Trusted, project)
	pfile := filepath.Join(project, ProjectConfigFile)
	pf, psrc, err := readConfigFile(pfile)
	if err != nil || pf == nil {
		return cfg, err
	}
	cfg.Files = append(cfg.Files, pfile)
	how := fmt.Sprintf("add %q to trusted_projects in %s to let it", project, user)
	if len(pf.TrustedProjects) > 0 {
		l, c := locateKey(psrc, "", 0, "trusted_projects")
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s:%d:%d: trusted_projects ignored: only the user file can trust a project", pfile, l, c))
	}
	if pf.Audit != nil {
		l, c := locateKey(psrc, "audit", 0, "")
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s:%d:%d: [audit] ignored: only the user file configures the audit log", pfile, l, c))
	}
	if pf.Mode != "" {
		m, err := ParseMode(pf.Mode)
		l, c := locateKey(psrc, "", 0, "mode")
		if err != nil {
			return nil, &ConfigError{pfile, l, c, err.Error()}
		}
		cur := cfg.Mode
		if cur == "" {
			cur = ModeDefault
		}
		switch {
		case cfg.ProjectTrusted || modeStrictness(m) >= modeStrictness(cur):
			cfg.Mode, cfg.ModeSource = m, fmt.Sprintf("%s:%d", pfile, l)
		default:
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s:%d:%d: mode %q ignored: an untrusted project may only choose a stricter mode than %q (%s)", pfile, l, c, m, cur, how))
		}
	}
	if err := cfg.applySections(pfile, psrc, pf, home, true); err != nil {
		return nil, err
	}
	rules, err := checkRules(pfile, psrc, pf.Rule, home, project)
	if err != nil {
		return nil, err
	}
	for i, r := range rules {
		if cfg.ProjectTrusted {
			cfg.Rules = append(cfg.Rules, r)
			continue
		}
		l, c := locateKey(psrc, "rule", i, "")
		if r.Decision == Allow {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s:%d:%d: rule %q ignored: an untrusted project may only add deny and ask rules (%s allow)", pfile, l, c, r.ID, how))
			continue
		}
		if r.Network || len(r.Write) > 0 {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s:%d:%d: rule %q: network/write rights ignored: an untrusted project cannot grant rights (%s grant them)", pfile, l, c, r.ID, how))
			r.Network, r.Write = false, nil
		}
		cfg.Rules = append(cfg.Rules, r)
	}
	return cfg, nil
}

// applySections merges the [advisor], [strict] and [env] sections of one
// file. project is true for the project file, which may only tighten
// unless c.ProjectTrusted; what it may not do goes to c.Warnings.
func (c *Config) applySections(file, src string, fc *fileConfig, home string, project bool) error {
	if err := c.applyAdvisor(file, src, fc.Advisor, project); err != nil {
		return err
	}
	if err := c.applyStrict(file, src, fc.Strict, home, project); err != nil {
		return err
	}
	if err := c.applyEnv(file, src, fc.Env, project); err != nil {
		return err
	}
	c.applyLaunch(file, src, fc.Launch, fc.Approval, project)
	return c.applyNetwork(file, src, fc.Network, project)
}

// Policy returns a policy for mode with the configuration's rules.
func (c *Config) Policy(mode Mode) *Policy {
	p := NewPolicy(mode)
	if c != nil {
		p.Rules = append(p.Rules, c.Rules...)
		p.Strict = &c.Strict
	}
	return p
}

// ResolveMode applies guardsh's precedence for the session mode: the
// --mode flag, then GUARDSH_MODE, then the configuration, then default.
// flag is the flag's value, "" when not given. It returns the mode and a
// description of where it came from.
func (c *Config) ResolveMode(flag string, env func(string) string) (Mode, string, error) {
	if flag != "" {
		m, err := ParseMode(flag)
		return m, "--mode", err
	}
	if env != nil {
		if s := env("GUARDSH_MODE"); s != "" {
			m, err := ParseMode(s)
			if err != nil {
				return "", "GUARDSH_MODE", fmt.Errorf("GUARDSH_MODE: %w", err)
			}
			return m, "GUARDSH_MODE", nil
		}
	}
	if c != nil && c.Mode != "" {
		return c.Mode, c.ModeSource, nil
	}
	return ModeDefault, "default", nil
}

// modeStrictness orders modes from the loosest (bypass) to the strictest
// (strict).
func modeStrictness(m Mode) int {
	switch m {
	case ModeStrict:
		return 5
	case ModeBypass:
		return 0
	case ModeAuto:
		return 1
	case ModeEdits:
		return 2
	case ModeDefault:
		return 3
	case ModePlan:
		return 4
	}
	return 3
}

// readConfigFile reads and decodes one file; (nil, "", nil) if it does not
// exist.
func readConfigFile(name string) (*fileConfig, string, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", &ConfigError{File: name, Msg: err.Error()}
	}
	src := string(data)
	var fc fileConfig
	md, err := toml.Decode(src, &fc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.LastKey != "" && !strings.Contains(msg, pe.LastKey) {
				msg = fmt.Sprintf("%s (key %q)", msg, pe.LastKey)
			}
			line, col := pe.Position.Line, pe.Position.Col
			if st := pe.Position.Start; st > 0 && st <= len(src) {
				// The lexer's line counter may already be past the
				// newline that ended the offending line; the offset is
				// exact.
				line = strings.Count(src[:st], "\n") + 1
				col = st - strings.LastIndexByte(src[:st], '\n')
			}
			return nil, "", &ConfigError{name, line, col, msg}
		}
		msg := strings.TrimPrefix(err.Error(), "toml: ")
		line, col := 0, 0
		if m := tomlLineRE().FindStringSubmatch(msg); m != nil {
			fmt.Sscan(m[1], &line)
			msg = strings.Replace(msg, m[0], "", 1)
			if m[2] != "" {
				msg = fmt.Sprintf("key %q: %s", m[2], msg)
				if ln := strings.Split(src, "\n"); line <= len(ln) {
					if i := strings.Index(ln[line-1], m[2][strings.LastIndexByte(m[2], '.')+1:]); i >= 0 {
						col = i + 1
					}
				}
			}
		}
		return nil, "", &ConfigError{File: name, Line: line, Col: col, Msg: msg}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		table, key := "", k[len(k)-1]
		idx := 0
		if len(k) > 1 {
			table = strings.Join(k[:len(k)-1], ".") // [[strict.command]] too
			idx = arrayIndex(md, k)
		}
		l, c := locateKey(src, table, idx, key)
		return nil, "", &ConfigError{name, l, c, fmt.Sprintf("unknown key %q (known: mode, trusted_projects, [audit] path/enabled/max_session_mb/max_file_mb/keep, [[rule]] id/decision/prefix/reason/hint/network/write/match/not_match, [advisor], [strict], [env], [network] profiles/allow/deny; see docs/policy.md \"Configuration\")", k.String())}
	}
	return &fc, src, nil
}

var tomlLineRE = lazyRE(`^line (\d+)(?: \(last key "([^"]*)"\))?: `)

// arrayIndex guesses which [[table]] entry an undecoded key belongs to: the
// number of headers of that table before the key in document order.
func arrayIndex(md toml.MetaData, k toml.Key) int {
	n := -1
	for _, key := range md.Keys() {
		if len(key) == len(k)-1 && key.String() == k[:len(k)-1].String() {
			n++
		}
		if key.String() == k.String() {
			break
		}
	}
	if n < 0 {
		return 0
	}
	return n
}

var validID = lazyRE(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkRules turns the rules of one file into Rules, verifying decision,
// prefix globs, rights and examples. project is "" for the user file.
func checkRules(file, src string, in []fileRule, home, project string) ([]Rule, error) {
	var out []Rule
	seen := map[string]bool{}
	for i, fr := range in {
		bad := func(key, format string, args ...any) error {
			l, c := locateKey(src, "rule", i, key)
			return &ConfigError{file, l, c, fmt.Sprintf("rule %d (%s): ", i+1, orUnnamed(fr.ID)) + fmt.Sprintf(format, args...)}
		}
		if fr.ID == "" {
			return nil, bad("", "missing id (e.g. id = \"user.make-test\")")
		}
		if !validID().MatchString(fr.ID) {
			return nil, bad("id", "id %q: use letters, digits, '.', '_' and '-'", fr.ID)
		}
		if seen[fr.ID] {
			return nil, bad("id", "duplicate id %q", fr.ID)
		}
		seen[fr.ID] = true
		var d Decision
		switch strings.ToLower(fr.Decision) {
		case "allow":
			d = Allow
		case "ask":
			d = Ask
		case "deny":
			d = Deny
		case "":
			return nil, bad("", "missing decision (allow, ask or deny)")
		default:
			return nil, bad("decision", "decision %q: want allow, ask or deny", fr.Decision)
		}
		if len(fr.Prefix) == 0 {
			return nil, bad("", "missing prefix (the argv words it matches, e.g. prefix = [\"make\", \"test*\"])")
		}
		for _, w := range fr.Prefix {
			if _, err := path.Match(w, ""); err != nil {
				return nil, bad("prefix", "prefix word %q is not a valid glob", w)
			}
		}
		var writes []string
		for _, w := range fr.Write {
			p := expandHome(w, home)
			if !filepath.IsAbs(p) {
				if project == "" {
					return nil, bad("write", "write path %q must be absolute or start with ~/", w)
				}
				p = filepath.Join(project, p)
			}
			writes = append(writes, filepath.Clean(p))
		}
		l, _ := locateKey(src, "rule", i, "")
		r := Rule{
			ID: fr.ID, Decision: d, Prefix: fr.Prefix,
			Reason: fr.Reason, Hint: fr.Hint,
			Network: fr.Network, Write: writes,
			Match: fr.Match, NotMatch: fr.NotMatch,
			Source: fmt.Sprintf("%s:%d", file, l),
		}
		if r.Reason == "" {
			r.Reason = fmt.Sprintf("%s rule %s", filepath.Base(file), r.ID)
		}
		for _, ex := range fr.Match {
			argv, err := exampleArgv(ex)
			if err != nil {
				return nil, bad("match", "example %q: %v", ex, err)
			}
			if !ruleMatches(r, argv) {
				note := ""
				if strings.Contains(fr.Prefix[0], "/") {
					note = fmt.Sprintf(" (rules match the normalised argv, where a program is named without its directory: write %q)", path.Base(fr.Prefix[0]))
				}
				return nil, bad("match", "example %q does not match prefix %q%s", ex, fr.Prefix, note)
			}
		}
		for _, ex := range fr.NotMatch {
			argv, err := exampleArgv(ex)
			if err != nil {
				return nil, bad("not_match", "example %q: %v", ex, err)
			}
			if ruleMatches(r, argv) {
				return nil, bad("not_match", "example %q matches prefix %q but is listed under not_match", ex, fr.Prefix)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func orUnnamed(id string) string {
	if id == "" {
		return "no id"
	}
	return id
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// trustedProject reports whether project is one of the trusted roots, also
// after resolving symlinks.
func trustedProject(trusted []string, project string) bool {
	cands := []string{filepath.Clean(project)}
	if r, err := filepath.EvalSymlinks(project); err == nil {
		cands = append(cands, r)
	}
	for _, t := range trusted {
		ts := []string{t}
		if r, err := filepath.EvalSymlinks(t); err == nil {
			ts = append(ts, r)
		}
		for _, a := range cands {
			for _, b := range ts {
				if a == b {
					return true
				}
			}
		}
	}
	return false
}

var (
	tableHeaderRE = lazyRE(`^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?`)
)

// locateKey finds where a key is written: key in the idx-th [table] or
// [[table]] header block ("" table: the top level before any header); ""
// key: the header itself. It returns 1-based line and column, or the best
// approximation (the header, or line 1).
func locateKey(src, table string, idx int, key string) (line, col int) {
	lines := strings.Split(src, "\n")
	cur, n := "", -1
	if table == "" {
		n = 0
	}
	hl, hc := 1, 1
	keyRE := regexp.MustCompile(`^(\s*)"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i, ln := range lines {
		if m := tableHeaderRE().FindStringSubmatchIndex(ln); m != nil {
			cur = ln[m[2]:m[3]]
			if cur == table {
				n++
				if n == idx {
					hl, hc = i+1, strings.IndexByte(ln, '[')+1
					if key == "" {
						return hl, hc
					}
				}
			}
			continue
		}
		if cur == table && n == idx && key != "" {
			if m := keyRE.FindStringSubmatch(ln); m != nil {
				return i + 1, len(m[1]) + 1
			}
		}
	}
	return hl, hc
}
