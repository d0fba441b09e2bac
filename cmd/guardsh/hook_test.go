package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/testenv"
)

// guardshTestBinary is the guardsh binary for the tests that need a real
// process (exit statuses, the launcher's shims, the sandbox), built once
// per go test run (testenv.Guardsh).
func guardshTestBinary(t *testing.T) string {
	t.Helper()
	return testenv.Guardsh(t)
}

// claudeBash is a PreToolUse event for the Bash tool exactly as Claude Code
// sends it (all fields).
func claudeBash(command string) string {
	ev := map[string]any{
		"session_id":      "abc123-def4-5678",
		"transcript_path": "/home/user/.claude/projects/-home-user-proj/abc123.jsonl",
		"cwd":             "/home/user/proj",
		"permission_mode": "default",
		"hook_event_name": "PreToolUse",
		"tool_name":       "Bash",
		"tool_input": map[string]any{
			"command":           command,
			"description":       "Run the command",
			"timeout":           120000,
			"run_in_background": false,
		},
		"tool_use_id": "toolu_01ABC123",
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// codexBash is Codex CLI's PreToolUse event.
func codexBash(command string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id":      "019a-codex",
		"transcript_path": nil,
		"cwd":             "/home/user/proj",
		"hook_event_name": "PreToolUse",
		"model":           "gpt-5-codex",
		"permission_mode": "default",
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": command},
		"tool_use_id":     "call_1",
	})
	return string(b)
}

// geminiShell is Gemini CLI's BeforeTool event for run_shell_command.
func geminiShell(command string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id":      "g-123",
		"transcript_path": "/home/user/.gemini/tmp/abc/chats/session.json",
		"cwd":             "/home/user/proj",
		"hook_event_name": "BeforeTool",
		"timestamp":       "2026-11-30T08:00:00.000Z",
		"tool_name":       "run_shell_command",
		"tool_input":      map[string]any{"command": command, "description": "list files", "dir_path": "src"},
	})
	return string(b)
}

type hookResult struct {
	code           int
	stdout, stderr string
	decision       string // permissionDecision (claude/codex) or decision (gemini)
	reason         string
	command        string // rewritten command, if any
	input          map[string]any
}

func runHookTest(t testing.TB, args []string, stdin string, env map[string]string) hookResult {
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "HOME" { // no user configuration
			return "/nonexistent/guardsh-test-home"
		}
		return ""
	}
	code := hookMain(args, strings.NewReader(stdin), &out, &errb, getenv)
	r := hookResult{code: code, stdout: out.String(), stderr: errb.String()}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision       string         `json:"permissionDecision"`
			PermissionDecisionReason string         `json:"permissionDecisionReason"`
			UpdatedInput             map[string]any `json:"updatedInput"`
			ToolInput                map[string]any `json:"tool_input"`
			HookEventName            string         `json:"hookEventName"`
		} `json:"hookSpecificOutput"`
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if r.stdout != "" {
		if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
		}
	}
	h := ans.HookSpecificOutput
	r.decision, r.reason, r.input = h.PermissionDecision, h.PermissionDecisionReason, h.UpdatedInput
	if ans.Decision != "" {
		r.decision, r.reason, r.input = ans.Decision, ans.Reason, h.ToolInput
	}
	if c, ok := r.input["command"].(string); ok {
		r.command = c
	}
	return r
}

