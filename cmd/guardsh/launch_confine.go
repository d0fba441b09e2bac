package main

// guardsh --launch --confine: the agent process itself runs in guardsh's
// sandbox, so that its own file tools (which never go through a shell)
// cannot write outside the project either.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox"
)

// agentStateDirs are the paths under $HOME each agent must write to keep
// its sessions, settings and caches; --confine makes them writable.
var agentStateDirs = map[string][]string{
	"claude":    {".claude"}, // ~/.claude.json needs CLAUDE_CONFIG_DIR (files cannot be named yet)
	"codex":     {".codex"},
	"gemini":    {".gemini"},
	"aider":     {".aider"},
	"cline":     {".cline"},
	"goose":     {".config/goose", ".local/share/goose", ".local/state/goose"},
	"openhands": {".openhands"},
	"opencode":  {".local/share/opencode", ".local/state/opencode", ".config/opencode", ".cache/opencode"},
	"pi":        {".pi/agent"},
	"qwen":      {".qwen"},
}

// agentSettings are the files in each agent's (writable) state directory
// that name programs the agent runs when it starts next (Claude Code's
// and Gemini CLI's hooks and MCP servers, Codex's notify program and MCP
// servers, goose's extensions): written by the confined agent, they would
// run outside any sandbox at the user's next unconfined start, so the
// launcher restores them when the agent exits (guardConfinedAgent).
var agentSettings = map[string][]string{
	"claude": {".claude/settings.json"},
	"codex":  {".codex/config.toml"},
	"gemini": {".gemini/settings.json"},
	"goose":  {".config/goose/config.yaml"},
}

// confinedSettings lists the settings files of agent (agentSettings)
// under home, and Claude Code's in $CLAUDE_CONFIG_DIR when that is set.
func confinedSettings(agent, home string, getenv func(string) string) []string {
	var out []string
	name := filepath.Base(agent)
	if home != "" {
		for _, n := range agentSettings[name] {
			out = append(out, filepath.Join(home, n))
		}
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); name == "claude" && filepath.IsAbs(d) {
		if p := filepath.Join(d, "settings.json"); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// confinedWritable lists what the confined agent may write besides the
// project and its temporary directories: its state under home, the guardsh
// cache (the probe of the guardsh shells it starts works there), and the
// --allow-write paths. Missing state directories are created.
func confinedWritable(agent, home string, extra []string) ([]string, error) {
	var out []string
	if home != "" {
		names := append([]string{".cache/guardsh"}, agentStateDirs[filepath.Base(agent)]...)
		for _, n := range names {
			p := filepath.Join(home, n)
			if err := os.MkdirAll(p, 0o700); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	for _, p := range extra {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("--allow-write %s: %v", p, err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("--allow-write %s: not a directory", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

// confineAgent turns cmd (the agent, not started yet) into the same
// command confined by guardsh's sandbox: writes only to the project
// (sandbox.ProjectRoot of dir), tmpDir, /tmp, the agent's state and the
// extra paths; .git/hooks, .git/config and shell rc files read-only. The
// network stays open: the agent must reach its model. The backend is the
// first that passes the sandbox's probe. It returns the function that
// restores, once the agent has exited, the protected paths its sandbox
// cannot keep read-only (guardConfinedAgent).
func confineAgent(cmd *exec.Cmd, dir, tmpDir string, extra []string) (*exec.Cmd, func(), error) {
	home := os.Getenv("HOME")
	c := sandbox.NewConfig(sandbox.ProjectRoot(dir), tmpDir, home, os.Getenv)
	backend, desc := "", ""
	var failures []string
	for _, b := range sandbox.Backends() {
		r := sandbox.Probe(b, c) // proves the file confinement with the network closed
		if r.OK {
			backend, desc = b, r.Describe()
			break
		}
		failures = append(failures, b+": "+probeFailure(r))
	}
	if backend == "" {
		return nil, nil, fmt.Errorf("--confine: no sandbox backend passed the probe (%s)", strings.Join(failures, "; "))
	}
	w, err := confinedWritable(cmd.Args[0], home, extra)
	if err != nil {
		return nil, nil, fmt.Errorf("--confine: %v", err)
	}
	c.Writable = append(c.Writable, w...)
	// The shells the agent starts write guardsh's audit log themselves
	// (there is no broker above them): its directory stays writable.
	if cfg, err := guardsh.LoadConfig(home, c.Project, os.Getenv); err == nil {
		if p := cfg.AuditLogPath(home, os.Getenv); p != "" {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
				d := sandbox.Canon(filepath.Dir(p))
				c.Writable = append(c.Writable, d)
				// protected for every session, but written by these shells
				c.Protected = slices.DeleteFunc(c.Protected, func(q string) bool {
					return q == d || strings.HasPrefix(d, q+"/") || strings.HasPrefix(q, d+"/")
				})
			}
		}
	}
	c.Network = true
	desc += ", " + confinedAgentMark + " (network open)"
	// The guardsh shells the agent starts cannot confine themselves again
	// (the sandbox forbids the namespaces that takes): they run inside the
	// agent's sandbox, which the marker tells them (guardsh believes it only
	// in a process that really is confined).
	env := append(append([]string{}, cmd.Env...), sandbox.EnvRun+"="+desc)
	argv := append([]string{cmd.Path}, cmd.Args[1:]...)
	// the launcher's approval channel stays fd 3 (approvalFD)
	cc, err := sandbox.ExecCommandFiles(backend, c, argv, env, dir, cmd.ExtraFiles)
	if err != nil {
		return nil, nil, fmt.Errorf("--confine: %v", err)
	}
	cc.Stdin, cc.Stdout, cc.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	restore, err := guardConfinedAgent(c, backend, confinedSettings(cmd.Args[0], home, os.Getenv))
	if err != nil {
		return nil, nil, fmt.Errorf("--confine: %v", err)
	}
	return cc, restore, nil
}

func probeFailure(r sandbox.ProbeResult) string {
	if r.Err != "" {
		return r.Err
	}
	for _, c := range r.Checks {
		if !c.OK {
			return c.Name + ": " + c.Detail
		}
	}
	return "failed"
}
