// Package sandbox confines guardsh's interpreter and everything it starts:
// Landlock+seccomp on Linux, bubblewrap as the Linux fallback, Seatbelt on
// macOS, each proven by a start-up probe before it is trusted (docs/sandbox.md).
//
// The process the user started stays unconfined as the privileged side
// (the broker). It re-executes its own binary with a stage request in the
// environment; Stage, called first thing in main, confines that fresh
// process on one locked thread (read-only mounts in a private mount
// namespace, no_new_privs, Landlock, no capabilities, a seccomp filter)
// and then execs the interpreter, a command approved for escalation, or
// the probe. Nothing of the interpreter ever ran unconfined, and every
// process it starts inherits the confinement.
//
// Commands that a human approved with more rights than the session's
// (network, writes outside) are requested from the broker over a
// socketpair (Client, Broker); the broker decides again with its own
// policy (a callback) and runs them confined by the session plus exactly
// those rights.
//
// This package decides how things are enforced, never what is allowed:
// that is package guardsh's.
package sandbox