func TestHookProtocols(t *testing.T) {
	exe, _ := os.Executable()
	qexe := exe // test binaries live in paths without shell metacharacters
	tests := []struct {
		name     string
		args     []string
		in       string
		env      map[string]string
		code     int
		decision string
		reason   string // substring of the reason (stdout) and, for code 2, of stderr
		command  string // exact rewritten command, if any
		keep     map[string]any
	}{
		{name: "claude ls allowed (auto)", args: []string{"claude", "--mode", "auto", "--no-rewrite"}, in: claudeBash("ls -la"),
			decision: "allow", reason: "guardsh: allowed ["},
		{name: "claude ls asks in default mode", args: []string{"claude"}, in: claudeBash("ls -la"),
			decision: "ask", reason: "guardsh: needs approval ["},
		{name: "claude ls by GUARDSH_MODE", args: []string{"claude"}, in: claudeBash("ls -la"), env: map[string]string{"GUARDSH_MODE": "auto", "GUARDSH_HOOK_REWRITE": "0"},
			decision: "allow"},
		{name: "claude rm -rf ~ denied", args: []string{"claude"}, in: claudeBash("rm -rf ~"),
			decision: "deny", reason: "guardsh: denied ["},
		{name: "claude rm hidden in a pipeline denied", args: []string{"claude"}, in: claudeBash("cd /tmp && echo x | rm -rf /"),
			decision: "deny", reason: "guardsh: denied ["},
		{name: "claude rewrites by default", args: []string{"claude", "--mode=auto"}, in: claudeBash("ls -la"),
			decision: "allow", command: qexe + " --mode=auto -c 'ls -la'"},
		{name: "gemini rewrites by default", args: []string{"gemini", "--mode=auto"}, in: geminiShell("ls -la"),
			decision: "allow", command: qexe + " --mode=auto -c 'ls -la'"},
		{name: "codex does not rewrite by default", args: []string{"codex", "--mode=auto"}, in: codexBash("ls -la"),
			decision: "", command: ""},
		{name: "GUARDSH_HOOK_REWRITE=0 turns it off", args: []string{"claude", "--mode=auto"}, in: claudeBash("ls -la"),
			env: map[string]string{"GUARDSH_HOOK_REWRITE": "0"}, decision: "allow", command: ""},
		{name: "claude rewrite keeps the other fields", args: []string{"claude", "--rewrite", "--mode=auto"}, in: claudeBash("ls -la"),
			decision: "allow", command: qexe + " --mode=auto -c 'ls -la'",
			keep: map[string]any{"description": "Run the command", "timeout": float64(120000), "run_in_background": false}},
		{name: "claude rewrite by env, plan mode follows Claude's", args: []string{"claude"},
			in:  strings.Replace(claudeBash("ls -la"), `"permission_mode":"default"`, `"permission_mode":"plan"`, 1),
			env: map[string]string{"GUARDSH_HOOK_REWRITE": "1"}, decision: "allow", command: qexe + " --mode=plan -c 'ls -la'"},
		{name: "claude --mode wins", args: []string{"claude", "--rewrite", "--mode", "auto"}, in: claudeBash("ls 'a b'"),
			decision: "allow", command: qexe + ` --mode=auto -c "ls 'a b'"`},
		{name: "claude rewrite never on deny", args: []string{"claude", "--rewrite", "--mode=auto"}, in: claudeBash("rm -rf ~"),
			decision: "deny", reason: "guardsh: denied ["},
		{name: "claude unknown tool", args: []string{"claude"},
			in:   `{"session_id":"s","transcript_path":"/t","cwd":"/","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/etc/passwd","content":"x"},"tool_use_id":"t"}`,
			code: 2, decision: "deny", reason: `not "Write"`},
		{name: "claude MCP tool", args: []string{"claude"},
			in:   `{"hook_event_name":"PreToolUse","tool_name":"mcp__shell__exec","tool_input":{"command":"rm -rf ~"}}`,
			code: 2, decision: "deny", reason: "checks the Bash tool only"},
		{name: "claude wrong event", args: []string{"claude"}, in: strings.Replace(claudeBash("ls"), "PreToolUse", "PostToolUse", 1),
			code: 2, decision: "deny", reason: "PreToolUse events only"},
		{name: "garbage", args: []string{"claude"}, in: "rm -rf ~", code: 2, decision: "deny", reason: "malformed"},
		{name: "empty stdin", args: []string{"claude"}, in: "", code: 2, decision: "deny", reason: "empty hook event"},
		{name: "truncated JSON", args: []string{"claude"}, in: claudeBash("ls")[:40], code: 2, decision: "deny", reason: "malformed"},
		{name: "two events", args: []string{"claude"}, in: claudeBash("ls") + claudeBash("rm -rf ~"), code: 2, decision: "deny", reason: "more than one"},
		{name: "JSON array", args: []string{"claude"}, in: `[` + claudeBash("ls") + `]`, code: 2, decision: "deny", reason: "malformed"},
		{name: "command not a string", args: []string{"claude"}, in: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`,
			code: 2, decision: "deny", reason: "not a string"},
		{name: "no command", args: []string{"claude"}, in: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`,
			code: 2, decision: "deny", reason: "no command"},
		{name: "tool_input null", args: []string{"claude"}, in: `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}`,
			code: 2, decision: "deny", reason: "not an object"},
		{name: "no tool_name", args: []string{"claude"}, in: `{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}`,
			code: 2, decision: "deny", reason: "no tool_name"},
		{name: "unparsable command asks", args: []string{"claude", "--mode=auto"}, in: claudeBash("echo 'unterminated"),
			decision: "ask", reason: "[parse.error]"},
		{name: "unknown agent", args: []string{"cursor"}, in: claudeBash("ls"), code: 2, reason: "unknown agent"},
		{name: "no agent", args: nil, in: claudeBash("ls"), code: 2, reason: "which agent"},
		{name: "bad mode", args: []string{"claude", "--mode", "yolo"}, in: claudeBash("ls"), code: 2, decision: "deny", reason: "unknown mode"},

		{name: "codex ls: empty answer", args: []string{"codex", "--mode", "auto"}, in: codexBash("ls -la")},
		{name: "codex ask becomes deny", args: []string{"codex"}, in: codexBash("ls -la"), decision: "deny", reason: "A human must approve"},
		{name: "codex rewrite: allow with updatedInput", args: []string{"codex", "--rewrite", "--mode", "auto"}, in: codexBash("ls -la"),
			decision: "allow", command: qexe + " --mode=auto -c 'ls -la'"},
		{name: "codex rm -rf ~ denied", args: []string{"codex"}, in: codexBash("rm -rf ~"),
			decision: "deny", reason: "guardsh: denied ["},

		{name: "gemini ls allowed", args: []string{"gemini", "--mode", "auto", "--no-rewrite"}, in: geminiShell("ls -la"), decision: "allow"},
		{name: "gemini ask becomes deny", args: []string{"gemini"}, in: geminiShell("ls -la"), decision: "deny", reason: "A human must approve"},
		{name: "gemini rewrite", args: []string{"gemini", "--rewrite", "--mode", "auto"}, in: geminiShell("ls -la"), decision: "allow",
			command: qexe + " --mode=auto -c 'ls -la'", keep: map[string]any{"dir_path": "src", "description": "list files"}},
		{name: "gemini rm -rf ~ denied", args: []string{"gemini"}, in: geminiShell("rm -rf ~"),
			decision: "deny", reason: "guardsh: denied ["},
		{name: "gemini unknown tool", args: []string{"gemini"},
			in:   `{"session_id":"g","cwd":"/","hook_event_name":"BeforeTool","timestamp":"2026-11-30T08:00:00Z","tool_name":"write_file","tool_input":{"file_path":"/etc/passwd","content":"x"}}`,
			code: 2, decision: "deny", reason: `not "write_file"`},
		{name: "gemini given a Claude event", args: []string{"gemini"}, in: claudeBash("ls"), code: 2, decision: "deny", reason: "BeforeTool events only"},
		{name: "gemini garbage", args: []string{"gemini"}, in: "\x00\xff", code: 2, decision: "deny", reason: "malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runHookTest(t, tc.args, tc.in, tc.env)
			if r.code != tc.code {
				t.Fatalf("exit status %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if r.decision != tc.decision {
				t.Errorf("decision %q, want %q\nstdout: %s", r.decision, tc.decision, r.stdout)
			}
			if tc.code == 2 {
				if !strings.Contains(r.stderr, tc.reason) || !strings.HasPrefix(r.stderr, "guardsh: denied [hook.error]: ") {
					t.Errorf("stderr %q, want a hook.error deny containing %q", r.stderr, tc.reason)
				}
			} else if r.stderr != "" {
				t.Errorf("stderr %q, want nothing (the answer is on stdout)", r.stderr)
			}
			if tc.reason != "" && tc.decision != "" && !strings.Contains(r.reason, tc.reason) {
				t.Errorf("reason %q, want it to contain %q", r.reason, tc.reason)
			}
			if r.command != tc.command {
				t.Errorf("rewritten command %q, want %q", r.command, tc.command)
			}
			for k, want := range tc.keep {
				if got := r.input[k]; got != want {
					t.Errorf("updated input %s = %#v, want %#v (kept as sent)", k, got, want)
				}
			}
		})
	}
}

