package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// startExternal runs an external program and waits for it.
func (g *Runner) startExternal(ctx context.Context, hc interp.HandlerContext, args []string) error {
	path, err := interp.LookPathDir(hc.Dir, hc.Env, args[0])
	if err != nil {
		fmt.Fprintf(hc.Stderr, "guardsh: %s: command not found\n", args[0])
		return interp.ExitStatus(127)
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Args = args
	cmd.Env = execEnv(hc)
	cmd.Dir = hc.Dir
	cmd.Stdin = hc.Stdin
	cmd.Stdout = hc.Stdout
	cmd.Stderr = hc.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return interp.ExitStatus(uint8(128 + int(ws.Signal())))
		}
		return interp.ExitStatus(uint8(ee.ExitCode()))
	case errors.Is(err, exec.ErrWaitDelay):
		return nil
	default:
		fmt.Fprintf(hc.Stderr, "guardsh: %s: %v\n", args[0], err)
		return interp.ExitStatus(126)
	}
}

// execEnv lists the exported variables of the shell for a child process.
func execEnv(hc interp.HandlerContext) []string {
	var list []string
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			list = append(list, name+"="+vr.String())
		}
		return true
	})
	return list
}
