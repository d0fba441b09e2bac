package jail

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule IDs of the jail's own refusals. Decisions about inside and outside
// belong to the policy and carry its rule IDs.
const (
	RuleEmpty    = "jail.empty-path"
	RuleNUL      = "jail.nul-byte"
	RuleTilde    = "jail.unexpanded-tilde"
	RuleRelative = "jail.relative-path"
	RulePrivate  = "jail.private-dir"
	RuleChanged  = "jail.changed-during-check" // a symlink or another file appeared between check and open
	RuleNotFile  = "jail.not-regular-file"
	RuleHardlink = "jail.hardlink"
	RuleOutside  = "jail.outside-project" // agent tools without a decider
	RuleNotRead  = "jail.delete-unread"
	RuleBinary   = "jail.binary-file"
	RuleTooBig   = "jail.too-big"
	RuleEdit     = "jail.edit-mismatch"
)

// Error is a file operation the jail refused or that failed, written for
// the model. With a Rule it is a refusal and reads
// "guardsh: denied [RULE]: PATH: REASON. HINT"; without one it is a plain
// failure and reads "OP PATH: REASON. HINT".
type Error struct {
	Op     string // "open", "read", "write", "edit", "delete", "list", "resolve"
	Path   string // as the caller gave it
	Rule   string // rule ID for a refusal; "" for a plain failure
	Reason string
	Hint   string
	Err    error // the underlying error, if any
	// Ask marks a refusal that a human could have approved (the policy
	// asked and nobody approved): it reads "needs approval" not "denied".
	Ask bool
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Rule != "" && e.Ask {
		b.WriteString("guardsh: needs approval [" + e.Rule + "]: ")
	} else if e.Rule != "" {
		b.WriteString("guardsh: denied [" + e.Rule + "]: ")
	} else {
		b.WriteString(e.Op + " ")
	}
	if e.Path == "" {
		b.WriteString(`""`)
	} else {
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	reason := e.Reason
	if reason == "" && e.Err != nil {
		reason = errText(e.Err)
	}
	b.WriteString(strings.TrimRight(reason, "."))
	if e.Hint != "" {
		b.WriteString(". " + Capitalize(e.Hint))
	}
	return b.String()
}

// Capitalize upper-cases the first letter of a sentence.
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
