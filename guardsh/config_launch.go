package guardsh

import "fmt"

// The [launch] and [approval] sections (user file only):
//
//	[launch]
//	bind_sh = true           # guardsh --launch makes /bin/sh guardsh too (default false)
//
//	[approval]
//	terminal_prompt = true   # without a launcher, a non-interactive guardsh may
//	                         # prompt on the controlling terminal (default false)
//
// Both decide who may answer guardsh's asks or which programs are guardsh:
// a project file (it comes with the repository the agent works on) cannot
// set them, trusted or not; its keys are ignored with a warning.

type fileLaunch struct {
	BindSh *bool `toml:"bind_sh"`
}

type fileApproval struct {
	TerminalPrompt *bool `toml:"terminal_prompt"`
}

// LaunchConfig is the user file's [launch] section.
type LaunchConfig struct {
	// BindSh makes /bin/sh (and /usr/bin/sh) guardsh in the launcher's
	// namespace too (guardsh --launch --bind-sh).
	BindSh bool
}

// ApprovalConfig is the user file's [approval] section.
type ApprovalConfig struct {
	// TerminalPrompt lets a non-interactive guardsh without a launcher
	// ask on the controlling terminal; otherwise its asks are refused at
	// once ("no human").
	TerminalPrompt bool
}

func (c *Config) applyLaunch(file, src string, l *fileLaunch, a *fileApproval, project bool) {
	if project {
		if l != nil && l.BindSh != nil {
			ln, col := locateKey(src, "launch", 0, "bind_sh")
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: launch.bind_sh ignored: only the user file chooses which shells are guardsh", file, ln, col))
		}
		if a != nil && a.TerminalPrompt != nil {
			ln, col := locateKey(src, "approval", 0, "terminal_prompt")
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: approval.terminal_prompt ignored: only the user file chooses where guardsh asks", file, ln, col))
		}
		return
	}
	if l != nil && l.BindSh != nil {
		c.Launch.BindSh = *l.BindSh
	}
	if a != nil && a.TerminalPrompt != nil {
		c.Approval.TerminalPrompt = *a.TerminalPrompt
	}
}
