//go:build linux || darwin

package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// probeSpec tells the confined probe process where to try what.
type probeSpec struct {
	Inside    string `json:"inside"`     // a directory that must be writable
	Outside   string `json:"outside"`    // a directory that must not be
	GitConfig string `json:"git_config"` // a protected file inside the project
	TCP       string `json:"tcp"`        // a listener that must not be reachable
}

// runProbeChecks runs inside the confined probe process.
func runProbeChecks(spec stageSpec) []Check {
	p := spec.Probe
	if p == nil {
		return []Check{{Name: "probe", Detail: "no probe spec"}}
	}
	var out []Check
	add := func(name string, ok bool, detail string) { out = append(out, Check{name, ok, detail}) }

	err := os.WriteFile(filepath.Join(p.Inside, "probe-inside"), []byte("ok\n"), 0o644)
	add("write inside project succeeds", err == nil, errString(err))

	outside := filepath.Join(p.Outside, "probe-outside")
	err = os.WriteFile(outside, []byte("escaped\n"), 0o644)
	_, statErr := os.Lstat(outside)
	add("write outside project fails", err != nil && errors.Is(statErr, os.ErrNotExist), errString(err))

	childOut := filepath.Join(p.Outside, "probe-child")
	if _, err := os.Stat("/bin/sh"); err == nil {
		err := exec.Command("/bin/sh", "-c", `echo escaped > "$1"`, "sh", childOut).Run()
		_, statErr := os.Lstat(childOut)
		add("a child process cannot write outside either", err != nil && errors.Is(statErr, os.ErrNotExist), errString(err))
	}

	if p.GitConfig != "" { // the container level guards it from the privileged side instead
		f, err := os.OpenFile(p.GitConfig, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			f.Close()
		}
		err2 := os.Rename(p.GitConfig, p.GitConfig+".moved")
		add("write .git/config fails", err != nil && err2 != nil, errString(err)+"; rename: "+errString(err2))
	}

	if p.TCP == "" {
		add("TCP connect to the host's 127.0.0.1 fails", true, "the outer sandbox refuses TCP sockets to guardsh itself")
	} else {
		err = probeDial(p.TCP)
		add("TCP connect to the host's 127.0.0.1 fails", err != nil, errString(err))
	}

	// UDP to an address off this machine (TEST-NET-1): refused, or
	// unreachable from a private network namespace that has only lo.
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err == nil {
		err = unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrInet4{Port: 53, Addr: [4]byte{192, 0, 2, 1}})
		unix.Close(fd)
	}
	add("UDP send off the machine fails", err != nil, errString(err))

	if net := os.Getenv(EnvNet); net == "loopback" {
		// a private loopback: a listener and a client inside must talk
		add("loopback inside the sandbox works (private network namespace)", probeLoopback() == nil, errString(probeLoopback()))
	} else {
		add("network sockets off ("+strings.TrimPrefix(net, "off: ")+")", true, "")
	}

	return append(out, osProbeChecks(spec)...)
}

func errString(err error) string {
	if err == nil {
		return "succeeded"
	}
	return err.Error()
}

