package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctorWorld is a throwaway machine for guardsh --doctor's agent report:
// fake agent executables on PATH, a shim directory (bash and sh linking to
// this binary, which is guardsh for isGuardsh), guardsh itself installed
// in a directory, and one HOME and project per case.
type doctorWorld struct {
	bin, shim, installed string
}

func newDoctorWorld(t *testing.T) doctorWorld {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := doctorWorld{bin: t.TempDir(), shim: t.TempDir(), installed: t.TempDir()}
	for _, name := range []string{"claude", "codex", "gemini", "opencode", "pi", "qwen", "goose", "aider", "cline", "openhands", "bash"} {
		if err := os.WriteFile(filepath.Join(w.bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range shimNames {
		if err := os.Symlink(self, filepath.Join(w.shim, name)); err != nil {
			t.Fatal(err)
		}
	}
	// a hard link would do as well; guardsh is guardsh by identity
	if err := os.Symlink(self, filepath.Join(w.installed, "guardsh")); err != nil {
		t.Fatal(err)
	}
	return w
}

// writeTree writes files (path relative to root: content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoctorAgents: one row per agent set-up, including the ones guardsh
// --doctor got wrong: Codex judged by bash on PATH while it runs the login
// shell by absolute path (and so called "guardsh" under the launcher), its
// hook trust never checked, Claude Code's CLAUDE_CODE_SHELL in
// settings.json missed, opencode, pi and qwen-code not listed.
func TestDoctorAgents(t *testing.T) {
	w := newDoctorWorld(t)
	guardshAbs := filepath.Join(w.installed, "guardsh")
	login := loginShell()
	if login == "" {
		t.Skip("no login shell for this user in /etc/passwd")
	}
	self, _ := os.Executable()
	if isGuardsh(login, self) {
		t.Skip("the login shell is guardsh here")
	}
	claudeHook := func(matcher, command string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"` + matcher + `","hooks":[{"type":"command","command":"` + command + `"}]}]}}`
	}
	codexHooks := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook codex --mode auto --rewrite"}]}]}}`

	tests := []struct {
		name   string
		agents []string // executables on PATH besides bash
		files  map[string]string
		env    map[string]string // HOME, PWD and PATH are set by the test
		launch bool              // the environment guardsh --launch gives the agent
		ok     bool
		want   []string
		absent []string
	}{
		{
			name:   "claude plain",
			agents: []string{"claude"},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"Claude Code", "shell: /bin/bash (SHELL): NOT guardsh", "hook:  not registered", "fix:   guardsh --launch --mode auto -- claude"},
		},
		{
			name:   "claude CLAUDE_CODE_SHELL in settings.json",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"env":{"CLAUDE_CODE_SHELL":"SHIM/bash","GUARDSH_MODE":"auto"}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     true,
			want:   []string{"shell: SHIM/bash (CLAUDE_CODE_SHELL in HOME/.claude/settings.json): guardsh"},
			absent: []string{"NOT guardsh", "fix:"},
		},
		{
			name:   "claude CLAUDE_CODE_SHELL naming guardsh, which Claude Code ignores",
			agents: []string{"claude"},
			env:    map[string]string{"SHELL": "/bin/bash", "CLAUDE_CODE_SHELL": guardshAbs},
			ok:     false,
			want:   []string{"CLAUDE_CODE_SHELL=" + guardshAbs + " is ignored", "shell: /bin/bash (SHELL): NOT guardsh"},
		},
		{
			name:   "claude hook by name, guardsh not on PATH",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": claudeHook("Bash", "guardsh --hook claude --mode auto")},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"hook:  guardsh --hook claude in HOME/.claude/settings.json: NOT effective", "not on the agent's PATH", "fix:   name guardsh by its absolute path"},
			absent: []string{"fix:   guardsh --launch"},
		},
		{
			name:   "claude hook effective",
			agents: []string{"claude"},
			files:  map[string]string{"proj/.claude/settings.json": claudeHook("Bash", guardshAbs+" --hook claude --mode auto")},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     true,
			want:   []string{"hook:  guardsh --hook claude in PROJ/.claude/settings.json: effective"},
			absent: []string{"fix:"},
		},
		{
			name:   "claude hook on another tool",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": claudeHook("Edit|Write", guardshAbs+" --hook claude")},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"NOT effective", `no PreToolUse matcher covers the Bash tool`},
		},
		{
			name:   "claude hooks switched off",
			agents: []string{"claude"},
			files: map[string]string{"home/.claude/settings.json": claudeHook("Bash", guardshAbs+" --hook claude"),
				"proj/.claude/settings.local.json": `{"disableAllHooks":true}`},
			env:  map[string]string{"SHELL": "/bin/bash"},
			ok:   false,
			want: []string{"NOT effective", "disableAllHooks", "PROJ/.claude/settings.local.json"},
		},
		{
			// an async hook runs in the background: it cannot block the call
			name:   "claude hook async (attack: not effective)",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude","async":true}]}]}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"NOT effective", "async"},
			absent: []string{": effective"},
		},
		{
			name:   "claude hook once (attack: not effective)",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude","once":true}]}]}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"NOT effective", "once"},
			absent: []string{": effective"},
		},
		{
			name:   "claude hook asyncRewake (attack: not effective)",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude","asyncRewake":true}]}]}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"NOT effective", "async"},
			absent: []string{": effective"},
		},
		{
			// an if condition (permission-rule syntax) narrows the Bash calls the hook sees
			name:   "claude hook with an if condition (attack: not effective)",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude","if":"Bash(git *)"}]}]}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"NOT effective", "Bash(git *)"},
			absent: []string{": effective"},
		},
		{
			name:   "claude hook with an if condition covering every Bash call",
			agents: []string{"claude"},
			files:  map[string]string{"home/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude --mode auto","if":"Bash(*)"}]}]}}`},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     true,
			want:   []string{": effective"},
		},
		{
			name:   "claude under the launcher",
			agents: []string{"claude"},
			launch: true,
			ok:     true,
			want:   []string{"shell: SHIM/bash (CLAUDE_CODE_SHELL): guardsh", "running under guardsh --launch"},
			absent: []string{"NOT guardsh", "fix:"},
		},
		{
			name:   "codex under the launcher runs the login shell by absolute path",
			agents: []string{"codex"},
			launch: true,
			ok:     false,
			want: []string{"Codex CLI", "shell: " + login + " (login shell from /etc/passwd, run by absolute path as " + login + " -lc): NOT guardsh",
				"exec_command", "hook:  not registered", "fix:"},
			absent: []string{"shell_command", "(bash on PATH)"},
		},
		{
			name:   "codex hook not trusted",
			agents: []string{"codex"},
			files:  map[string]string{"home/.codex/hooks.json": codexHooks},
			ok:     false,
			want: []string{"hook:  guardsh --hook codex in HOME/.codex/hooks.json: NOT effective", "not trusted",
				`the table [hooks.state."HOME/.codex/hooks.json:pre_tool_use:0:0"] with trusted_hash = "sha256:`},
		},
		{
			name:   "codex hook trusted",
			agents: []string{"codex"},
			files: map[string]string{"home/.codex/hooks.json": codexHooks,
				"home/.codex/config.toml": "[hooks.state.\"HOME/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"" +
					codexHookHash("pre_tool_use", strPtr("Bash"), guardshAbs+" --hook codex --mode auto --rewrite", 600, false, nil) + "\"\n"},
			ok:     true,
			want:   []string{"hook:  guardsh --hook codex in HOME/.codex/hooks.json: effective (trusted)"},
			absent: []string{"fix:"},
		},
		{
			name:   "codex hook changed since it was trusted",
			agents: []string{"codex"},
			files: map[string]string{"home/.codex/hooks.json": codexHooks,
				"home/.codex/config.toml": "[hooks.state.\"HOME/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n"},
			ok:   false,
			want: []string{"NOT effective", "changed since it was trusted"},
		},
		{
			name:   "codex hook trusted but disabled",
			agents: []string{"codex"},
			files: map[string]string{"home/.codex/hooks.json": codexHooks,
				"home/.codex/config.toml": "[hooks.state.\"HOME/.codex/hooks.json:pre_tool_use:0:0\"]\nenabled = false\ntrusted_hash = \"" +
					codexHookHash("pre_tool_use", strPtr("Bash"), guardshAbs+" --hook codex --mode auto --rewrite", 600, false, nil) + "\"\n"},
			ok:   false,
			want: []string{"NOT effective", "disabled"},
		},
		{
			name:   "codex hook in an untrusted project",
			agents: []string{"codex"},
			files:  map[string]string{"proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.codex/hooks.json": codexHooks},
			ok:     false,
			want:   []string{"PROJ/.codex/hooks.json: NOT effective", "project is not trusted"},
		},
		{
			name:   "gemini hook effective, shell bash on PATH",
			agents: []string{"gemini"},
			files:  map[string]string{"home/.gemini/settings.json": `{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook gemini --mode auto"}]}]}}`},
			ok:     true,
			want:   []string{"Gemini CLI", "(bash on PATH): NOT guardsh", "hook:  guardsh --hook gemini in HOME/.gemini/settings.json: effective"},
			absent: []string{"fix:"},
		},
		{
			name:   "opencode plain",
			agents: []string{"opencode"},
			env:    map[string]string{"SHELL": "/usr/bin/fish"},
			ok:     false,
			want:   []string{"opencode", "(bash on PATH; SHELL /usr/bin/fish is skipped): NOT guardsh", "fix:   guardsh --launch --mode auto -- opencode"},
		},
		{
			name:   "opencode under the launcher",
			agents: []string{"opencode"},
			launch: true,
			ok:     true,
			want:   []string{"shell: SHIM/bash (SHELL): guardsh"},
		},
		{
			name:   "pi runs /bin/bash by absolute path, even under the launcher",
			agents: []string{"pi"},
			launch: true,
			ok:     false,
			want:   []string{"pi", "shell: /bin/bash (absolute path, no shellPath in settings): NOT guardsh", `"shellPath"`},
		},
		{
			name:   "pi with shellPath",
			agents: []string{"pi"},
			files:  map[string]string{"home/.pi/agent/settings.json": `{"shellPath":"SHIM/bash"}`},
			ok:     true,
			want:   []string{"shell: SHIM/bash (shellPath in HOME/.pi/agent/settings.json): guardsh"},
		},
		{
			name:   "qwen-code under the launcher",
			agents: []string{"qwen"},
			launch: true,
			ok:     true,
			want:   []string{"qwen-code", "shell: SHIM/bash (bash on PATH): guardsh", "pseudo-terminal it owns"},
		},
		{
			name:   "the others",
			agents: []string{"goose", "aider", "cline", "openhands"},
			env:    map[string]string{"SHELL": "/bin/bash"},
			ok:     false,
			want:   []string{"goose", "Aider", "Cline", "OpenHands", "shell: /bin/bash (absolute path"},
		},
		{
			name: "no agents",
			ok:   true,
			want: []string{"none of claude, codex, gemini, opencode, pi, qwen, goose, aider, cline, openhands found on PATH"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
			os.MkdirAll(home, 0o755)
			os.MkdirAll(proj, 0o755)
			expand := strings.NewReplacer("SHIM", w.shim, "HOME", home, "PROJ", proj)
			files := map[string]string{}
			for k, v := range tc.files {
				files[k] = expand.Replace(v)
			}
			writeTree(t, root, files)
			path := t.TempDir() // only the agents of this case, and a bash
			for _, a := range append([]string{"bash"}, tc.agents...) {
				os.Symlink(filepath.Join(w.bin, a), filepath.Join(path, a))
			}
			env := map[string]string{"HOME": home, "PWD": proj, "PATH": path}
			for k, v := range tc.env {
				env[k] = v
			}
			if tc.launch {
				var kv []string
				for k, v := range env {
					kv = append(kv, k+"="+v)
				}
				env = envMap(launchEnv(kv, w.shim, "auto"))
			}
			var b bytes.Buffer
			ok := doctorAgentsEnv(&b, func(k string) string { return env[k] })
			out := b.String()
			if ok != tc.ok {
				t.Errorf("doctorAgents = %v, want %v\n%s", ok, tc.ok, out)
			}
			for _, want := range tc.want {
				if want = expand.Replace(want); !strings.Contains(out, want) {
					t.Errorf("report lacks %q:\n%s", want, out)
				}
			}
			for _, no := range tc.absent {
				if no = expand.Replace(no); strings.Contains(out, no) {
					t.Errorf("report has %q:\n%s", no, out)
				}
			}
		})
	}
}

