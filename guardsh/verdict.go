// Package guardsh is guardsh's policy engine: it turns one simple command,
// after expansion, into a Verdict (allow, ask or deny) with a rule ID, a
// reason and a hint written for the model, and the command's effects.
//
// It is pure logic: nothing here executes a command, opens a terminal or
// touches the file system beyond reading configuration.
package guardsh

import (
	"fmt"
	"strings"
)

// Decision is what the policy says about a command. Larger is stricter:
// Deny > Ask > Allow, and combining verdicts keeps the strictest.
type Decision int

// The three decisions, ordered from the most to the least permissive.
const (
	Allow Decision = iota
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("decision(%d)", int(d))
}

// Mode is the session's posture (see DESIGN.md "Modes and the gate").
type Mode string

// The modes guardsh knows.
const (
	ModeDefault Mode = "default"
	ModePlan    Mode = "plan"
	// ModeEdits is default mode with the agent's file tools free inside
	// the project: their writes there are allowed, every shell command
	// asks as in default mode (between default and auto).
	ModeEdits  Mode = "edits"
	ModeAuto   Mode = "auto"
	ModeBypass Mode = "bypass"
	// ModeStrict runs only what the strict allowlist lists (strict.go).
	ModeStrict Mode = "strict"
)

// ParseMode checks a mode name as given by --mode or GUARDSH_MODE.
// The empty string means ModeDefault; "accept-edits" and "acceptedits"
// (Claude Code's name) mean ModeEdits.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeDefault, nil
	case "accept-edits", "acceptedits":
		return ModeEdits, nil
	case ModeDefault, ModePlan, ModeEdits, ModeAuto, ModeBypass, ModeStrict:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want default, plan, edits, auto, bypass or strict)", s)
}

// Effects are what a command does to the world, as far as the policy can
// tell. The sandbox turns them into the rights an approved command receives.
type Effects struct {
	Reads   []string `json:"reads,omitempty"`   // paths read
	Writes  []string `json:"writes,omitempty"`  // paths written, created or deleted
	Network bool     `json:"network,omitempty"` // wants the network
	Install bool     `json:"install,omitempty"` // installs packages
}

// Command is one simple command as the runner sees it: argv after
// expansion, and where it runs.
type Command struct {
	Args    []string // expanded argv; Args[0] is the command name as written
	Dir     string   // working directory (absolute)
	Project string   // project root (absolute)
	Home    string   // the user's home directory
	// Env looks up a variable of the command's environment; nil means none.
	Env func(name string) string
	// Via says how the command was reached: "shell", "check", "hook", "agent".
	Via string
	// Function is set when Args[0] calls a shell function the script
	// defined: the call itself is allowed, the commands of its body are
	// judged one by one as they run.
	Function bool
	// Input is the command's standard input when the runner read it
	// before deciding (InputMatters: xargs, sqlite3, ed judge what they
	// read there); nil when it is not known.
	Input *string
	// Source is the simple command as written in the script, before
	// expansion, when the runner knows it. Classify then also judges the
	// written form, so that a glob the shell already expanded is seen as
	// the glob (rm -rf * in the project root); only its denials count.
	Source string
	// Which, when set (the runner), finds the file a bare command name runs
	// on the command's PATH ("" if none): programs such as pip are judged
	// by what they resolve to (a project venv's pip first on PATH is the
	// venv's), not by their name. nil in the checker, which cannot look.
	Which func(name string) string
	// OwnProcess, when set (the runner), reports whether pid is a process
	// this shell started and still runs (its own job, $!): kill of those is
	// job control, not signalling others'.
	OwnProcess func(pid int) bool
	// NameEscaped says the command name was written with a backslash in
	// it (\rm, r\m, a here-doc's \trm that bash runs as trm): a name
	// spelled to be something else than it reads. Auto mode with a
	// verified sandbox does not run such a command as an unknown program
	// it trusts by its name (cmd.unknown asks).
	NameEscaped bool
	// EscapedWords are the command's other words written with a
	// backslash, after quote removal ("" for one holding an expansion): a
	// wrapper's command (command \frobnicate, env \frobnicate) is judged
	// as escaped when its name is one of them.
	EscapedWords []string
	// budget is the static check's budget this command is judged within
	// (the code it runs shares it); nil starts a new one.
	budget *checkBudget

	// links are the symlinks a checked script created before this command
	// (absolute link path -> target as written); resolved says the
	// command is being judged in its resolved reading (resolve.go).
	links    map[string]string
	resolved bool
}

// Verdict is the policy's answer for one command.
type Verdict struct {
	Decision Decision `json:"decision"`
	Rule     string   `json:"rule"`   // rule ID, e.g. "rm.recursive-home"
	Reason   string   `json:"reason"` // why, for the model
	Hint     string   `json:"hint"`   // how to do the legitimate thing instead
	Effects  Effects  `json:"effects"`
}

// Message is the line guardsh prints on stderr for a refused command:
// "guardsh: denied [RULE]: REASON. HINT" ("refused" for the advisor's
// rules: a model's opinion, not a rule's).
func (v Verdict) Message() string {
	word := "denied"
	if v.Decision == Ask {
		word = "needs approval"
	} else if strings.HasPrefix(v.Rule, "advisor.") {
		word = "refused"
	}
	msg := fmt.Sprintf("guardsh: %s [%s]: %s", word, v.Rule, strings.TrimRight(v.Reason, "."))
	switch {
	case strings.HasPrefix(v.Hint, "\n"):
		msg += "." + v.Hint // a hint of lines of its own
	case v.Hint != "":
		msg += ". " + v.Hint
	}
	return msg
}
