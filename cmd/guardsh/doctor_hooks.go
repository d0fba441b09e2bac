package main

// How guardsh --doctor tells whether guardsh's pre-tool hook is registered
// for an agent and whether the agent would really run it: Claude Code and
// Gemini CLI read it from their settings.json files; Codex CLI from
// hooks.json or config.toml, and runs a hook only when the user has
// trusted it (a hash of the hook pinned in config.toml).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

func readJSON(path string, v any) bool {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}

// hookGroup is one matcher group of a Claude-style hooks table
// ({"matcher": ..., "hooks": [{"type": "command", "command": ...}]}).
type hookGroup struct {
	Matcher *string       `json:"matcher" toml:"matcher"`
	Hooks   []hookHandler `json:"hooks" toml:"hooks"`
}

type hookHandler struct {
	Type           string  `json:"type" toml:"type"`
	Command        string  `json:"command" toml:"command"`
	Timeout        *int    `json:"timeout" toml:"timeout"`
	TimeoutSec     *int    `json:"timeoutSec" toml:"timeout_sec"`
	Async          bool    `json:"async" toml:"async"`
	If             string  `json:"if" toml:"-"`          // Claude Code: a permission rule the call must match
	Once           bool    `json:"once" toml:"-"`        // Claude Code: removed after its first run
	AsyncRewake    bool    `json:"asyncRewake" toml:"-"` // Claude Code: async, wakes the model later
	StatusMessage  *string `json:"statusMessage" toml:"statusMessage"`
	StatusMessage2 *string `json:"status_message" toml:"status_message"`
}

// isGuardshHook reports whether command runs guardsh's hook for proto.
func isGuardshHook(command, proto string) bool {
	return strings.Contains(command, "--hook "+proto) || strings.Contains(command, "--hook="+proto)
}

