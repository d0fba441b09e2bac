package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// agents are the CLIs of the suite, pinned: .ci/run installs exactly these.
var agents = []*agent{claudeCode, geminiCLI, codex, opencode, pi, qwenCode}

var claudeCode = &agent{
	name:   "claude-code",
	bin:    "claude",
	pkg:    "@anthropic-ai/claude-code@2.1.332",
	routes: []route{routeLaunch, routeConfine, routeHook, routeHookRewrite},
	tool: toolSpec{names: []string{"Bash"}, args: func(_, cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "scripted step"}
	}},
	handler: anthropicHandler,
	setup: func(e *env) {
		e.setenv("ANTHROPIC_BASE_URL="+e.url, "ANTHROPIC_API_KEY=sk-ant-e2e-fake",
			// docs.claude.com: settings, environment variables
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1")
		cfg := filepath.Join(e.home, ".claude")
		if e.route == routeConfine {
			// docs/agents.md: a confined Claude Code keeps its
			// ~/.claude.json under CLAUDE_CONFIG_DIR.
			e.setenv("CLAUDE_CONFIG_DIR=" + cfg)
			e.write(".claude/.claude.json", `{"hasCompletedOnboarding": true}`)
		} else {
			e.write(".claude.json", `{"hasCompletedOnboarding": true}`)
		}
		os.MkdirAll(cfg, 0o755)
		settings := `{}`
		if e.route == routeHook || e.route == routeHookRewrite {
			settings = fmt.Sprintf(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}}`, e.hookCommand("claude"))
		}
		e.write(".claude/settings.json", settings)
	},
	argv: func(e *env, prompt string) []string {
		return []string{"-p", prompt, "--allowedTools", "Bash", "--output-format", "text"}
	},
	debug: func(file string) []string { return []string{"--debug-file", file} },
	// Claude Code sources the user's rc file into a snapshot under
	// ~/.claude/shell-snapshots/ and sources that before every command:
	// a function from ~/.bashrc must be there, and callable where
	// Claude Code's own shell runs the command (the launcher's guardsh;
	// with the hook, the static checker asks about a name it cannot see
	// defined, and a rewritten command runs in a child guardsh without
	// the snapshot, as docs/agents.md says).
	extra: func(e *env, r route) []step {
		e.write(".bashrc", "e2e_rc_fn() { echo rcfn-$((6*7))-ok; }\n")
		if r == routeLaunch || r == routeConfine {
			return []step{{name: "snapshot-fn", cmd: "e2e_rc_fn", want: []string{"rcfn-42-ok"}}}
		}
		return nil
	},
	after: func(e *env, r route) []string {
		dir := filepath.Join(e.home, ".claude", "shell-snapshots")
		ents, err := os.ReadDir(dir)
		if err != nil {
			return []string{fmt.Sprintf("no shell snapshot: %v", err)}
		}
		var names []string
		for _, en := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, en.Name()))
			if strings.Contains(string(b), "e2e_rc_fn") {
				return nil
			}
			names = append(names, fmt.Sprintf("%s (%d bytes)", en.Name(), len(b)))
		}
		return []string{fmt.Sprintf("no shell snapshot in %s defines e2e_rc_fn (from ~/.bashrc): %v", dir, names)}
	},
}

var geminiCLI = &agent{
	name:   "gemini-cli",
	bin:    "gemini",
	pkg:    "@google/gemini-cli@0.61.0",
	routes: []route{routeLaunch, routeConfine, routeHook, routeHookRewrite},
	tool: toolSpec{names: []string{"run_shell_command"}, args: func(_, cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "scripted step"}
	}},
	handler: geminiHandler,
	setup: func(e *env) {
		// docs/reference/configuration.md of the package: the API key's
		// base URL, a trusted workspace for headless runs, no telemetry,
		// usage statistics or update checks.
		e.setenv("GEMINI_API_KEY=e2e-fake-key", "GOOGLE_GEMINI_BASE_URL="+e.url, "GEMINI_CLI_TRUST_WORKSPACE=true",
			"GEMINI_TELEMETRY_ENABLED=false")
		hooks := ""
		if e.route == routeHook || e.route == routeHookRewrite {
			hooks = fmt.Sprintf(`, "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": %q}]}]}`, e.hookCommand("gemini"))
		}
		e.write(".gemini/settings.json", `{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}`+hooks+`}`)
	},
	argv: func(e *env, prompt string) []string {
		return []string{"-p", prompt, "--approval-mode", "yolo", "-m", "gemini-2.5-flash"}
	},
	debug: func(string) []string { return []string{"--debug"} },
}
var opencode = &agent{
	name:   "opencode",
	bin:    "opencode",
	pkg:    "opencode-ai@1.18.33",
	routes: []route{routeLaunch, routeConfine},
	tool: toolSpec{names: []string{"bash"}, args: func(_, cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "scripted step"}
	}},
	handler: chatHandler,
	setup: func(e *env) {
		// opencode.ai/docs/providers (a custom OpenAI-compatible
		// provider), /docs/config (autoupdate, share), /docs/permissions.
		e.setenv("OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_CLAUDE_CODE=1")
		e.write(".config/opencode/opencode.json", fmt.Sprintf(`{
 "$schema": "https://opencode.ai/config.json",
 "autoupdate": false, "share": "disabled",
 "model": "e2e/e2e-model",
 "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
 "provider": {"e2e": {"npm": "@ai-sdk/openai-compatible", "name": "e2e",
   "options": {"baseURL": %q, "apiKey": "sk-e2e-fake"},
   "models": {"e2e-model": {"name": "e2e model", "tool_call": true}}}}
}`, e.url+"/v1"))
	},
	argv: func(e *env, prompt string) []string {
		return []string{"run", "--model", "e2e/e2e-model", prompt}
	},
	debug: func(string) []string { return []string{"--print-logs", "--log-level", "DEBUG"} },
}

// allSteps marks every check of a session as one known gap.
func allSteps(why string) map[string]string {
	m := map[string]string{"": why, "home": why, "after": why}
	for _, st := range commonSteps("") {
		m[st.name] = why
	}
	return m
}

var pi = &agent{
	name:    "pi",
	bin:     "pi",
	pkg:     "@mariozechner/pi-coding-agent@0.73.1",
	routes:  []route{routeLaunch, routeConfine},
	tool:    toolSpec{names: []string{"bash"}, args: func(_, cmd string) map[string]any { return map[string]any{"command": cmd} }},
	handler: chatHandler,
	setup: func(e *env) {
		// docs/models.md (a custom provider in ~/.pi/agent/models.json),
		// docs/settings.md (PI_OFFLINE: no update checks or telemetry).
		e.setenv("PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
		e.write(".pi/agent/models.json", fmt.Sprintf(`{"providers": {"e2e": {"baseUrl": %q, "api": "openai-completions", "apiKey": "sk-e2e-fake",
 "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
 "models": [{"id": "e2e-model", "name": "e2e model", "reasoning": false}]}}}`, e.url+"/v1"))
		e.write(".pi/agent/settings.json", `{"enableInstallTelemetry": false}`)
	},
	argv: func(e *env, prompt string) []string {
		return []string{"--offline", "--provider", "e2e", "--model", "e2e-model", "-p", prompt}
	},
	// pi's bash tool runs /bin/bash by absolute path: the launcher's
	// mount namespace makes that guardsh (docs/agents.md)
}

var qwenCode = &agent{
	name:   "qwen-code",
	bin:    "qwen",
	pkg:    "@qwen-code/qwen-code@0.24.4",
	routes: []route{routeLaunch, routeLaunchPTY, routeConfine},
	tool: toolSpec{names: []string{"run_shell_command"}, args: func(_, cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "scripted step", "is_background": false}
	}},
	handler: chatHandler,
	setup: func(e *env) {
		// bundled/qc-helper/docs/configuration/settings.md and auth.md
		// of the package: an OpenAI-compatible provider by flags, no
		// usage statistics, telemetry or update checks.
		// launch-pty: tools.shell.enableInteractiveShell, node-pty, as
		// qwen's interactive TUI runs its shell by default.
		pty := e.route == routeLaunchPTY
		e.write(".qwen/settings.json", fmt.Sprintf(`{"general": {"enableAutoUpdate": false}, "privacy": {"usageStatisticsEnabled": false},
 "telemetry": {"enabled": false}, "security": {"folderTrust": {"enabled": false}},
 "tools": {"shell": {"enableInteractiveShell": %v}}}`, pty))
	},
	// launch-pty: under the launcher guardsh never prompts on the PTY
	// qwen-code made for its shell; the ask goes to the launcher, and
	// without a human there it is refused at once (docs/agents.md)
	argv: func(e *env, prompt string) []string {
		return []string{"--auth-type", "openai", "--openai-api-key", "sk-e2e-fake", "--openai-base-url", e.url + "/v1",
			"-m", "e2e-model", "--yolo", prompt}
	},
	debug: func(string) []string { return []string{"--debug"} },
}

var codex = &agent{
	name:   "codex",
	bin:    "codex",
	pkg:    "@openai/codex@0.171.0",
	routes: []route{routeLaunch, routeLaunchPTY, routeConfine, routeHook, routeHookRewrite},
	// Codex's models (gpt-6.2-sol is the first of its catalogue) get
	// "code mode": one freeform tool, exec, running JavaScript that calls
	// the nested tools, the shell among them as exec_command ({cmd}); a
	// model outside the catalogue gets exec_command as a function.
	tool: toolSpec{names: []string{"exec", "exec_command", "shell_command"}, args: func(tool, cmd string) map[string]any {
		switch tool {
		case "exec":
			return map[string]any{"input": fmt.Sprintf("const r = await tools.exec_command({cmd: %s, yield_time_ms: 30000});\n"+
				"text(typeof r === \"string\" ? r : (r.output ?? \"\") + \"\\nexit_code: \" + r.exit_code);\n", mustJSON(cmd))}
		case "exec_command":
			return map[string]any{"cmd": cmd}
		}
		return map[string]any{"command": cmd}
	}},
	handler: responsesHandler,
	setup: func(e *env) {
		// developers.openai.com/codex/config-reference: a model provider
		// speaking the Responses API, no update check, no analytics.
		e.setenv("E2E_OPENAI_KEY=sk-e2e-fake", "CODEX_HOME="+filepath.Join(e.home, ".codex"))
		e.write(".codex/config.toml", fmt.Sprintf(`model = "gpt-6.2-sol"
