package main

import (
	"strings"
	"testing"
)

// TestHookExactKeys: the hook judges the fields the agent runs, by exact
// key. A case-variant or repeated key of anything the hook relies on, or a
// field of the wrong shape, is a deny (exit 2), never the verdict on the
// other copy.
func TestHookExactKeys(t *testing.T) {
	cases := []struct {
		name, agent, event string
	}{
		{"case variant of tool_input", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"TOOL_INPUT":{"command":"ls"}}`},
		{"case variant after", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","TOOL_INPUT":{"command":"ls"},"tool_input":{"command":"rm -rf ~"}}`},
		{"mixed case", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"Tool_Input":{"command":"ls"}}`},
		{"kelvin sign", "gemini", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf ~"},"tool_input\u212a":{"command":"ls"},"TOOL_INPUT":{"command":"ls"}}`},
		{"repeated key", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"tool_input":{"command":"ls"}}`},
		{"command case variant", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~","COMMAND":"ls"}}`},
		{"command repeated", "codex", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~","command":"ls"}}`},
		{"tool_name case variant", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Read","Tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"cwd case variant", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/","CWD":"/tmp","tool_input":{"command":"ls"}}`},
		{"dir_path case variant", "gemini", `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"/","DIR_PATH":"src"}}`},
		{"tool_input not an object", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf ~"}`},
		{"tool_input array", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":[{"command":"ls"}]}`},
		{"command not a string", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["ls"]}}`},
		{"tool_name not a string", "claude", `{"hook_event_name":"PreToolUse","tool_name":["Bash"],"tool_input":{"command":"ls"}}`},
		{"cwd not a string", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":{},"tool_input":{"command":"ls"}}`},
		{"only an upper-case tool_input", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","TOOL_INPUT":{"command":"ls"}}`},
		{"two values", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}} {}`},
		{"not an object", "claude", `["PreToolUse"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runHookTest(t, []string{c.agent, "--mode", "auto"}, c.event, nil)
			if r.code != 2 || r.decision != "deny" || !strings.Contains(r.stderr, "hook.error") {
				t.Fatalf("want a deny with exit 2, got exit %d decision %q\nstdout %s\nstderr %s", r.code, r.decision, r.stdout, r.stderr)
			}
		})
	}
	// the well-formed events of each agent still pass
	for _, ev := range []struct{ agent, event string }{{"claude", claudeBash("ls")}, {"codex", codexBash("ls")}, {"gemini", geminiShell("ls")}} {
		r := runHookTest(t, []string{ev.agent, "--mode", "auto"}, ev.event, nil)
		if r.code != 0 {
			t.Errorf("%s: exit %d: %s", ev.agent, r.code, r.stderr)
		}
	}
}

// TestHookArithmeticEnvironment: a variable the command does not assign is
// judged by the environment the agent's bash inherits (the hook's): unset,
// bash takes 0; set, its text is what bash evaluates.
func TestHookArithmeticEnvironment(t *testing.T) {
	cmd := claudeBash("echo $((n+1))")
	args := []string{"claude", "--mode", "auto", "--no-rewrite"}
	if r := runHookTest(t, args, cmd, nil); r.decision != "allow" {
		t.Errorf("n unset: %s %s", r.decision, r.reason)
	}
	if r := runHookTest(t, args, cmd, map[string]string{"n": "41"}); r.decision != "allow" {
		t.Errorf("n=41: %s %s", r.decision, r.reason)
	}
	if r := runHookTest(t, args, cmd, map[string]string{"n": "a[$(rm -rf ~)]"}); r.decision != "deny" {
		t.Errorf("n holds code: %s %s", r.decision, r.reason)
	}
	if r := runHookTest(t, args, claudeBash("read n; echo $((n+1))"), nil); r.decision != "ask" {
		t.Errorf("n read from stdin: %s %s", r.decision, r.reason)
	}
}

// issueCorners are the commands of bash's code-running corners that the
// hook once allowed and real bash then ran (guardsh's own families and
// the bash differential are in guardsh/check_bashcode_test.go).
var issueCorners = []string{
	`x='a[$(rm -rf ~)]'; echo $((x))`,
	`x='a[$(rm -rf ~)]'; (( x ))`,
	`x='a[$(rm -rf ~)]'; [[ $x -eq 0 ]]`,
	`x='a[$(rm -rf ~)]'; echo ${a[x]}`,
	`x='a[$(rm -rf ~)]'; arr[x]=1`,
	`x='a[$(rm -rf ~)]'; declare -i y=x`,
	`x='a[$(rm -rf ~)]'; echo $[x]`,
	`x='a[$(rm -rf ~)]'; let y=x`,
	`printf -v 'a[$(rm -rf ~)]' x`,
	`test -v 'a[$(rm -rf ~)]'`,
	`read 'a[$(rm -rf ~)]' <<< x`,
	`x='$(rm -rf ~)'; echo ${x@P}`,
	`declare -n r='a[$(rm -rf ~)]'; echo $r`,
	`x='a[$(rm -rf ~)]'; echo ${!x}`,
	`export PS4='$(rm -rf ~)'; set -x; :`,
	`BASH_ENV=./x.sh bash -c true`,
	`ENV=./x.sh sh -i -c true`,
	`command_not_found_handle(){ rm -rf ~; }; pytest`,
	`hash -p /bin/rm ls; ls -rf ~`,
	`enable -f ./x.so x`,
	`ln -s ~ build && rm -rf build/`,
	`trap 'rm -rf ~' EXIT`,
	`PROMPT_COMMAND='rm -rf ~'`,
	`IFS=x; eval "echo"`,
	"rm -rf ~\n" + strings.Repeat("$(", 12000) + strings.Repeat(")", 12000),
	strings.Repeat(":\n", 500001) + "rm -rf ~",
}

// TestHookBashCorners: through the hook itself, in every agent's
// protocol and in auto and bypass-free default modes, none of the
// commands above is allowed.
func TestHookBashCorners(t *testing.T) {
	events := map[string]func(string) string{"claude": claudeBash, "codex": codexBash, "gemini": geminiShell}
	for agent, ev := range events {
		for _, mode := range []string{"auto", "default"} {
			for _, c := range issueCorners {
				r := runHookTest(t, []string{agent, "--mode", mode, "--no-rewrite"}, ev(c), nil)
				if r.decision != "deny" && r.decision != "ask" || r.code != 0 {
					t.Errorf("%s %s: %.60q: exit %d, decision %q %s", agent, mode, c, r.code, r.decision, r.reason)
				}
			}
		}
	}
}
