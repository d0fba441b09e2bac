// Command guardsh-agent is guardsh's bundled local coding agent (issue 6).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "guardsh-agent: not built yet (issue 6)")
	os.Exit(2)
}
