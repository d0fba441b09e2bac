package agentloop

import (
	"strings"

	"github.com/guardsh/guardsh/interp/jail"
)

// splitLines splits s into lines, keeping no terminators.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// unifiedDiff is the jail's unified diff from old to new of the file name
// ("" when equal).
func unifiedDiff(name, old, new string) string {
	return jail.UnifiedDiff("a/"+name, "b/"+name, old, new)
}
