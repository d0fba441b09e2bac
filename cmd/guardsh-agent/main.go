// Command guardsh-agent is guardsh's bundled local coding agent: it runs a
// task against an Ollama model whose only shell is guardsh
// (docs/guardsh-agent.md).
//
//	guardsh-agent [--model NAME] [--host URL] [--mode MODE] [--workdir DIR]
//	              [--test-cmd CMD] [--max-steps N] [--allow-dirty] "TASK"
//	guardsh-agent undo [--workdir DIR]
//
// The model's commands run without the secret-looking variables of the
// environment (tokens, keys, passwords: guardsh's [env] section, on by
// default for the agent; --scrub-env=false turns it off for one run).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/guardsh/guardsh/agentloop"
	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/internal/version"
	"github.com/guardsh/guardsh/interp"
	"github.com/ollama/ollama/api"
)

// Version is guardsh-agent's version as the build sets it (go build
// -ldflags "-X main.Version=v1.2.3"); when it is empty, --version prints
// what the Go toolchain recorded (internal/version).
var Version string

// defaultModel is used when neither --model, GUARDSH_MODEL nor agent.toml
// names one.
const defaultModel = "qwen2.5-coder:7b"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		// A second Ctrl-C after the first one leaves at once: every change
		// is already in the manifest, so undo still works.
		<-ctx.Done()
		stop()
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt)
		<-again
		fmt.Fprintln(os.Stderr, "\nguardsh-agent: interrupted twice, leaving now (undo still works: guardsh-agent undo)")
		os.Exit(130)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: guardsh-agent [--model NAME] [--host URL] [--mode MODE] [--workdir DIR]
                     [--test-cmd CMD] [--max-steps N] [--allow-dirty] "TASK"
       guardsh-agent undo [--workdir DIR]
       guardsh-agent --version

Runs TASK with a local Ollama model whose only shell is guardsh. The model
comes from --model, GUARDSH_MODEL, or agent.toml (default `+defaultModel+`);
the server from --host or OLLAMA_HOST. Every file the agent changes is
snapshotted first; "guardsh-agent undo" takes back the last run.

