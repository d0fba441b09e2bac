//go:build darwin

package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Backends lists the backends of this platform in the order guardsh tries
// them.
func Backends() []string { return []string{BackendSeatbelt} }

// LandlockABI is 0: there is no Landlock on macOS.
func LandlockABI() int { return 0 }

// SeccompRules is empty: there is no seccomp on macOS.
func SeccompRules(Config) []string { return nil }

// UnixSocketsAllowed says whether confined processes may connect to unix
// sockets outside the writable roots.
func UnixSocketsAllowed(c Config, _ bool, _ int) bool { return c.Unix || c.Network }

// Stage runs the probe or execs an approved command in a process started
// by the privileged side under sandbox-exec (which confined it already).
func Stage() {
	v, ok := os.LookupEnv(envStage)
	if !ok {
		return
	}
	os.Unsetenv(envStage)
	var spec stageSpec
	b, err := base64.StdEncoding.DecodeString(v)
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: sandbox: bad stage request: %v\n", err)
		os.Exit(126)
	}
	switch spec.Action {
	case "probe":
		json.NewEncoder(os.Stdout).Encode(runProbeChecks(spec))
		os.Exit(0)
	case "exec":
		if len(spec.Argv) > 0 {
			err := syscall.Exec(spec.Argv[0], spec.Argv, os.Environ())
			fmt.Fprintf(os.Stderr, "guardsh: %s: %v\n", spec.Argv[0], err)
		}
		os.Exit(126)
	}
	os.Exit(126)
}

func osProbeChecks(stageSpec) []Check { return nil }

// Inherited reports whether this process is the confined interpreter. On
// macOS the marker cannot be verified against the kernel (see README
// "Limits").
func Inherited() (string, bool, error) {
	desc, ok := os.LookupEnv(EnvRun)
	return desc, ok, nil
}

func command(backend string, spec stageSpec, env []string, extra []*os.File) (*exec.Cmd, error) {
	if backend != BackendSeatbelt {
		return nil, fmt.Errorf("%s: %w", backend, ErrUnavailable)
	}
	sb, err := exec.LookPath("sandbox-exec")
	if err != nil {
		return nil, fmt.Errorf("sandbox-exec: %w", ErrUnavailable)
	}
	exe, err := executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sb, "-p", SeatbeltProfile(spec.Config), exe)
	cmd.Env = append(env, encodeSpec(spec))
	cmd.ExtraFiles = extra
	return cmd, nil
}

// Start starts the confined interpreter under sandbox-exec.
func Start(backend string, c Config, desc string, env []string, broker *os.File, files map[string]*os.File) (*Session, error) {
	extra, env := passFiles(env, broker, files)
	cmd, err := command(backend, stageSpec{Config: c, Action: "run", Desc: desc}, env, extra)
	if err != nil {
		return nil, err
	}
	// No stage process: sandbox-exec confines, guardsh runs as the
	// interpreter directly.
	cmd.Env = append(env, EnvRun+"="+desc)
	cmd.Args = append(cmd.Args, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Session{Backend: backend, Desc: desc, Cmd: cmd}, nil
}

// ExecCommand builds the process that runs argv confined by c (an approved
// escalation).
func ExecCommand(backend string, c Config, argv, env []string, dir string) (*exec.Cmd, error) {
	return ExecCommandFiles(backend, c, argv, env, dir, nil)
}

// ExecCommandFiles is ExecCommand with descriptors passed on purpose: keep
// become fds 3, 4, ... of the confined program.
func ExecCommandFiles(backend string, c Config, argv, env []string, dir string, keep []*os.File) (*exec.Cmd, error) {
	if !filepath.IsAbs(argv[0]) {
		return nil, fmt.Errorf("%s: not an absolute path", argv[0])
	}
	cmd, err := command(backend, stageSpec{Config: c, Action: "exec", Argv: argv, KeepFDs: len(keep)}, withoutStage(env), keep)
	if err != nil {
		return nil, err
	}
	cmd.Dir = dir
	return cmd, nil
}

// Harden does nothing on macOS (other processes' task ports are denied by
// the profile).
func Harden() error { return nil }
