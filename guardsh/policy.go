package guardsh

// Policy classifies commands for one session: a mode plus the configured
// rules on top of the built-in catalogue.
type Policy struct {
	Mode Mode
	// Rules come from the user's and the project's config files. They can
	// allow, ask or deny; none of them unlocks a built-in deny.
	Rules []Rule
	// Session holds the approvals a human gave in this session ("allow for
	// this session"), as normalised prefix rules.
	Session []Rule
	// Strict is the strict profile's configured allowlist (strict mode
	// only); nil means the built-in profile alone.
	Strict *StrictConfig
	// Sandboxed says the commands judged run inside a verified session
	// sandbox (no network, writes only in the project and temp dirs): auto
	// mode then allows what that sandbox contains (see sandboxContains)
	// instead of asking. The checker sets it for --check --sandboxed and
	// for hooks that rewrite commands to run under guardsh; the broker,
	// which runs things outside the sandbox, never does.
	Sandboxed bool
	// Admin is the admin context a human granted (admin.go); nil: none.
	Admin *AdminGrant
	// NetProxy says the session's commands reach the network only through
	// its proxy, which decides every connection by destination
	// (NetworkPolicy): the rules that ask only because a command uses the
	// network (BuiltinRule.ByDestination) do not ask then.
	NetProxy bool
	// Bookkeeping lists the files (canonical absolute paths) an agent's own
	// start-up script may write by redirection in this session: set by
	// the shell only for Claude Code's shell-snapshot script, recognised
	// from the process's own command line (cmd/guardsh/bookkeeping.go).
	// A write to one of them is allowed in every mode (agent.bookkeeping);
	// the path is judged as written and as resolved, so a link planted
	// there leads to the stricter verdict of its target.
	Bookkeeping []string
}

// NewPolicy returns the policy for mode with the built-in rules only.
func NewPolicy(mode Mode) *Policy {
	return &Policy{Mode: mode}
}

// Rule is a configured rule: a decision for every command whose normalised
// argv starts with Prefix, each word a glob (path.Match syntax); a last
// word "*" matches any rest (nothing included), a last word "$" requires
// the argv to end there. See Rule.Matches and NormalizeArgv.
type Rule struct {
	ID       string   `toml:"id" json:"id"`
	Decision Decision `toml:"-" json:"decision"`
	Prefix   []string `toml:"prefix" json:"prefix"`
	Reason   string   `toml:"reason" json:"reason,omitempty"`
	Hint     string   `toml:"hint" json:"hint,omitempty"`
	// Rights an approved command receives beyond the session sandbox.
	Network bool     `toml:"network" json:"network,omitempty"`
	Write   []string `toml:"write" json:"write,omitempty"`
	// Examples checked when the rule loads: command lines that must and
	// must not match.
	Match    []string `toml:"match" json:"match,omitempty"`
	NotMatch []string `toml:"not_match" json:"not_match,omitempty"`
	// Source names where the rule came from (file:line, "session", ...).
	Source string `toml:"-" json:"source,omitempty"`
	// For approvals (ApprovalRule), what the human saw: Unlocks is the
	// built-in finding the approved command was asked for ("git.push"; ""
	// none, asked by its mode only), and Options, when not nil, the option
	// and NAME=value words it had. The approval covers a command only when
	// its own finding is Unlocks and it has no option word outside Options.
	Unlocks string   `toml:"-" json:"unlocks,omitempty"`
	Options []string `toml:"-" json:"options,omitempty"`
	// Dir, for an approval of git, is the directory it was approved in:
	// git elsewhere is another repository, with remotes the human did not
	// see, and the approval does not cover it.
	Dir string `toml:"-" json:"dir,omitempty"`
}

// Access is one file access guardsh makes in its own process (a
// redirection, source, cd, a glob, an agent file tool), as the path jail
// resolved it.
type Access struct {
	Path     string // as written
	Resolved string // canonical absolute path (symlinks and .. resolved)
	Inside   bool   // Resolved lies inside Project
	Link     string // the symlink that led outside, if any
	Write    bool   // opened for writing, creating, truncating or deleting
	Dir      string // working directory
	Project  string // project root (canonical)
	Home     string
	Via      string // "redirect", "source", "cd", "glob", "agent", ...
	TmpDir   string // the session's temp dir ($TMPDIR), writable like the project; "" if unknown
	// Env looks up the shell's variables ($XDG_CONFIG_HOME, $GUARDSH_CONFIG
	// for the protected list); nil means none.
	Env func(name string) string
}
