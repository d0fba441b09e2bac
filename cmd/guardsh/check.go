package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
)

// guardsh --check and --explain: the static checker on the command line.
// Nothing runs.
//
//	guardsh --check [--mode M] [--json] [-c CMD]... [FILE | -]
//	guardsh --explain [--mode M] CMD
//
// With -c each CMD is one input; with FILE the file is one script; with
// neither (or "-"), every line of standard input is one command. Exit
// status: 0 every input is allowed, 1 some input needs approval, 2 some
// input is denied, 3 usage, configuration or I/O error.

func init() {
	registerMode("--check", runCheck)
	registerMode("--explain", runExplain)
}

// Exit statuses of --check and --explain.
const (
	checkAllow = 0
	checkAsk   = 1
	checkDeny  = 2
	checkError = 3
)

const checkUsage = `usage: guardsh --check [--mode MODE] [--sandboxed] [--json] [-c COMMAND]... [FILE | -]
       guardsh --explain [--mode MODE] [--sandboxed] COMMAND
Judges commands without running them. With neither -c nor FILE, every line of
standard input is one command. --sandboxed gives the verdicts of a shell whose
sandbox is verified (auto mode then allows what the sandbox contains).
Exit status: 0 all allowed, 1 some need approval, 2 some denied, 3 error.
`

// checkOptions is a parsed --check/--explain command line.
type checkOptions struct {
	mode     string
	json     bool
	commands []string // -c
	file     string   // FILE, "-" for stdin lines
	stdin    bool
	// sandboxed: judge as for commands that run in a verified session
	// sandbox (guardsh.Policy.Sandboxed), the verdicts the shell gives
	sandboxed bool
}

func parseCheckArgs(args []string, explain bool) (*checkOptions, error) {
	o := &checkOptions{}
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case a == "--mode":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--mode: option requires an argument")
			}
			i++
			o.mode = args[i]
		case strings.HasPrefix(a, "--mode="):
			o.mode = strings.TrimPrefix(a, "--mode=")
		case a == "--json" && !explain:
			o.json = true
		case a == "-c" && !explain:
			if i+1 >= len(args) {
				return nil, fmt.Errorf("-c: option requires an argument")
			}
			i++
			o.commands = append(o.commands, args[i])
		case a == "-h" || a == "--help":
			return nil, errHelp
		case a == "--no-sandbox":
			// Nothing runs: no sandbox to turn off.
		case a == "--sandboxed":
			o.sandboxed = true
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, fmt.Errorf("%s: unknown option", a)
		default:
			operands = append(operands, a)
		}
	}
	if explain {
		if len(operands) == 0 {
			return nil, fmt.Errorf("--explain: which command? (guardsh --explain 'git push -f')")
		}
		o.commands = []string{strings.Join(operands, " ")}
		return o, nil
	}
	switch {
	case len(operands) > 1:
		return nil, fmt.Errorf("--check: one FILE at most (got %q)", operands)
	case len(operands) == 1 && len(o.commands) > 0:
		return nil, fmt.Errorf("--check: give -c COMMAND or FILE, not both")
	case len(operands) == 1 && operands[0] == "-":
		o.stdin = true
	case len(operands) == 1:
		o.file = operands[0]
	case len(o.commands) == 0:
		o.stdin = true
	}
	if _, err := guardsh.ParseMode(o.mode); err != nil {
		return nil, fmt.Errorf("--mode: %v", err)
	}
	return o, nil
}

var errHelp = fmt.Errorf("help")

// checkSession is the policy and environment the checker judges with.
type checkSession struct {
	policy *guardsh.Policy
	env    guardsh.CheckEnv
}

func newCheckSession(o *checkOptions) (*checkSession, error) {
	home, _ := os.UserHomeDir()
	project := sessionProject()
	cfg, err := guardsh.LoadConfig(home, project, os.Getenv)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(os.Stderr, "guardsh: warning: %s\n", w)
	}
	mode, _, err := cfg.ResolveMode(o.mode, os.Getenv)
	if err != nil {
		return nil, err
	}
	dir, _ := os.Getwd()
	env := map[string]string{"PWD": dir}
	for _, k := range []string{"HOME", "TMPDIR", "USER"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		}
	}
	policy := cfg.Policy(mode)
	policy.Sandboxed = o.sandboxed
	policy.NetProxy = o.sandboxed && sandboxHasNetNS(os.Getenv) // netproxy.go
	return &checkSession{
		policy: policy,
		env:    guardsh.CheckEnv{Dir: dir, Project: project, Home: home, Env: env, Via: "check"},
	}, nil
}

