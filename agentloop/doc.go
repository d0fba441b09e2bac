// Package agentloop is guardsh-agent's loop: an Ollama chat whose only shell
// is guardsh, with file tools through the path jail, snapshots and undo
// (docs/guardsh-agent.md).
//
// Run drives one task: it streams the model's replies (github.com/ollama/
// ollama/api, NDJSON), turns native or text-written tool calls into the
// seven tools (tools.go), and feeds every result back, errors included, as
// a tool message written for the model. Around the loop:
//
//   - the verification gate: after a change, finish waits for the project's
//     test command to pass (verified in tools.go);
//   - snapshots: every change is announced in an fsynced manifest with a copy
//     of the old content before it happens (snapshot.go), which Undo replays
//     backwards;
//   - git: the run's own branch from its first change, a checkpoint commit
//     per round, the review/merge/discard commands at the end (git.go);
//   - the shell: a Shell, either an *interp.Runner in this process or a
//     RemoteShell speaking to a sandboxed session process (remote.go).
package agentloop
