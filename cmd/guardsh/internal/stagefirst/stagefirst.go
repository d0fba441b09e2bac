// Package stagefirst runs the sandbox's confining stage (sandbox.Stage)
// from its init function, as early in the process as Go allows: a package
// is initialised as soon as its imports are, in import-path order, and this
// one depends on the sandbox package alone, so a stage process confines
// itself and execs before the policy, the interpreter, the advisor's HTTP
// client and their dependencies initialise (their work would be thrown away
// by the exec). Elsewhere Stage returns at once. Import it for its effect:
//
//	import _ "github.com/guardsh/guardsh/cmd/guardsh/internal/stagefirst"
package stagefirst

import "github.com/guardsh/guardsh/sandbox"

func init() { sandbox.Stage() }
