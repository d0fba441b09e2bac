// Package agentloop is guardsh-agent's loop: an Ollama chat whose only shell
// is guardsh, with file tools through the path jail, snapshots and undo
// (issue 6).
package agentloop
