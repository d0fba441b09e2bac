package main

import "io"

// doctorAgents reports, per coding agent found on PATH, whether its shell
// would be guardsh (issue 7). The placeholder reports nothing.
func doctorAgents(w io.Writer) bool { return true }
