package interp

import (
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/guardsh"
)

// approvalRule is the normalised prefix rule "allow for this session"
// stores for c: the command and its subcommand, never the literal line.
func approvalRule(c guardsh.Command, v guardsh.Verdict) guardsh.Rule {
	var prefix []string
	if len(c.Args) > 0 {
		prefix = append(prefix, filepath.Base(c.Args[0]))
		if len(c.Args) > 1 {
			if a := c.Args[1]; a != "" && !strings.HasPrefix(a, "-") && !strings.ContainsAny(a, "/~.*?[$=") {
				prefix = append(prefix, a)
			}
		}
	}
	r := guardsh.Rule{
		ID:       "session." + ruleIDWord(prefix),
		Decision: guardsh.Allow,
		Prefix:   prefix,
		Reason:   "allowed for this session by a human",
		Source:   "session",
		Network:  v.Effects.Network,
		Write:    v.Effects.Writes,
	}
	return r
}