// matcherCovers reports whether a hook matcher selects tool: no matcher,
// "" and "*" select every tool; a list of names ("Bash|Edit") selects those
// names exactly; anything else is a regular expression.
func matcherCovers(m *string, tool string) bool {
	if m == nil || *m == "" || *m == "*" {
		return true
	}
	if regexp.MustCompile(`^[A-Za-z0-9_|]+$`).MatchString(*m) {
		for _, n := range strings.Split(*m, "|") {
			if n == tool {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(*m)
	return err == nil && re.MatchString(tool)
}

// hookProgram checks the program a hook command starts: it must be
// guardsh, found the way the agent's shell finds it. It returns "" when it
// is, else why not and the fix.
func hookProgram(h agentHost, command string) (why, fix string) {
	f := strings.Fields(command)
	if len(f) == 0 {
		return "the hook's command is empty", ""
	}
	prog := h.expand(strings.Trim(f[0], `"'`))
	if !strings.Contains(prog, "/") {
		p, err := lookPathIn(prog, h.env("PATH"))
		if err != nil {
			return fmt.Sprintf("it runs %q by name, which is not on the agent's PATH: the agent takes a hook it cannot start for a non-blocking error and runs the command unchecked", prog),
				"name guardsh by its absolute path in the hook's command (command -v guardsh)"
		}
		prog = p
	} else if !filepath.IsAbs(prog) {
		prog = filepath.Join(h.cwd, prog)
	}
	if !executable(prog) {
		return fmt.Sprintf("%s cannot be run", prog), "name guardsh by its absolute path in the hook's command (command -v guardsh)"
	}
	if !isGuardsh(prog, h.self) {
		return fmt.Sprintf("%s is not guardsh", prog), "name guardsh by its absolute path in the hook's command (command -v guardsh)"
	}
	return "", ""
}

// claudeManagedSettings is Claude Code's managed settings file on Linux
// (a variable for tests).
var claudeManagedSettings = "/etc/claude-code/managed-settings.json"

// claudeSettingsFiles are Claude Code's settings files, highest precedence
// first: managed, the project's local and shared ones, the user's.
func claudeSettingsFiles(h agentHost) []string {
	user := filepath.Join(h.home(), ".claude")
	if d := h.env("CLAUDE_CONFIG_DIR"); d != "" {
		user = h.expand(d)
	}
	return []string{
		claudeManagedSettings,
		filepath.Join(h.cwd, ".claude", "settings.local.json"),
		filepath.Join(h.cwd, ".claude", "settings.json"),
		filepath.Join(user, "settings.json"),
	}
}

type claudeSettings struct {
	Env                   map[string]string      `json:"env"`
	Hooks                 map[string][]hookGroup `json:"hooks"`
	DisableAllHooks       bool                   `json:"disableAllHooks"`
	AllowManagedHooksOnly bool                   `json:"allowManagedHooksOnly"`
	// StrictPluginOnly is strictPluginOnlyCustomization: true, or a list
	// of what only managed settings and plugins may customise.
	StrictPluginOnly json.RawMessage `json:"strictPluginOnlyCustomization"`
}

// managedOnlyHooks reports whether managed settings s let only their own
// hooks run (Claude Code 2.1.197, K7r: allowManagedHooksOnly, or
// strictPluginOnlyCustomization true or listing "hooks").
func (s claudeSettings) managedOnlyHooks() bool {
	if s.AllowManagedHooksOnly {
		return true
	}
	var all bool
	if json.Unmarshal(s.StrictPluginOnly, &all) == nil && all {
		return true
	}
	var list []string
	if json.Unmarshal(s.StrictPluginOnly, &list) == nil {
		for _, k := range list {
			if k == "hooks" {
				return true
			}
		}
	}
	return false
}

// claudeSetting is variable name as Claude Code sees it: from the "env"
// of the settings file with the highest precedence that sets it (Claude
// Code applies those over its environment as written: no ~ or $HOME
// expansion), else from the environment. from names the file; "" the
// environment.
func claudeSetting(h agentHost, name string) (value, from string) {
	for _, f := range claudeSettingsFiles(h) {
		var s claudeSettings
		if readJSON(f, &s) {
			if v, ok := s.Env[name]; ok {
				return v, f
			}
		}
	}
	return h.env(name), ""
}

// claudeHook: a PreToolUse group whose matcher selects the Bash tool runs
// guardsh --hook claude, in a file whose hooks Claude Code runs (Claude
// Code 2.1.197, K7r: managed settings' disableAllHooks runs none;
// managed settings that allow only their own hooks, or disableAllHooks in
// any other file, run the managed hooks alone).
func claudeHook(h agentHost) hookReport {
	var r hookReport
	disabledBy, managedOnly := "", ""
	for _, f := range claudeSettingsFiles(h) {
		var s claudeSettings
		if !readJSON(f, &s) {
			continue
		}
		if f == claudeManagedSettings && s.managedOnlyHooks() {
			managedOnly = f
		}
		if s.DisableAllHooks && disabledBy == "" {
			disabledBy = f
		}
		for _, g := range s.Hooks["PreToolUse"] {
			for _, hd := range g.Hooks {
				if hd.Type != "command" || !isGuardshHook(hd.Command, "claude") {
					continue
				}
				c := hookReport{file: f}
				if !matcherCovers(g.Matcher, "Bash") {
					c.detail, c.fix = "no PreToolUse matcher covers the Bash tool", `set "matcher": "Bash"`
				} else if hd.Once {
					c.detail, c.fix = `"once": true: Claude Code removes the hook after its first run`, `remove "once" from the hook`
				} else if hd.Async || hd.AsyncRewake {
					c.detail, c.fix = `"async": true: the hook runs in the background and cannot refuse the call`, `remove "async" from the hook`
				} else if hd.If != "" && hd.If != "Bash" && hd.If != "Bash(*)" {
					c.detail, c.fix = fmt.Sprintf("\"if\": %q: the hook runs only for the Bash calls that match it", hd.If), `remove "if" from the hook`
				} else if why, fix := hookProgram(h, hd.Command); why != "" {
					c.detail, c.fix = why, fix
				} else {
					c.effective, c.detail = true, "PreToolUse, Bash"
					if strings.Contains(hd.Command, "--no-rewrite") {
						c.notes = append(c.notes, "--no-rewrite: allowed commands run in Claude Code's own bash, judged by their text alone")
					}
				}
				if r.file == "" || c.effective && !r.effective {
					r = c
				}
			}
		}
	}
	switch {
	case !r.effective, r.file == claudeManagedSettings && disabledBy != claudeManagedSettings:
	case disabledBy != "":
		r.effective = false
		r.detail, r.fix = "disableAllHooks is set in "+disabledBy, "remove disableAllHooks from "+disabledBy
	case managedOnly != "":
		r.effective = false
		r.detail, r.fix = managedOnly+" lets only its own hooks run (allowManagedHooksOnly or strictPluginOnlyCustomization)", "register the hook in "+managedOnly
	}
	return r
}

// geminiHook: a BeforeTool group whose matcher selects run_shell_command
// runs guardsh --hook gemini.
func geminiHook(h agentHost) hookReport {
	var r hookReport
	for _, f := range []string{"/etc/gemini-cli/settings.json", filepath.Join(h.cwd, ".gemini", "settings.json"), filepath.Join(h.home(), ".gemini", "settings.json")} {
		var s struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		if !readJSON(f, &s) {
			continue
		}
		var groups []hookGroup
		if raw, ok := s.Hooks["BeforeTool"]; !ok || json.Unmarshal(raw, &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, hd := range g.Hooks {
				if hd.Type != "command" || !isGuardshHook(hd.Command, "gemini") {
					continue
				}
				c := hookReport{file: f}
				if !matcherCovers(g.Matcher, "run_shell_command") {
					c.detail, c.fix = "no BeforeTool matcher covers run_shell_command", `set "matcher": "run_shell_command"`
				} else if why, fix := hookProgram(h, hd.Command); why != "" {
					c.detail, c.fix = why, fix
				} else {
					c.effective, c.detail = true, "BeforeTool, run_shell_command"
				}
				if r.file == "" || c.effective && !r.effective {
					r = c
				}
			}
		}
	}
	return r
}

// codexHookHash is the trust hash Codex CLI computes for one command hook
// (codex-rs hooks/src/engine/discovery.rs, command_hook_hash, and
// config/src/fingerprint.rs, version_for_toml): the hook's normalised
// identity — the event's label, the group's matcher and the one handler,
// unset fields left out, timeout always given — as JSON with sorted keys
// and no spaces, SHA-256, hex, "sha256:" before it.
func codexHookHash(event string, matcher *string, command string, timeout int, async bool, status *string) string {
	handler := map[string]any{"type": "command", "command": command, "timeout": timeout, "async": async}
	if status != nil {
		handler["statusMessage"] = *status
	}
	id := map[string]any{"event_name": event, "hooks": []any{handler}}
	if matcher != nil {
		id["matcher"] = *matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // map keys sorted, as Codex's canonical JSON
	enc.SetEscapeHTML(false)   // serde_json leaves < > & as they are
	if err := enc.Encode(id); err != nil {
		return ""
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexConfig is the part of Codex's config.toml the doctor reads.
type codexConfig struct {
	Features map[string]any `toml:"features"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
	Hooks map[string]toml.Primitive `toml:"hooks"`
}

type codexHookState struct {
	Enabled     *bool  `toml:"enabled"`
	TrustedHash string `toml:"trusted_hash"`
}

func readCodexConfig(path string) (codexConfig, toml.MetaData, bool) {
	var c codexConfig
	md, err := toml.DecodeFile(path, &c)
	return c, md, err == nil
}

// codexStates reads [hooks.state."KEY"] from a config file.
func codexStates(c codexConfig, md toml.MetaData, into map[string]codexHookState) {
	p, ok := c.Hooks["state"]
	if !ok {
		return
	}
	var states map[string]codexHookState
	if md.PrimitiveDecode(p, &states) == nil {
		for k, v := range states {
			into[k] = v
		}
	}
}

// codexTomlGroups reads the PreToolUse groups of a config file's [hooks].
func codexTomlGroups(c codexConfig, md toml.MetaData) []hookGroup {
	p, ok := c.Hooks["PreToolUse"]
	if !ok {
		return nil
	}
	var groups []hookGroup
	if md.PrimitiveDecode(p, &groups) != nil {
		return nil
	}
	return groups
}

type codexSource struct {
	path    string // the hooks.json or config.toml: the trust key's prefix
	groups  []hookGroup
	layer   string // "" the user's; else the project directory
	trusted bool   // the layer is loaded (a project layer needs trust)
}

// codexHook: a PreToolUse hook covering the Bash tool runs guardsh --hook
// codex, from a layer Codex loads, enabled, and trusted: its pinned
// trusted_hash is the hook's current hash (--dangerously-bypass-hook-trust
// lifts that for one run only).
func codexHook(h agentHost) hookReport {
	home := h.env("CODEX_HOME")
	if home == "" {
		home = filepath.Join(h.home(), ".codex")
	} else {
		home = h.expand(home)
	}
	userCfgPath := filepath.Join(home, "config.toml")
	userCfg, md, _ := readCodexConfig(userCfgPath)
	states := map[string]codexHookState{}
	codexStates(userCfg, md, states)
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := userCfg.Features[k].(bool); ok && !v {
			return hookReport{file: userCfgPath, detail: "[features] " + k + " = false: Codex runs no hooks", fix: "remove " + k + " = false from [features] in " + userCfgPath}
		}
	}
	var sources []codexSource
	addLayer := func(dir, layer string, trusted bool) {
		var groups []hookGroup
		var f struct {
			Hooks map[string][]hookGroup `json:"hooks"`
		}
		if p := filepath.Join(dir, "hooks.json"); readJSON(p, &f) {
			sources = append(sources, codexSource{path: p, groups: f.Hooks["PreToolUse"], layer: layer, trusted: trusted})
		}
		p := filepath.Join(dir, "config.toml")
		if c, md, ok := readCodexConfig(p); ok {
			groups = codexTomlGroups(c, md)
			sources = append(sources, codexSource{path: p, groups: groups, layer: layer, trusted: trusted})
			if trusted && layer != "" {
				codexStates(c, md, states)
			}
		}
	}
	addLayer(home, "", true)
	// project layers: each .codex from the project root (the nearest
	// ancestor holding .git, else the working directory) down to the cwd
	if h.cwd != "" {
		root := h.cwd
		for d := h.cwd; ; d = filepath.Dir(d) {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				root = d
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		trusted := userCfg.Projects[root].TrustLevel == "trusted" || userCfg.Projects[h.cwd].TrustLevel == "trusted"
		var dirs []string
		for d := h.cwd; ; d = filepath.Dir(d) {
			dirs = append([]string{d}, dirs...)
			if d == root || filepath.Dir(d) == d {
				break
			}
		}
		for _, d := range dirs {
			if filepath.Join(d, ".codex") == home {
				continue
			}
			addLayer(filepath.Join(d, ".codex"), root, trusted)
		}
	}
	var r hookReport
	for _, src := range sources {
		for gi, g := range src.groups {
			for hi, hd := range g.Hooks {
				if hd.Type != "command" || !isGuardshHook(hd.Command, "codex") {
					continue
				}
				c := hookReport{file: src.path}
				timeout := 600
				if hd.Timeout != nil {
					timeout = *hd.Timeout
				} else if hd.TimeoutSec != nil {
					timeout = *hd.TimeoutSec
				}
				timeout = max(timeout, 1)
				status := hd.StatusMessage
				if status == nil {
					status = hd.StatusMessage2
				}
				key := fmt.Sprintf("%s:pre_tool_use:%d:%d", src.path, gi, hi)
				hash := codexHookHash("pre_tool_use", g.Matcher, hd.Command, timeout, hd.Async, status)
				st, pinned := states[key]
				pin := fmt.Sprintf(`in codex, /hooks, select the guardsh hook and trust it (t); or, having read the hook, add to %s the table [hooks.state.%q] with trusted_hash = %q`, userCfgPath, key, hash)
				switch {
				case !src.trusted:
					c.detail = "the project is not trusted, so Codex does not load " + src.path
					c.fix = fmt.Sprintf(`trust the project in codex, or add to %s the table [projects.%q] with trust_level = "trusted"`, userCfgPath, src.layer)
				case !matcherCovers(g.Matcher, "Bash"):
					c.detail, c.fix = "no PreToolUse matcher covers the Bash tool", `set "matcher": "Bash"`
				case pinned && st.Enabled != nil && !*st.Enabled:
					c.detail, c.fix = "the hook is disabled in "+userCfgPath, fmt.Sprintf("remove enabled = false from [hooks.state.%q]", key)
				case !pinned || st.TrustedHash == "":
					c.detail = "the hook is not trusted: Codex skips it without a word (codex exec too, unless --dangerously-bypass-hook-trust)"
					c.fix = pin
				case st.TrustedHash != hash:
					c.detail = "the hook changed since it was trusted (its pinned hash is another): Codex skips it"
					c.fix = pin
				default:
					if why, fix := hookProgram(h, hd.Command); why != "" {
						c.detail, c.fix = why, fix
					} else {
						c.effective, c.detail = true, "trusted"
						if !strings.Contains(hd.Command, "--rewrite") {
							c.notes = append(c.notes, "without --rewrite, an allowed command runs in Codex's own shell, judged by its text alone")
						}
					}
				}
				if r.file == "" || c.effective && !r.effective {
					r = c
				}
			}
		}
	}
	return r
}
