package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/sandbox"
)

// guardConfinedAgent records, before an agent confined with config c by
// backend starts, the protected paths its sandbox cannot keep read-only:
// those missing now (no read-only mount covers a missing file) whose
// directory exists, and at the container level every protected path
// inside the project. The returned restore puts them back when the agent
// has exited and says what it undid, as a session does for its commands:
// otherwise the agent's own file tools could leave a .git/commondir or a
// config.worktree for the user's next git. settings are the agent's own
// settings files that name programs (agentSettings): restored as well.
func guardConfinedAgent(c sandbox.Config, backend string, settings []string) (restore func(), err error) {
	var paths []string
	for _, p := range settings {
		if fi, err := os.Lstat(filepath.Dir(p)); err == nil && fi.IsDir() {
			paths = append(paths, p)
		}
	}
	for _, p := range c.ProtectedMissing() {
		if fi, err := os.Lstat(filepath.Dir(p)); err == nil && fi.IsDir() {
			paths = append(paths, p)
		}
	}
	if backend == sandbox.BackendContainer {
		paths = append(c.ProtectedInside(), paths...)
	}
	if len(paths) == 0 {
		return func() {}, nil
	}
	g, err := sandbox.Snapshot(paths)
	if err != nil {
		return nil, err
	}
	return func() {
		changes, err := g.Restore()
		if len(changes) > 0 {
			fmt.Fprintf(os.Stderr, "guardsh: --launch --confine: protected paths and the agent's settings changed while the agent ran were restored when it exited: %s\n", strings.Join(changes, "; "))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: --launch --confine: %v\n", err)
		}
	}, nil
}
