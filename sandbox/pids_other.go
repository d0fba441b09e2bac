//go:build !linux

package sandbox

// MaxProcs is the process limit of a sandboxed session (Linux only so far).
const MaxProcs = 4096

// DescribeProcLimit says what limits a session's processes here.
func DescribeProcLimit() string {
	return "none: the session's processes are not limited on this system"
}
