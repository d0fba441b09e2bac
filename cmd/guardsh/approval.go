package main

// Who answers guardsh's asks (docs/policy.md, "The gate"):
//
//  1. Under guardsh --launch: the launcher, over the channel it made
//     before the agent started (interp.ChannelGate). Never a terminal:
//     the agent may own it (a PTY it made and types into).
//  2. Without a launcher: the terminal when the shell is interactive (-i,
//     or a prompt loop on a terminal) or when the user's own file sets
//     [approval] terminal_prompt = true; otherwise nobody ("no human":
//     refused at once, with the three-line message).

import (
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
)

// sessionInteractive is set by shell before the session starts: -i, or a
// prompt loop on a terminal.
var sessionInteractive bool

// approvalChannel is the launcher's channel taken from the environment
// (interp.EnvApprovalFD): checked to be a channel, close-on-exec from then
// on so that no command inherits it, and the variable removed. nil
// without one.
var approvalChannel = sync.OnceValue(func() *os.File {
	v, ok := os.LookupEnv(interp.EnvApprovalFD)
	if !ok {
		return nil
	}
	os.Unsetenv(interp.EnvApprovalFD)
	if sessionEnv != nil {
		sessionEnv = dropEnv(sessionEnv, interp.EnvApprovalFD)
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "approval")
	if f == nil || !interp.IsApprovalChannel(f) {
		return nil // a number that is not the launcher's channel: left alone
	}
	syscall.CloseOnExec(fd)
	return f
})

// underLauncher reports whether this guardsh runs in an agent that guardsh
// --launch started: it holds the launcher's channel, or its mount table is
// the launcher's namespace (guardsh.RealShells, what is mounted rather
// than a variable), or the launcher's shim variable is set.
func underLauncher() bool {
	return approvalChannel() != nil || len(guardsh.RealShells()) > 0 || os.Getenv(launchEnvMarker) != ""
}

// terminalOptIn reports whether the user's own configuration file lets a
// non-interactive guardsh prompt on the terminal ([approval]
// terminal_prompt; a project file cannot set it).
func terminalOptIn() bool {
	loadedConfig.Lock()
	defer loadedConfig.Unlock()
	return loadedConfig.cfg != nil && loadedConfig.cfg.Approval.TerminalPrompt
}

// pickGate chooses who answers: channel (the launcher's, or nil), else
// nobody under a launcher, else the terminal tty opens when the session
// is interactive or the user opted in, else nobody.
func pickGate(channel *os.File, tty func() *os.File) interp.Gate {
	if channel != nil {
		return interp.NewChannelGate(channel)
	}
	if underLauncher() {
		return nil
	}
	if !sessionInteractive && !terminalOptIn() {
		return nil
	}
	if f := tty(); f != nil {
		return interp.NewTerminalGate(f)
	}
	return nil
}

// privilegedGate is the gate of the session's privileged side (the
// broker's escalations, the network proxy's asks): the same choice as the
// interpreter's, made once, on first use.
var privilegedGate = sync.OnceValue(func() interp.Gate {
	return pickGate(approvalChannel(), func() *os.File {
		g, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return nil
		}
		return g
	})
})

// sessionGate is the interpreter's gate. A confined interpreter gets the
// channel or the terminal from its privileged side (passed files) and
// opens no terminal itself.
func sessionGate() interp.Gate {
	ch := sandbox.PassedFile("approval")
	if ch == nil {
		ch = approvalChannel()
	}
	return pickGate(ch, func() *os.File {
		if f := sandbox.PassedFile("tty"); f != nil {
			return f
		}
		if sessionConfined {
			return nil
		}
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return nil
		}
		return f
	})
}
