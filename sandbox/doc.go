// Package sandbox confines guardsh's interpreter and everything it starts:
// Landlock+seccomp on Linux, bubblewrap as the Linux fallback, Seatbelt on
// macOS, each proven by a start-up probe before it is trusted (issue 4).
package sandbox