// panicReader panics on Read: an internal error inside the hook.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

func TestHookPanicIsADeny(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini"} {
		var out, errb bytes.Buffer
		code := hookMain([]string{agent}, panicReader{}, &out, &errb, func(string) string { return "" })
		if code != 2 {
			t.Errorf("%s: exit status %d after a panic, want 2", agent, code)
		}
		if !strings.Contains(errb.String(), "internal error") || !strings.Contains(out.String(), `deny`) {
			t.Errorf("%s: a panic must give an explicit deny; stdout %q stderr %q", agent, out.String(), errb.String())
		}
	}
}

// TestHookProcess runs the real binary as the agent does: the exit status
// and the streams are what the agent sees.
func TestHookProcess(t *testing.T) {
	bin := guardshTestBinary(t)
	for _, tc := range []struct {
		args     []string
		in       string
		code     int
		contains string
	}{
		{[]string{"--hook", "claude", "--mode", "auto"}, claudeBash("ls -la"), 0, `"permissionDecision":"allow"`},
		{[]string{"--hook", "claude"}, "not json", 2, `"permissionDecision":"deny"`},
		{[]string{"--hook", "gemini", "--mode=auto"}, geminiShell("ls -la"), 0, `"decision":"allow"`},
		{[]string{"--hook=gemini"}, geminiShell("rm -rf ~"), 0, `"decision":"deny"`},
		{[]string{"--hook", "gemini"}, `{"tool_name":"read_file"}`, 2, `"decision":"deny"`},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Stdin = strings.NewReader(tc.in)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GUARDSH_MODE=")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(out.String(), tc.contains) {
			t.Errorf("guardsh %v: exit %d stdout %q stderr %q; want exit %d and %s", tc.args, code, out.String(), errb.String(), tc.code, tc.contains)
		}
		if tc.code == 2 && !strings.HasPrefix(errb.String(), "guardsh: denied [hook.error]") {
			t.Errorf("guardsh %v: stderr %q, want the reason", tc.args, errb.String())
		}
	}
}