model_provider = "e2e"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.e2e]
name = "e2e"
base_url = %q
env_key = "E2E_OPENAI_KEY"
wire_api = "responses"
`, e.url+"/v1"))
		if e.route == routeHook || e.route == routeHookRewrite {
			// docs/agents.md: ~/.codex/hooks.json, the shape of Claude
			// Code's (the set-up given there has --rewrite).
			e.write(".codex/hooks.json", fmt.Sprintf(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}}`,
				e.hookCommand("codex")))
			// docs/agents.md: then trust it, by the table guardsh --doctor
			// prints for ~/.codex/config.toml.
			cmd := exec.Command(e.guardsh, "--doctor")
			cmd.Env, cmd.Dir = e.vars, e.project
			out, _ := cmd.CombinedOutput()
			m := regexp.MustCompile(`the table (\[hooks\.state\."[^"]+"\]) with (trusted_hash = "sha256:[0-9a-f]+")`).FindStringSubmatch(string(out))
			if m == nil {
				e.t.Fatalf("guardsh --doctor gives no hook-trust table for Codex:\n%s", out)
			}
			f, err := os.OpenFile(filepath.Join(e.home, ".codex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				e.t.Fatal(err)
			}
			fmt.Fprintf(f, "\n%s\n%s\n", m[1], m[2])
			f.Close()
		}
	},
	argv: func(e *env, prompt string) []string {
		if e.route == routeLaunchPTY {
			return []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt}
		}
		return []string{"exec", "--skip-git-repo-check", prompt}
	},
	// launch-pty: Codex without its own sandbox (--yolo, guardsh the
	// only guard), the model asking for its command in a PTY
	// (exec_command's tty) in bash by name (its shell option), then
	// typing the answers guardsh's prompt takes into that PTY: the ask
	// must stay refused, nothing approved by what the agent types.
	extra: func(e *env, r route) []step {
		if r != routeLaunchPTY {
			return nil
		}
		cmd := "touch ~/typed-approval; curl -s " + e.url + "/typed-approval"
		js := `const r = await tools.exec_command({cmd: ` + mustJSON(cmd) + `, shell: "bash", tty: true, yield_time_ms: 3000});
let out = r.output ?? "";
if (r.session_id !== undefined) {
  for (const k of ["o\n", "s\n", "y\n", "a\n"]) {
    const w = await tools.write_stdin({session_id: r.session_id, chars: k, yield_time_ms: 1500});
    out += w.output ?? "";
  }
}
text(out + "\nexit_code: " + r.exit_code);
`
		return []step{{name: "pty-typed", cmd: cmd + " (in a PTY, answers typed)", want: []string{"write.outside-project"},
			input: func(tool string) map[string]any { return map[string]any{"input": js} }}}
	},
	after: func(e *env, r route) []string {
		var bad []string
		if _, err := os.Lstat(filepath.Join(e.home, "typed-approval")); err == nil {
			bad = append(bad, "~/typed-approval exists: the command ran (unguarded, or approved by what the agent typed into its PTY)")
		}
		if e.hits("/typed-approval") > 0 {
			bad = append(bad, "curl reached the fake server's /typed-approval: the command ran (unguarded, or approved by what the agent typed into its PTY)")
		}
		return bad
	},
	gaps: map[route]map[string]string{
		routeConfine: allSteps(codexNested),
	},
}

// Codex's exec_command runs the login shell /etc/passwd names by absolute
// path (/bin/bash -lc): the launcher's mount namespace makes it guardsh.

// codexNested: under --confine, Codex's own sandbox cannot start (bwrap:
// no new namespaces inside guardsh's sandbox), so every command fails.
const codexNested = "under --confine Codex's own sandbox (bwrap) cannot create its namespaces: every command fails"
