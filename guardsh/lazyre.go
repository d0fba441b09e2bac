package guardsh

import (
	"regexp"
	"sync"
)

// lazyRE returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp from then on. Package-level regexps used
// only on rare paths (error rewording) are declared with it, so that a
// process that never needs them (every start of guardsh, most sessions)
// does not pay their compilation at init.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