// TestHookAudit: the hook's decisions are in the audit log, as the shell's
// are.
func TestHookAudit(t *testing.T) {
	bin := guardshTestBinary(t)
	home, _ := fakeHome(t)
	cmd := exec.Command(bin, "--hook", "claude")
	cmd.Stdin = strings.NewReader(claudeBash("rm -rf ~"))
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME=", "GUARDSH_MODE=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	data, err := os.ReadFile(guardsh.AuditLogPath(home, func(string) string { return "" }))
	if err != nil {
		t.Fatalf("no audit log: %v", err)
	}
	var rec audit.Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &rec); err != nil {
		t.Fatalf("audit log: %v\n%s", err, data)
	}
	if rec.Decision != "deny" || rec.Via != "hook:claude" || len(rec.Argv) != 1 || rec.Argv[0] != "rm -rf ~" ||
		!strings.HasPrefix(rec.Session, "claude:abc123") || rec.Rule == "" {
		t.Errorf("audit record %+v", rec)
	}
}

// TestHookRewriteRuns checks that a rewritten command is valid shell that
// runs the original command under guardsh, quotes and all.
func TestHookRewriteRuns(t *testing.T) {
	bin := guardshTestBinary(t)
	dir := t.TempDir()
	orig := `printf '%s|' "it's" a\ b "$((1+2))" > out.txt`
	opts := hookOptions{agent: "claude", exe: bin}
	cmd := exec.Command("/bin/sh", "-c", rewriteCommand(opts, guardsh.ModeAuto, orig))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rewritten command failed: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
	if string(got) != "it's|a b|3|" {
		t.Errorf("rewritten command wrote %q, want %q", got, "it's|a b|3|")
	}
}

// FuzzHook: whatever arrives on stdin, the hook answers allow/ask/deny with
// exit 0 or blocks with exit 2 and a reason; it never crashes, never exits
// otherwise, and never reaches its panic handler.
func FuzzHook(f *testing.F) {
	for _, s := range []string{
		claudeBash("ls -la"), claudeBash("rm -rf ~"), codexBash("git status"), geminiShell("echo $(id)"),
		`{"tool_name":"Bash","tool_input":{"command":"a\u0000b"}}`,
		`{"tool_name":"Bash","tool_input":{"command":"x"},"cwd":"rel/dir"}`,
		`{"tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"/etc"}}`,
		`{"tool_name":"Bash","tool_input":{"command":"cat <<EOF\nx\nEOF"}}`,
		`{"tool_name":"Bash","tool_input":{"command":"$(("}}`,
		"", "{", "null", "[]", `{"tool_name":1}`, "\xff\xfe",
	} {
		f.Add(s, uint8(0))
	}
	agents := [][]string{{"claude"}, {"codex"}, {"gemini"}, {"claude", "--rewrite"}, {"gemini", "--rewrite"}, {"codex", "--rewrite"}}
	f.Fuzz(func(t *testing.T, in string, which uint8) {
		args := agents[int(which)%len(agents)]
		r := runHookTest(t, args, in, nil) // fails the test if stdout is not JSON
		switch r.code {
		case 0:
			if r.decision == "" && r.stdout != "{}\n" {
				t.Fatalf("exit 0 without a decision: %q", r.stdout)
			}
		case 2:
			if !strings.HasPrefix(r.stderr, "guardsh: denied [hook.error]: ") {
				t.Fatalf("exit 2 without a reason on stderr: %q", r.stderr)
			}
			if r.decision != "deny" {
				t.Fatalf("exit 2 with decision %q", r.decision)
			}
		default:
			t.Fatalf("exit status %d", r.code)
		}
		if strings.Contains(r.stderr, "internal error") {
			t.Fatalf("the hook panicked on %q: %s", in, r.stderr)
		}
		if r.decision == "allow" && r.command != "" && !strings.Contains(r.command, " -c ") {
			t.Fatalf("rewritten command %q does not run under guardsh", r.command)
		}
	})
}

// BenchmarkHookClaude is the in-process part of one guardsh --hook claude
// call (the process start-up is measured by bench/run).
func BenchmarkHookClaude(b *testing.B) {
	in := claudeBash("git status && grep -rn TODO . | head -20")
	env := func(k string) string { return map[string]string{"HOME": "/home/user"}[k] }
	for b.Loop() {
		if code := hookMain([]string{"claude"}, strings.NewReader(in), io.Discard, io.Discard, env); code != 0 {
			b.Fatalf("exit status %d", code)
		}
	}
}
