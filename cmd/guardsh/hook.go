package main

// guardsh --hook AGENT: a pre-tool hook for coding agents that offer one.
//
// The agent runs the hook before each tool call, with the call as JSON on
// stdin, and reads the decision from stdout (or from the exit status and
// stderr). guardsh answers with its static checker's verdict. The hook never
// fails open: malformed input, a tool it does not know and any internal error
// (a panic included) give an explicit deny, exit status 2 and the reason on
// stderr, which every supported agent treats as "block this call".
//
// Protocols:
//   - claude: Claude Code's PreToolUse event. Answer
//     {"hookSpecificOutput":{"hookEventName":"PreToolUse",
//     "permissionDecision":"allow|deny|ask","permissionDecisionReason":...,
//     "updatedInput":{...}}}.
//   - codex: Codex CLI's PreToolUse event, Claude Code's wire format with
//     Codex's restrictions: "allow" only together with updatedInput, no "ask".
//   - gemini: Gemini CLI's BeforeTool event. Answer {"decision":"allow|deny",
//     "reason":...,"hookSpecificOutput":{"tool_input":{...}}}.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
	"mvdan.cc/sh/v3/syntax"
)

func init() { registerMode("--hook", runHook) }

// maxHookInput bounds what the hook reads from stdin. A tool call larger than
// this is refused rather than truncated.
const maxHookInput = 8 << 20

// hookOptions are the hook's command-line options.
type hookOptions struct {
	agent   string // claude, codex, gemini
	mode    string // --mode; "" leaves it to hookMode
	rewrite bool   // run allowed commands under guardsh (the default for claude and gemini; --no-rewrite)
	exe     string // guardsh binary named in rewritten commands
	note    string // added to an allow's reason (the advisor's, hook_advisor.go)
}

const hookUsage = "usage: guardsh --hook claude|codex|gemini [--mode MODE] [--rewrite|--no-rewrite]"