// Probe proves backend with the settings of c: in a confined process, a
// write inside a (temporary) project must succeed; a write outside, a
// write to .git/config, a TCP connect to a listener the probe holds open
// and a UDP send must fail; the process must hold no capabilities.
func Probe(backend string, c Config) ProbeResult {
	start := time.Now()
	res := ProbeResult{Backend: backend}
	if backend == BackendLandlock || backend == BackendContainer {
		res.ABI = LandlockABI()
	}
	fail := func(err error) ProbeResult {
		res.Err = err.Error()
		res.Duration = time.Since(start)
		return res
	}
	// The probe works in a fresh temporary tree with /tmp not writable, so
	// that its "outside" directory is outside every writable root.
	base, err := os.MkdirTemp("", "guardsh-probe-")
	if err != nil {
		return fail(err)
	}
	base = canon(base)
	defer os.RemoveAll(base)
	proj := filepath.Join(base, "project")
	out := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(proj, ".git", "hooks"), out, filepath.Join(base, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail(err)
		}
	}
	gitConfig := filepath.Join(proj, ".git", "config")
	if err := os.WriteFile(gitConfig, []byte("[core]\n"), 0o644); err != nil {
		return fail(err)
	}
	ln, lnAddr, err := probeListen()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		// An outer sandbox (Codex's seccomp filter, a container profile)
		// refuses guardsh itself a TCP socket: nothing it starts can have
		// one either, since a filter cannot be lifted by its children.
		ln, lnAddr, err = -1, "", nil
		res.OuterNoNet = true
	}
	if err != nil {
		return fail(err)
	}
	if ln >= 0 {
		defer unix.Close(ln)
	}
	pc := c
	pc.Project = proj
	pc.TmpDir = filepath.Join(base, "tmp")
	pc.SharedTmp = false
	pc.Network = false
	pc.Protected = []string{filepath.Join(proj, ".git", "hooks"), gitConfig, filepath.Join(proj, ".gitmodules")}
	pc.Writable = nil
	spec := stageSpec{Config: pc, Action: "probe", Probe: &probeSpec{Inside: proj, Outside: out, GitConfig: gitConfig, TCP: lnAddr}}
	kernelProtects := backend != BackendContainer
	if !kernelProtects {
		spec.Probe.GitConfig = ""
	}
	cmd, err := command(backend, spec, withoutStage(os.Environ()), nil)
	if err != nil {
		return fail(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Dir = proj
	if err := cmd.Run(); err != nil {
		if why := namespaceCause(backend, err); why != "" {
			return fail(errors.New(why))
		}
		return fail(fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes())))
	}
	if err := json.Unmarshal(stdout.Bytes(), &res.Checks); err != nil {
		return fail(fmt.Errorf("probe output: %v: %q %s", err, stdout.String(), stderr.String()))
	}
	// Verify from outside as well: the confined side could lie.
	_, statErr := os.Lstat(filepath.Join(out, "probe-outside"))
	if _, err := os.Lstat(filepath.Join(out, "probe-child")); err == nil {
		statErr = nil
	}
	b, _ := os.ReadFile(gitConfig)
	if !kernelProtects {
		b = []byte("[core]\n") // not the kernel's to keep at this level
	}
	_, inErr := os.Lstat(filepath.Join(proj, "probe-inside"))
	wasReached := ln >= 0 && probeReached(ln)
	res.Checks = append(res.Checks, Check{Name: "verified from the privileged side",
		OK:     errors.Is(statErr, os.ErrNotExist) && string(b) == "[core]\n" && inErr == nil && !wasReached,
		Detail: fmt.Sprintf("outside file absent=%v, .git/config intact=%v, inside file present=%v, listener reached=%v", errors.Is(statErr, os.ErrNotExist), string(b) == "[core]\n", inErr == nil, wasReached)})
	res.OK = len(res.Checks) > 1
	for _, ch := range res.Checks {
		res.OK = res.OK && ch.OK
	}
	res.Duration = time.Since(start)
	return res
}

// The probe's TCP listener and connect use system calls directly: this
// package does not import net, so that the confining stage, which runs
// from an early package's init (cmd/guardsh/internal/stagefirst), does not
// wait for net's initialisation and what comes before it.

// probeListen listens on a free TCP port of 127.0.0.1 and returns the
// socket and its address.
func probeListen() (int, string, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, "", err
	}
	unix.CloseOnExec(fd)
	err = unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err == nil {
		err = unix.Listen(fd, 8)
	}
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(fd)
	}
	in4, ok := sa.(*unix.SockaddrInet4)
	if err == nil && !ok {
		err = fmt.Errorf("listener address %v", sa)
	}
	if err != nil {
		unix.Close(fd)
		return -1, "", err
	}
	return fd, "127.0.0.1:" + strconv.Itoa(in4.Port), nil
}

// probeReached reports whether a connection reached the listener (one
// waits in its queue; the probe has ended by then).
func probeReached(fd int) bool {
	if err := unix.SetNonblock(fd, true); err != nil {
		return true // cannot tell: count it as reached (fails the probe)
	}
	nfd, _, err := unix.Accept(fd)
	if err != nil {
		return false
	}
	unix.Close(nfd)
	return true
}

// probeLoopback listens on 127.0.0.1 and connects to itself.
func probeLoopback() error {
	fd, addr, err := probeListen()
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return probeDial(addr)
}

// probeDial connects to addr ("a.b.c.d:port") over TCP, giving up after a
// second.
func probeDial(addr string) error {
	host, portText, _ := strings.Cut(addr, ":")
	port, err := strconv.Atoi(portText)
	var ip [4]byte
	parts := strings.Split(host, ".")
	if err != nil || len(parts) != 4 {
		return fmt.Errorf("probe address %q", addr)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 {
			return fmt.Errorf("probe address %q", addr)
		}
		ip[i] = byte(n)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tv := unix.NsecToTimeval(time.Second.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	return unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: ip})
}

// namespaceCause says in words a user can act on why a backend that needs
// namespaces could not start its process, "" when err is not that.
func namespaceCause(backend string, err error) string {
	if backend != BackendLandlock {
		return ""
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "no user namespace can be made here (user.max_user_namespaces is 0 or used up, as in most containers) and guardsh has no CAP_SYS_ADMIN for a mount namespace: the full level is not available; guardsh tries the container level instead (docs/containers.md says how to reach the full level)"
	case errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES):
		return "namespaces are refused here (a seccomp profile or an AppArmor/SELinux policy forbids unshare and user namespaces, and guardsh has no CAP_SYS_ADMIN): the full level is not available; guardsh tries the container level instead (docs/containers.md)"
	}
	return ""
}
