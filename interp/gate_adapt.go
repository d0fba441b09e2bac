package interp

import (
	"strings"

	"github.com/guardsh/guardsh/guardsh"
)

// approvalRule is the normalised prefix rule "allow for this session"
// stores for c (guardsh.ApprovalRule), with an ID naming what it allows so
// that audit records and verdicts tell session approvals apart.
func approvalRule(c guardsh.Command, v guardsh.Verdict) guardsh.Rule {
	r := guardsh.ApprovalRule(c)
	var words []string
	for _, w := range r.Prefix {
		if w != "*" && w != "$" {
			words = append(words, w)
		}
	}
	if len(words) > 3 {
		words = words[:3]
	}
	r.ID = "session." + strings.ToLower(ruleIDWord(words))
	if v.Effects.Network {
		r.Network = true
	}
	return r
}