// check judges one input. A parse error comes back as the verdict (ask,
// rule parse.error) with its reason.
func (s *checkSession) check(src string) guardsh.ScriptVerdict {
	sv, _ := s.policy.CheckScript(src, s.env)
	return sv
}

// startCheck parses --check/--explain arguments and loads the policy. A nil
// session means the work is over: code is the exit status (0 for --help).
func startCheck(args []string, explain bool) (*checkOptions, *checkSession, int) {
	o, err := parseCheckArgs(args, explain)
	if err == errHelp {
		fmt.Print(checkUsage)
		return nil, nil, 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n%s", err, checkUsage)
		return nil, nil, checkError
	}
	s, err := newCheckSession(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return nil, nil, checkError
	}
	return o, s, 0
}

func runCheck(args []string) int {
	o, s, code := startCheck(args, false)
	if s == nil {
		return code
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer out.Flush()
	status := checkAllow
	emit := func(src string) {
		sv := s.check(src)
		if o.json {
			writeCheckJSON(out, src, sv)
		} else {
			writeCheckText(out, src, sv)
		}
		if st := statusOf(sv.Decision); st > status {
			status = st
		}
	}
	switch {
	case len(o.commands) > 0:
		for _, c := range o.commands {
			emit(c)
		}
	case o.file != "":
		data, err := os.ReadFile(o.file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
			return checkError
		}
		emit(string(data))
	default:
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.TrimSpace(line) == "" {
				continue
			}
			emit(line)
		}
		if err := sc.Err(); err != nil {
			out.Flush()
			fmt.Fprintf(os.Stderr, "guardsh: reading standard input: %v\n", err)
			return checkError
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return checkError
	}
	return status
}

func statusOf(d guardsh.Decision) int {
	switch d {
	case guardsh.Allow:
		return checkAllow
	case guardsh.Ask:
		return checkAsk
	}
	return checkDeny
}

// checkJSON is one input's verdict as --check --json prints it (one object
// per line).
type checkJSON struct {
	Command  string            `json:"command"`
	Decision string            `json:"decision"`
	Rule     string            `json:"rule"`
	Reason   string            `json:"reason"`
	Hint     string            `json:"hint"`
	Effects  guardsh.Effects   `json:"effects,omitzero"`
	Commands []checkCommandOut `json:"commands"`
}

// checkCommandOut is one simple command's verdict within an input.
type checkCommandOut struct {
	Source   string          `json:"source"`
	Args     []string        `json:"args"`
	Line     uint            `json:"line"`
	Col      uint            `json:"col"`
	Decision string          `json:"decision"`
	Rule     string          `json:"rule"`
	Reason   string          `json:"reason"`
	Hint     string          `json:"hint,omitempty"`
	Effects  guardsh.Effects `json:"effects,omitzero"`
}

func toCheckJSON(src string, sv guardsh.ScriptVerdict) checkJSON {
	j := checkJSON{
		Command: src, Decision: sv.Decision.String(), Rule: sv.Rule,
		Reason: sv.Reason, Hint: sv.Hint, Effects: sv.Effects,
		Commands: make([]checkCommandOut, 0, len(sv.Commands)),
	}
	for _, c := range sv.Commands {
		j.Commands = append(j.Commands, checkCommandOut{
			Source: c.Source, Args: c.Args, Line: c.Line, Col: c.Col,
			Decision: c.Decision.String(), Rule: c.Rule, Reason: c.Reason, Hint: c.Hint, Effects: c.Effects,
		})
	}
	return j
}

func writeCheckJSON(w io.Writer, src string, sv guardsh.ScriptVerdict) {
	enc := json.NewEncoder(w) // one line per object
	enc.SetEscapeHTML(false)
	if err := enc.Encode(toCheckJSON(src, sv)); err != nil { // cannot happen: strings and slices only
		fmt.Fprintf(w, "{\"command\":%q,\"decision\":\"ask\",\"rule\":\"check.error\",\"reason\":%q}\n", src, err.Error())
	}
}

// writeCheckText prints one input's verdict:
//
//	deny [rm.recursive-home] git status && rm -rf ~/projekte
//	  reason: ...
//	  hint: ...
//	  - allow [read.only] git status
//	  - deny [rm.recursive-home] rm -rf ~/projekte
//
// The list of simple commands is left out when the input is one simple
// command as written.
func writeCheckText(w *bufio.Writer, src string, sv guardsh.ScriptVerdict) {
	fmt.Fprintf(w, "%s [%s] %s\n", sv.Decision, sv.Rule, oneLine(src))
	if sv.Decision != guardsh.Allow {
		if sv.Reason != "" {
			fmt.Fprintf(w, "  reason: %s\n", oneLine(sv.Reason))
		}
		if sv.Hint != "" {
			fmt.Fprintf(w, "  hint: %s\n", oneLine(sv.Hint))
		}
	}
	if len(sv.Commands) == 1 && strings.TrimSpace(sv.Commands[0].Source) == strings.TrimSpace(src) {
		return
	}
	for _, c := range sv.Commands {
		fmt.Fprintf(w, "  - %s [%s] %s\n", c.Decision, c.Rule, oneLine(c.Source))
	}
}

// oneLine keeps a verdict on its line: newlines and other control
// characters (escape sequences, C1 controls, bidirectional overrides) are
// shown escaped, as guardsh --audit shows them.
func oneLine(s string) string { return audit.Escape(s) }

func runExplain(args []string) int {
	o, s, code := startCheck(args, true)
	if s == nil {
		return code
	}
	src := o.commands[0]
	sv, perr := s.policy.CheckScript(src, s.env)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "command: %s\n", oneLine(src))
	fmt.Fprintf(w, "mode:    %s\n", s.policy.Mode)
	if perr != nil {
		fmt.Fprintf(w, "parse:   %s\n", oneLine(perr.Error()))
	}
	for i, c := range sv.Commands {
		fmt.Fprintf(w, "\n%d. %s  (line %d, column %d)\n", i+1, oneLine(c.Source), c.Line, c.Col)
		fmt.Fprintf(w, "   argv:     %s\n", oneLine(quoteArgv(c.Args)))
		fmt.Fprintf(w, "   decision: %s\n", c.Decision)
		fmt.Fprintf(w, "   rule:     %s%s\n", c.Rule, s.ruleOrigin(c.Rule))
		if c.Reason != "" {
			fmt.Fprintf(w, "   reason:   %s\n", oneLine(c.Reason))
		}
		if c.Hint != "" {
			fmt.Fprintf(w, "   hint:     %s\n", oneLine(c.Hint))
		}
		if e := effectsText(c.Effects); e != "" {
			fmt.Fprintf(w, "   effects:  %s\n", e)
		}
	}
	fmt.Fprintf(w, "\nverdict: %s [%s]%s\n", sv.Decision, sv.Rule, s.ruleOrigin(sv.Rule))
	if sv.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", oneLine(sv.Reason))
	}
	if sv.Hint != "" && sv.Decision != guardsh.Allow {
		fmt.Fprintf(w, "  hint:   %s\n", oneLine(sv.Hint))
	}
	return statusOf(sv.Decision)
}

// ruleOrigin names the configuration file line of a configured rule.
func (s *checkSession) ruleOrigin(id string) string {
	for _, r := range s.policy.Rules {
		if r.ID == id && r.Source != "" {
			return " (from " + r.Source + ")"
		}
	}
	return " (built-in)"
}

func quoteArgv(args []string) string {
	b, _ := json.Marshal(args)
	return string(b)
}

func effectsText(e guardsh.Effects) string {
	var parts []string
	if len(e.Reads) > 0 {
		parts = append(parts, "reads "+strings.Join(e.Reads, ", "))
	}
	if len(e.Writes) > 0 {
		parts = append(parts, "writes "+strings.Join(e.Writes, ", "))
	}
	if e.Network {
		parts = append(parts, "network")
	}
	if e.Install {
		parts = append(parts, "installs packages")
	}
	return strings.Join(parts, "; ")
}