// runHook is the --hook mode. It reads one event from stdin, writes the
// answer to stdout and returns the exit status.
func runHook(args []string) int {
	return hookMain(args, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// hookMain is runHook with its streams and environment passed in. It never
// panics: a panic anywhere below becomes an explicit deny.
func hookMain(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	agent := ""
	if len(args) > 0 {
		agent = args[0]
	}
	defer func() {
		if r := recover(); r != nil {
			code = hookFail(agent, stdout, stderr,
				fmt.Sprintf("internal error in guardsh's hook (%v); the call is blocked so nothing runs unchecked", r))
			if getenv("GUARDSH_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
		}
	}()
	opts, err := parseHookArgs(args, getenv)
	if err != nil {
		return hookFail(agent, stdout, stderr, err.Error()+"; "+hookUsage)
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	if err != nil {
		return hookFail(opts.agent, stdout, stderr, "cannot read the hook event: "+err.Error())
	}
	if len(data) > maxHookInput {
		return hookFail(opts.agent, stdout, stderr, fmt.Sprintf("hook event larger than %d bytes", maxHookInput))
	}
	ev, err := parseHookEvent(opts.agent, data)
	if err != nil {
		return hookFail(opts.agent, stdout, stderr, err.Error())
	}
	d, err := hookVerdict(opts, ev, getenv)
	if err != nil {
		return hookFail(opts.agent, stdout, stderr, err.Error())
	}
	if opts, err = strictHookRewrite(opts, d.mode); err != nil { // hook_strict.go
		return hookFail(opts.agent, stdout, stderr, err.Error())
	}
	hookAdvise(context.Background(), opts, ev, &d, getenv, stderr) // hook_advisor.go
	opts.note = d.note
	hookAudit(opts, ev, d, getenv)
	out := hookAnswer(opts, ev, d.v, d.mode)
	if _, err := stdout.Write(out); err != nil {
		return hookFail(opts.agent, io.Discard, stderr, "cannot write the answer: "+err.Error())
	}
	return 0
}

func parseHookArgs(args []string, getenv func(string) string) (hookOptions, error) {
	var o hookOptions
	if len(args) == 0 {
		return o, errors.New("--hook: which agent?")
	}
	switch args[0] {
	case "claude", "codex", "gemini":
		o.agent = args[0]
	default:
		return o, fmt.Errorf("--hook: unknown agent %q", args[0])
	}
	// Claude Code and Gemini CLI run allowed commands under guardsh unless
	// told otherwise (docs/agents.md has the measurements): the static
	// verdict alone cannot hold for what a script file, a variable's value
	// at run time or a program's own behaviour does. Codex keeps its
	// answer-by-default (allow needs updatedInput there).
	o.rewrite = o.agent == "claude" || o.agent == "gemini"
	if env := strings.TrimSpace(getenv("GUARDSH_HOOK_REWRITE")); env != "" {
		o.rewrite = truthy(env)
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--rewrite":
			o.rewrite = true
		case a == "--no-rewrite":
			o.rewrite = false
		case a == "--mode" && i+1 < len(args):
			i++
			o.mode = args[i]
		case strings.HasPrefix(a, "--mode="):
			o.mode = strings.TrimPrefix(a, "--mode=")
		default:
			return o, fmt.Errorf("--hook: unknown option %q", a)
		}
	}
	if o.mode == "" {
		o.mode = getenv("GUARDSH_MODE")
	}
	if o.mode != "" {
		if _, err := guardsh.ParseMode(o.mode); err != nil {
			return o, fmt.Errorf("--hook: %v", err)
		}
	}
	if o.rewrite {
		exe, err := defaultExe() // hook_strict.go
		if err != nil {
			return o, fmt.Errorf("--rewrite: cannot find guardsh's own binary: %v", err)
		}
		o.exe = exe
	}
	return o, nil
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// hookEvent is what guardsh needs from one tool-call event, whatever the
// agent.
type hookEvent struct {
	Command string                     // the shell command the agent wants to run
	Dir     string                     // where it would run
	Mode    string                     // the agent's permission mode, if it says
	Session string                     // the agent's session id
	Input   map[string]json.RawMessage // tool_input as sent, for updatedInput
}

// shellTool is each agent's name for its shell tool, and the event the hook
// must be registered on.
var shellTool = map[string]struct{ tool, event string }{
	"claude": {"Bash", "PreToolUse"},
	"codex":  {"Bash", "PreToolUse"},
	"gemini": {"run_shell_command", "BeforeTool"},
}

func parseHookEvent(agent string, data []byte) (hookEvent, error) {
	var ev hookEvent
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ev, errors.New("empty hook event on stdin (expected the agent's JSON)")
	}
	// Claude Code's, Codex CLI's and Gemini CLI's events share the fields
	// the hook relies on; each is read by its exact key (hook_decode.go).
	top, err := exactObject(data)
	if err != nil {
		return ev, fmt.Errorf("malformed hook event: %v", err)
	}
	var fields [5]string
	var toolName *string
	for i, key := range []string{"tool_name", "hook_event_name", "cwd", "session_id", "permission_mode"} {
		v, present, err := stringField(top, key)
		if err != nil {
			return ev, fmt.Errorf("malformed hook event: %v", err)
		}
		fields[i] = v
		if i == 0 && present {
			toolName = &fields[0]
		}
	}
	eventName := fields[1]
	ev.Dir, ev.Session = fields[2], fields[3]
	if agent != "gemini" {
		ev.Mode = fields[4]
	}
	input := top["tool_input"]
	want := shellTool[agent]
	if eventName != "" && eventName != want.event {
		return ev, fmt.Errorf("guardsh --hook %s answers %s events only, got %q; register it under %s",
			agent, want.event, eventName, want.event)
	}
	if toolName == nil {
		return ev, errors.New("malformed hook event: no tool_name")
	}
	if *toolName != want.tool {
		return ev, fmt.Errorf("guardsh --hook %s checks the %s tool only, not %q; register it with the matcher %q",
			agent, want.tool, *toolName, want.tool)
	}
	input = bytes.TrimSpace(input)
	if len(input) == 0 || input[0] != '{' {
		return ev, errors.New("malformed hook event: tool_input is not an object")
	}
	if ev.Input, err = exactObject(input); err != nil {
		return ev, fmt.Errorf("malformed hook event: tool_input: %v", err)
	}
	raw, ok := ev.Input["command"]
	if !ok {
		return ev, errors.New("malformed hook event: tool_input has no command")
	}
	if err := json.Unmarshal(raw, &ev.Command); err != nil {
		return ev, errors.New("malformed hook event: tool_input.command is not a string")
	}
	if strings.TrimSpace(ev.Command) == "" {
		return ev, errors.New("empty command")
	}
	if strings.ContainsRune(ev.Command, 0) {
		return ev, errors.New("the command contains a NUL byte")
	}
	// Gemini's shell tool may run in a directory relative to the project.
	if agent == "gemini" {
		for _, key := range []string{"dir_path", "directory"} {
			var d string
			if raw, ok := ev.Input[key]; ok && json.Unmarshal(raw, &d) == nil && d != "" {
				if filepath.IsAbs(d) || ev.Dir == "" {
					ev.Dir = d
				} else {
					ev.Dir = filepath.Join(ev.Dir, d)
				}
			}
		}
	}
	if ev.Dir == "" || !filepath.IsAbs(ev.Dir) {
		wd, err := os.Getwd()
		if err != nil {
			return ev, errors.New("no usable cwd in the hook event")
		}
		if ev.Dir == "" {
			ev.Dir = wd
		} else {
			ev.Dir = filepath.Join(wd, ev.Dir)
		}
	}
	return ev, nil
}

// hookMode picks the policy mode: --mode, then GUARDSH_MODE, then the
// configuration's mode, then the agent's own permission mode where it maps
// onto one of guardsh's (Claude Code's and Codex's "plan" and
// "bypassPermissions"). An agent in plan mode always gets guardsh's plan
// mode, the strictest.
func hookMode(opts hookOptions, ev hookEvent, cfg *guardsh.Config, getenv func(string) string) (guardsh.Mode, error) {
	m, src, err := cfg.ResolveMode(opts.mode, getenv)
	if err != nil {
		return "", err
	}
	switch {
	case ev.Mode == "plan":
		return guardsh.ModePlan, nil
	case src == "default" && ev.Mode == "bypassPermissions":
		return guardsh.ModeBypass, nil
	}
	return m, nil
}

// hookDecision is the hook's decision and what it was made with.
type hookDecision struct {
	v             guardsh.Verdict
	mode          guardsh.Mode
	cfg           *guardsh.Config
	home, project string
	advised       *audit.Advisor // the advisor's rating, or why none (hook_advisor.go)
	note          string         // the advisor's word for an allow's reason
}

// hookVerdict is the static checker's verdict on the event's command, with
// the user's and the project's configuration.
func hookVerdict(opts hookOptions, ev hookEvent, getenv func(string) string) (hookDecision, error) {
	d := hookDecision{home: getenv("HOME"), project: sandbox.ProjectRoot(ev.Dir)}
	cfg, err := guardsh.LoadConfig(d.home, d.project, getenv)
	if err != nil {
		return d, fmt.Errorf("guardsh configuration: %v", err)
	}
	d.cfg = cfg
	mode, err := hookMode(opts, ev, cfg, getenv)
	if err != nil {
		return d, err
	}
	d.mode = mode
	env := map[string]string{"PWD": ev.Dir}
	for _, k := range []string{"HOME", "TMPDIR", "USER"} {
		if v := getenv(k); v != "" {
			env[k] = v
		}
	}
	policy := cfg.Policy(mode)
	// A rewritten command runs under guardsh, in its verified sandbox:
	// judge it as that shell will (a shell without one refuses to run).
	policy.Sandboxed = opts.rewrite && !strings.EqualFold(getenv("GUARDSH_SANDBOX"), "off")
	// and its connections go through the session's proxy where the
	// sandbox has a network namespace
	policy.NetProxy = policy.Sandboxed && sandboxHasNetNS(getenv)
	sv, _ := policy.CheckScript(ev.Command, guardsh.CheckEnv{
		Dir: ev.Dir, Project: d.project, Home: d.home, Env: env, Via: "hook",
		Environ: hookEnviron(getenv),
	}) // a parse error comes back as the verdict (ask), with its reason
	d.v = sv.Verdict
	return d, nil
}

// hookEnviron is the environment the agent's command inherits: the hook's
// own (agents run hooks with theirs). An empty variable counts as unset:
// bash evaluates both as 0.
func hookEnviron(getenv func(string) string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v := getenv(name)
		return v, v != ""
	}
}

// hookAudit appends the decision to the audit log, as the shell does for
// every command it decides (the log's own errors do not change the
// answer, as in the shell).
func hookAudit(opts hookOptions, ev hookEvent, d hookDecision, getenv func(string) string) {
	v := d.v
	path := d.cfg.AuditLogPath(d.home, getenv)
	if path == "" {
		return
	}
	f, err := audit.OpenFile(path, d.cfg.AuditLimits())
	if err != nil {
		return
	}
	defer f.Close()
	session := opts.agent
	if ev.Session != "" {
		session += ":" + ev.Session
	}
	runs := opts.agent + " runs it (not sandboxed by guardsh)"
	if opts.rewrite && v.Decision == guardsh.Allow {
		runs = "guardsh -c (rewritten by the hook)"
	}
	audit.New(f, session).Decide(&audit.Record{
		Cwd: ev.Dir, Project: d.project, Argv: []string{ev.Command}, Via: "hook:" + opts.agent,
		Mode: d.mode, Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason,
		Effects: v.Effects, Sandbox: runs, Advisor: d.advised,
	})
}

// rewriteCommand is the command line that runs src under guardsh, so that
// its rules apply again at run time (with the values of variables) and its
// sandbox confines what runs.
func rewriteCommand(opts hookOptions, mode guardsh.Mode, src string) string {
	q := func(s string) string {
		out, err := syntax.Quote(s, syntax.LangBash)
		if err != nil { // cannot happen: NUL bytes were refused earlier
			panic(err)
		}
		return out
	}
	return q(opts.exe) + " --mode=" + string(mode) + " -c " + q(src)
}

// updatedInput is the agent's tool_input with the command rewritten; every
// other field is kept as sent.
func updatedInput(opts hookOptions, mode guardsh.Mode, ev hookEvent) map[string]json.RawMessage {
	in := make(map[string]json.RawMessage, len(ev.Input))
	for k, v := range ev.Input {
		in[k] = v
	}
	cmd, _ := json.Marshal(rewriteCommand(opts, mode, ev.Command))
	in["command"] = cmd
	return in
}

type claudeAnswer struct {
	HookSpecificOutput claudeSpecific `json:"hookSpecificOutput"`
}

type claudeSpecific struct {
	HookEventName            string                     `json:"hookEventName"`
	PermissionDecision       string                     `json:"permissionDecision"`
	PermissionDecisionReason string                     `json:"permissionDecisionReason"`
	UpdatedInput             map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

type geminiAnswer struct {
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName string                     `json:"hookEventName,omitempty"`
	ToolInput     map[string]json.RawMessage `json:"tool_input,omitempty"`
}

// noApprover explains an ask where the agent has no way to ask a human.
const noApprover = " A human must approve this command: run it yourself, or add an allow rule for it to ~/.config/guardsh/config.toml."

// hookAnswer encodes v in the agent's protocol. A policy deny is an ordinary
// answer (exit status 0); only failures exit 2.
func hookAnswer(opts hookOptions, ev hookEvent, v guardsh.Verdict, mode guardsh.Mode) []byte {
	reason := v.Message() // rule ID, reason and hint
	if v.Decision == guardsh.Allow {
		reason = fmt.Sprintf("guardsh: allowed [%s] (mode %s)", v.Rule, mode)
		if opts.note != "" {
			reason += "; " + opts.note
		}
	}
	var ans any
	switch opts.agent {
	case "claude":
		s := claudeSpecific{HookEventName: "PreToolUse", PermissionDecision: v.Decision.String(), PermissionDecisionReason: reason}
		if v.Decision == guardsh.Allow && opts.rewrite {
			s.UpdatedInput = updatedInput(opts, mode, ev)
			s.PermissionDecisionReason += "; runs under guardsh"
		}
		ans = claudeAnswer{s}
	case "codex":
		// Codex accepts "allow" only with updatedInput, and no "ask": an
		// allowed command without rewriting is an empty answer (proceed),
		// an ask is a deny that says a human must approve.
		switch {
		case v.Decision == guardsh.Allow && opts.rewrite:
			ans = claudeAnswer{claudeSpecific{HookEventName: "PreToolUse", PermissionDecision: "allow",
				PermissionDecisionReason: reason + "; runs under guardsh", UpdatedInput: updatedInput(opts, mode, ev)}}
		case v.Decision == guardsh.Allow:
			return []byte("{}\n")
		default:
			if v.Decision == guardsh.Ask {
				reason += "." + noApprover
			}
			ans = claudeAnswer{claudeSpecific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}}
		}
	case "gemini":
		a := geminiAnswer{Decision: "allow", Reason: reason}
		if v.Decision != guardsh.Allow {
			a.Decision = "deny"
			if v.Decision == guardsh.Ask {
				a.Reason += "." + noApprover
			}
		} else if opts.rewrite {
			a.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: updatedInput(opts, mode, ev)}
			a.Reason += "; runs under guardsh"
		}
		ans = a
	default:
		panic("hookAnswer: unknown agent " + opts.agent)
	}
	out, err := json.Marshal(ans)
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// hookFail blocks the call: a deny answer on stdout where the protocol is
// known, the reason on stderr, exit status 2 (every supported agent blocks
// the call on 2 and shows stderr to the model).
func hookFail(agent string, stdout, stderr io.Writer, reason string) int {
	msg := "guardsh: denied [hook.error]: " + reason
	var ans any
	switch agent {
	case "claude", "codex":
		ans = claudeAnswer{claudeSpecific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: msg}}
	case "gemini":
		ans = geminiAnswer{Decision: "deny", Reason: msg}
	}
	if ans != nil {
		if out, err := json.Marshal(ans); err == nil {
			stdout.Write(append(out, '\n'))
		}
	}
	fmt.Fprintln(stderr, msg)
	return 2
}