func strPtr(s string) *string { return &s }

// TestCodexHookHash: the trust hash Codex CLI pins per hook, against the
// values the real codex 0.171.0 computed for these hooks (`codex
// app-server`, method hooks/list, field currentHash).
func TestCodexHookHash(t *testing.T) {
	status := "checking with guardsh"
	for _, tc := range []struct {
		matcher *string
		command string
		timeout int
		async   bool
		status  *string
		want    string
	}{
		{strPtr("Bash"), "/usr/local/bin/guardsh --hook codex", 600, false, nil, "sha256:58b18e23275be026326f09840944735f683663834cf21ea11eae55527420b74c"},
		{strPtr("Bash"), "/usr/local/bin/guardsh --hook codex --mode auto --rewrite", 600, false, nil, "sha256:c6097d8f56590a3dab3063d540c8571ae407cccb894f3058c7425653cb9d90ba"},
		{nil, "guardsh --hook codex", 30, false, &status, "sha256:34db649a301cd457cff298bd626f4f69a0bdd5ecab439ab416c675c7cc49dc27"},
		{strPtr("*"), "echo a", 600, true, nil, "sha256:cbc861eb9e77f82ac161b04e2b6f8b6bdffaad108fa74225e27a56162c5e45c5"},
		{strPtr("*"), "guardsh --hook=codex", 1, false, nil, "sha256:1aaf13a8127d821e39755a3b9c5e3a7b7ba7cc42dc84426afe5dd86709aa02be"},
		{strPtr("^Bash$"), "/opt/guardsh --hook codex", 600, false, nil, "sha256:033d6b7661479fd2a27e401c2aebe728838e20a45e8015aa91a1788bf3030135"},
	} {
		if got := codexHookHash("pre_tool_use", tc.matcher, tc.command, tc.timeout, tc.async, tc.status); got != tc.want {
			t.Errorf("codexHookHash(%q) = %s, want %s", tc.command, got, tc.want)
		}
	}
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestIsGuardsh(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	link := filepath.Join(dir, "bash")
	os.Symlink(self, link)
	hard := filepath.Join(dir, "hard-bash")
	hardOK := os.Link(self, hard) == nil
	wrapper := filepath.Join(dir, "wrapper")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec /usr/local/bin/guardsh \"$@\"\n"), 0o755)
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("#!/bin/sh\necho guardsh is not exec'd here\n"), 0o755)
	cases := []struct {
		path string
		want bool
	}{
		{link, true}, {self, true}, {wrapper, true}, {other, false}, {"", false}, {filepath.Join(dir, "missing"), false},
	}
	if hardOK {
		cases = append(cases, struct {
			path string
			want bool
		}{hard, true}) // same file, another name: what a bind mount over /bin/bash gives
	}
	for _, tc := range cases {
		if got := isGuardsh(tc.path, self); got != tc.want {
			t.Errorf("isGuardsh(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestAttackDoctorClaudeShellTilde: Claude Code 2.1.197 copies its settings'
// "env" into process.env as written (no ~ or $HOME expansion: j_t in the
// installed CLI) and takes CLAUDE_CODE_SHELL only when that literal path
// can run (accessSync X_OK, else "PATH --version" exiting 0), so
// "~/.../shims/bash" is ignored and Claude Code runs $SHELL. --doctor must
// not call that shell guardsh, nor tell the user to write "~/".
func TestAttackDoctorClaudeShellTilde(t *testing.T) {
	w := newDoctorWorld(t)
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	os.MkdirAll(filepath.Join(home, "shims"), 0o755)
	os.MkdirAll(proj, 0o755)
	if err := os.Symlink(filepath.Join(w.shim, "bash"), filepath.Join(home, "shims", "bash")); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir()
	for _, a := range []string{"bash", "claude"} {
		os.Symlink(filepath.Join(w.bin, a), filepath.Join(path, a))
	}
	for _, value := range []string{"~/shims/bash", "$HOME/shims/bash"} {
		writeTree(t, root, map[string]string{"home/.claude/settings.json": `{"env":{"CLAUDE_CODE_SHELL":"` + value + `"}}`})
		env := map[string]string{"HOME": home, "PWD": proj, "PATH": path, "SHELL": "/bin/bash"}
		var b bytes.Buffer
		ok := doctorAgentsEnv(&b, func(k string) string { return env[k] })
		out := b.String()
		if ok || !strings.Contains(out, "shell: /bin/bash (SHELL): NOT guardsh") || !strings.Contains(out, "is ignored") {
			t.Errorf("CLAUDE_CODE_SHELL=%s: --doctor takes it as Claude Code's shell (ok=%v):\n%s", value, ok, out)
		}
		if strings.Contains(out, `"CLAUDE_CODE_SHELL": "~/`) {
			t.Errorf("the fix line tells the user to write ~/, which Claude Code does not expand:\n%s", out)
		}
	}
}

// TestAttackDoctorClaudeManagedHooks: managed settings decide which hooks
// Claude Code 2.1.197 runs (K7r in the installed CLI): with
// allowManagedHooksOnly (or strictPluginOnlyCustomization naming hooks)
// only the managed file's; with disableAllHooks in a file that is not
// managed, still the managed file's.
func TestAttackDoctorClaudeManagedHooks(t *testing.T) {
	w := newDoctorWorld(t)
	guardshAbs := filepath.Join(w.installed, "guardsh")
	hook := `"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guardshAbs + ` --hook claude --mode auto"}]}]}`
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    string
		managed string
	}{
		{"user hook, managed hooks only", map[string]string{"home/.claude/settings.json": "{" + hook + "}"}, "NOT effective", `{"allowManagedHooksOnly":true}`},
		{"user hook, strict plugin-only hooks", map[string]string{"home/.claude/settings.json": "{" + hook + "}"}, "NOT effective", `{"strictPluginOnlyCustomization":["hooks"]}`},
		{"managed hook, user disableAllHooks", map[string]string{"home/.claude/settings.json": `{"disableAllHooks":true}`}, ": effective", "{" + hook + "}"},
		{"managed hook, managed disableAllHooks", nil, "NOT effective", `{"disableAllHooks":true,` + hook + "}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
			os.MkdirAll(home, 0o755)
			os.MkdirAll(proj, 0o755)
			writeTree(t, root, tc.files)
			managed := filepath.Join(root, "managed-settings.json")
			os.WriteFile(managed, []byte(tc.managed), 0o644)
			old := claudeManagedSettings
			claudeManagedSettings = managed
			defer func() { claudeManagedSettings = old }()
			path := t.TempDir()
			for _, a := range []string{"bash", "claude"} {
				os.Symlink(filepath.Join(w.bin, a), filepath.Join(path, a))
			}
			env := map[string]string{"HOME": home, "PWD": proj, "PATH": path, "SHELL": "/bin/bash"}
			var b bytes.Buffer
			doctorAgentsEnv(&b, func(k string) string { return env[k] })
			if out := b.String(); !strings.Contains(out, "hook:  ") || !strings.Contains(out, tc.want) {
				t.Errorf("want %q:\n%s", tc.want, out)
			}
		})
	}
}
