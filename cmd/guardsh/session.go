package main

// sandboxSession confines the session before the interpreter starts (issue
// 4). When it returns done, the process's work is over (for example, the
// privileged side ran the confined interpreter as a child) and code is the
// exit status. The placeholder confines nothing.
func sandboxSession(inv *invocation) (code int, done bool, describe string) {
	return 0, false, "off (not built yet)"
}