options:
`)
}

// run is main without the process: testable.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "undo" {
		return undo(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("guardsh-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "Ollama model (default: GUARDSH_MODEL, agent.toml, "+defaultModel+")")
	host := fs.String("host", "", "Ollama server URL (default: OLLAMA_HOST, agent.toml, http://127.0.0.1:11434)")
	mode := fs.String("mode", "", "guardsh mode: default, plan, edits, auto, bypass or strict (default: GUARDSH_MODE, config, default)")
	workdir := fs.String("workdir", ".", "the project to work in")
	testCmd := fs.String("test-cmd", "", "the command that runs the tests (default: agent.toml, or detected)")
	maxSteps := fs.Int("max-steps", 0, "most model turns (default 40)")
	maxTime := fs.Duration("max-time", 30*time.Minute, "time limit for the whole run")
	numCtx := fs.Int("num-ctx", 0, "context window to ask of Ollama (default 16384)")
	allowDirty := fs.Bool("allow-dirty", false, "start even with uncommitted changes in the repository")
	noStream := fs.Bool("no-stream", false, "ask Ollama for whole replies instead of a stream")
	noSandbox := fs.Bool("no-sandbox", false, "run the agent's commands without OS confinement (recorded in the audit log)")
	cleanEnvFlag := fs.Bool("clean-env", false, "start the commands' environment from an allow-list, with HOME in a directory of the run's own (default: clean_env in agent.toml, else off)")
	adminOn := fs.Bool("admin", false, "the admin context: only the irreversible-delete rules still deny, every other deny asks (a human's flag; refused inside a session)")
	var adminDevices deviceList
	fs.Var(&adminDevices, "admin-device", "in the admin context, a device (or disk image) whose formatting and writing may be approved (repeatable; implies --admin)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	scrubEnv := fs.Bool("scrub-env", true, "remove secret-looking variables from the commands' environment (default: [env] scrub_secrets in config.toml, else on)")
	fs.Usage = func() { usage(stderr); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "guardsh-agent %s\n", version.Of(Version))
		return 0
	}
	if fs.NArg() == 0 || strings.TrimSpace(strings.Join(fs.Args(), " ")) == "" {
		fmt.Fprintln(stderr, "guardsh-agent: no task given")
		fs.Usage()
		return 2
	}
	task := strings.Join(fs.Args(), " ")
	// Orphans of the model's commands are adopted by this process (and by
	// the sandboxed session), not init: the run stops them at its end.
	if err := interp.BecomeSubreaper(); err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: warning: cannot adopt orphaned processes (%v): a command that leaves its process group may outlive the run\n", err)
	}
	fc, err := agentloop.LoadFileConfig(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	m := first(*model, getenv("GUARDSH_MODEL"), fc.Model, defaultModel)
	base, hostDesc, err := ollamaURL(first(*host, getenv("OLLAMA_HOST"), fc.Host))
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	root, err := filepath.Abs(*workdir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: --workdir: %v\n", err)
		return 2
	}
	home, _ := os.UserHomeDir()
	gcfg, err := guardsh.LoadConfig(home, root, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	for _, w := range gcfg.Warnings {
		fmt.Fprintf(stderr, "guardsh-agent: warning: %s\n", w)
	}
	md, modeSrc, err := gcfg.ResolveMode(*mode, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	// The commands' environment: without secret-looking variables unless
	// the user turned that off ([env] in config.toml, --scrub-env=false).
	// The agent keeps its own environment (OLLAMA_HOST and the like).
	scrubOn := gcfg.Env.ScrubOn(true)
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "scrub-env" {
			scrubOn = *scrubEnv
		}
	})
	cleanOn := fc.CleanEnv != nil && *fc.CleanEnv
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "clean-env" {
			cleanOn = *cleanEnvFlag
		}
	})
	env := os.Environ()
	runHome := "" // the clean environment's HOME
	if cleanOn {
		runHome, err = os.MkdirTemp("", "guardsh-agent-home-")
		if err != nil {
			fmt.Fprintf(stderr, "guardsh-agent: --clean-env: %v\n", err)
			return 2
		}
		defer os.RemoveAll(runHome)
		_, noSB := sandboxOff(*noSandbox)
		env = append(cleanEnv(env, runHome, fc.EnvAllow, home, noSB), "GUARDSH_CONFIG="+guardsh.UserConfigPath(home, getenv))
	}
	env = agentEnv(env)
	var scrubbed []string // nil: off
	if scrubOn {
		env, scrubbed = gcfg.Env.ScrubSession(env)
		// The agent keeps its variables (os.Getenv), but the copy the
		// kernel shows in /proc/<pid>/environ loses the secrets: without
		// the sandbox the commands run in this process and could read it.
		if _, err := interp.ClearInitialEnviron(func(n, v string) bool { return gcfg.Env.Why(n, v) != "" }); err != nil {
			fmt.Fprintf(stderr, "guardsh-agent: warning: the secrets are still in /proc/%d/environ: %v\n", os.Getpid(), err)
		}
	} else {
		fmt.Fprintln(stderr, "guardsh-agent: warning: secret scrubbing is off: the model's commands get your whole environment, tokens included")
	}
	off, isOff := sandboxOff(*noSandbox)
	if !isOff {
		off = "none for the agent's file tools (path jail); commands run in the sandboxed session"
	}
	// The gate: a human at the terminal. Without one, every ask is refused
	// with a message telling the model that a human must approve it.
	var gate interp.Gate
	gateDesc := "none (no terminal: asks are refused)"
	if tg, err := interp.OpenTerminalGate(); err == nil {
		gate, gateDesc = tg, "/dev/tty"
	}
	var auditFile *os.File
	var alog *audit.Log
	if p := gcfg.AuditLogPath(home, getenv); p != "" {
		if f, err := audit.OpenFile(p, gcfg.AuditLimits()); err != nil {
			fmt.Fprintf(stderr, "guardsh-agent: warning: %v\n", err)
		} else {
			defer f.Close()
			auditFile, alog = f, audit.New(f, "")
			alog.SetLimits(gcfg.AuditLimits())
			alog.SetEnvScrubbed(scrubbed)
			defer alog.Close()
		}
	}
	// local decides the file tools' accesses, and runs the commands too
	// when the sandbox is off.
	policy := gcfg.Policy(md)
	grant, err := adminGrant(*adminOn, adminDevices, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	policy.Admin = grant
	alog.SetAdmin(grant.Describe())
	agentAdvisor = newAgentAdvisor(gcfg, getenv) // advisor.go
	// The path jail guards the local runner's own file access (redirections,
	// source, globs) when commands run without the sandboxed session.
	jfs, err := interp.NewJailFS(root)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	defer jfs.Close()
	local, err := interp.New(interp.Config{
		FS:      jfs,
		Policy:  policy,
		Project: root,
		Dir:     root,
		Env:     env,
		Name:    "guardsh",
		Sandbox: off,
		Gate:    gate,
		Audit:   alog,
		Advisor: agentAdvisor,
		// With the clean environment the policy still protects the
		// user's home, not the run's.
		UserHome: home,
	})
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	sess, err := startShell(root, md, policy, local, env, runHome, adminArgs(grant), *noSandbox, auditFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	defer sess.close()
	fmt.Fprintf(stdout, "guardsh-agent: %s, mode %s (%s), sandbox %s, gate %s, Ollama at %s\n", root, md, modeSrc, sess.desc, gateDesc, hostDesc)
	if grant != nil {
		fmt.Fprintf(stdout, "guardsh-agent: %s: only the irreversible-delete rules deny; every other deny asks at the gate\n", grant.Describe())
	}
	if cleanOn {
		fmt.Fprintf(stdout, "guardsh-agent: clean environment: commands get only %s, HOME=%s (removed at the end)\n", envNames(env), runHome)
	}
	if len(scrubbed) > 0 {
		fmt.Fprintf(stdout, "guardsh-agent: commands run without %s (secret-looking; to pass one, add it to keep in [env] of %s)\n", strings.Join(scrubbed, ", "), guardsh.UserConfigPath(home, getenv))
	}
	cfg := agentloop.Config{
		Client:     api.NewClient(base, http.DefaultClient),
		Model:      m,
		Host:       hostDesc,
		Task:       task,
		Workdir:    root,
		Shell:      sess.shell,
		TestCmd:    first(*testCmd, fc.TestCmd),
		AllowDirty: *allowDirty,
		MaxSteps:   firstInt(*maxSteps, fc.MaxSteps),
		MaxTime:    *maxTime,
		NumCtx:     firstInt(*numCtx, fc.NumCtx),
		NoStream:   *noStream,
		Out:        stdout,
	}
	res, err := agentloop.Run(ctx, cfg)
	if res == nil {
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 2
	}
	report(stdout, res)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "guardsh-agent: %v\n", err)
		return 1
	case ctx.Err() != nil:
		return 130
	case !res.Finished:
		return 1
	}
	return 0
}

// report prints how the run ended, the diffstat and what to do next.
func report(w io.Writer, res *agentloop.Result) {
	fmt.Fprintln(w)
	if res.Finished {
		fmt.Fprintf(w, "== done: %s\n", res.Summary)
	} else {
		fmt.Fprintf(w, "== stopped: %s\n", res.Stopped)
	}
	fmt.Fprintf(w, "verification: %s\n", res.Verified)
	if len(res.Changed) > 0 {
		fmt.Fprintf(w, "changed by the file tools: %s\n", strings.Join(res.Changed, ", "))
	}
	if len(res.ShellChanged) > 0 {
		fmt.Fprintf(w, "changed by shell commands: %s\n", strings.Join(res.ShellChanged, ", "))
	}
	if res.Git != "" {
		fmt.Fprint(w, res.Git)
	} else if len(res.Changed) > 0 || len(res.ShellChanged) > 0 {
		fmt.Fprintln(w, "take it all back: guardsh-agent undo")
	}
	fmt.Fprintf(w, "run record (snapshots, manifest, transcript): %s\n", res.RunDir)
}

func undo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guardsh-agent undo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workdir := fs.String("workdir", ".", "the project the run worked in")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := filepath.Abs(*workdir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent undo: %v\n", err)
		return 2
	}
	rep, err := agentloop.Undo(root)
	if rep != nil {
		fmt.Fprintf(stdout, "undo of run %s:\n", rep.RunID)
		for _, p := range rep.Restored {
			fmt.Fprintf(stdout, "  restored %s\n", p)
		}
		for _, p := range rep.Removed {
			fmt.Fprintf(stdout, "  removed  %s\n", p)
		}
		if len(rep.Kept) > 0 {
			fmt.Fprintf(stdout, "  changed after the run, saved in %s first: %s\n", rep.BackupIn, strings.Join(rep.Kept, ", "))
		}
		if rep.Git != "" {
			fmt.Fprintf(stdout, "  git: %s\n", rep.Git)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "guardsh-agent undo: %v\n", err)
		return 1
	}
	return 0
}

// agentEnv is the session's environment: no pagers or editors that wait
// for a terminal.
func agentEnv(env []string) []string {
	return append(env, "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "EDITOR=true", "GUARDSH_AGENT=1")
}

// envNames lists the names of env.
func envNames(env []string) string {
	var n []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		n = append(n, k)
	}
	return strings.Join(n, " ")
}

// ollamaURL parses a host as OLLAMA_HOST does ("" = 127.0.0.1:11434).
func ollamaURL(s string) (*url.URL, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = "http://127.0.0.1:11434"
	}
	bare := !strings.Contains(s, "://")
	if bare {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("bad Ollama host %q", s)
	}
	if bare && u.Port() == "" {
		u.Host += ":11434" // as OLLAMA_HOST: a bare host means Ollama's port
	}
	return u, u.String(), nil
}

func first(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func firstInt(n ...int) int {
	for _, x := range n {
		if x > 0 {
			return x
		}
	}
	return 0
}
