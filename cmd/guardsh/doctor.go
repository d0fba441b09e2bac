package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/guardsh/guardsh/internal/version"
	"github.com/guardsh/guardsh/sandbox"
)

func init() { registerMode("--doctor", runDoctor) }

// runDoctor is `guardsh --doctor`: which sandbox backend this machine
// gives guardsh, each probe's result, what is protected and what is not,
// then how each coding agent found on PATH would reach guardsh. It exits 0
// only when a sandbox backend is verified (and no agent check failed).
func runDoctor(args []string) int {
	return doctor(os.Stdout)
}

func doctor(w io.Writer) int {
	fmt.Fprintf(w, "guardsh %s (%s/%s)\n", version.Of(Version), runtime.GOOS, runtime.GOARCH)
	ok := doctorSandbox(w)
	doctorEnv(w) // scrubenv.go
	fmt.Fprintln(w)
	agentsOK := doctorAgents(w)
	if !ok {
		return 1
	}
	if !agentsOK {
		return 1
	}
	return 0
}

func doctorSandbox(w io.Writer) bool {
	fmt.Fprintln(w, "sandbox:")
	if desc, ok, err := sandbox.Inherited(); err != nil {
		fmt.Fprintf(w, "  error: %v\n", err)
		return false
	} else if ok && (stacksOnOuter(desc) || sandbox.InNetworkSandbox()) {
		fmt.Fprintf(w, "  inside a guardsh sandbox (%s): guardsh confines its commands again, as follows\n", desc)
		os.Unsetenv(sandbox.EnvRun)
	} else if ok {
		fmt.Fprintf(w, "  running inside a guardsh sandbox already: %s\n", desc)
		return true
	}
	if runtime.GOOS == "linux" {
		fmt.Fprintf(w, "  landlock ABI: %d (guardsh needs >= 2; TCP rules from 4, scopes from 6, unix-socket paths from 9, UDP from 10)\n", sandbox.LandlockABI())
	}
	fmt.Fprintf(w, "  backends, in order: %s\n", strings.Join(sandbox.Backends(), ", "))
	for _, v := range []string{"GUARDSH_SANDBOX", "GUARDSH_SANDBOX_DISABLE", "GUARDSH_SANDBOX_WRITE", "GUARDSH_SANDBOX_TMP", "GUARDSH_SANDBOX_UNIX", "GUARDSH_PROJECT"} {
		if x, set := os.LookupEnv(v); set {
			fmt.Fprintf(w, "  %s=%s\n", v, x)
		}
	}
	if desc, off := sandboxOff(); off {
		fmt.Fprintf(w, "  sandbox is %s: commands would run without OS confinement\n", desc)
	}
	c, err := sessionConfig()
	if err != nil {
		fmt.Fprintf(w, "  error: %v\n", err)
		return false
	}
	defer os.RemoveAll(c.TmpDir)
	chosen, ok, results := probeAll(c, true)
	if len(results) == 0 {
		fmt.Fprintln(w, "  no backend enabled (GUARDSH_SANDBOX / GUARDSH_SANDBOX_DISABLE)")
	}
	for _, r := range results {
		verdict := "FAILED"
		if r.OK {
			verdict = "verified"
		}
		fmt.Fprintf(w, "  probe %s: %s (%s)\n", r.Backend, verdict, r.Duration.Round(1e5))
		if r.Err != "" {
			fmt.Fprintf(w, "    error: %s\n", r.Err)
		}
		for _, ch := range r.Checks {
			mark := "ok  "
			if !ch.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "    %s %s: %s\n", mark, ch.Name, ch.Detail)
		}
	}
	if !ok {
		fmt.Fprintln(w, "  result: no backend verified: guardsh refuses to run commands unless started with --no-sandbox or GUARDSH_SANDBOX=off (recorded in every audit record)")
		return false
	}
	fmt.Fprintf(w, "  result: %s\n", chosen.Describe())
	fmt.Fprintln(w, "protected (enforced by the kernel for everything guardsh runs):")
	if c.Project != "" {
		fmt.Fprintf(w, "  project: %s\n", c.Project)
	} else {
		fmt.Fprintln(w, "  project: none (started in /, your home directory or an ancestor of it, which are never writable; cd into a project or set GUARDSH_PROJECT)")
	}
	fmt.Fprintf(w, "  writable: %s\n", strings.Join(c.WritableRoots(), ", "))
	fmt.Fprintf(w, "  process limit per session: %s\n", sandbox.DescribeProcLimit())
	if prot := c.ProtectedInside(); len(prot) > 0 && chosen.Backend == sandbox.BackendContainer {
		fmt.Fprintf(w, "  guarded inside them (container level: not read-only; guardsh checks and restores them before an approved command runs and when the session ends): %s\n", strings.Join(prot, ", "))
	} else if len(prot) > 0 {
		fmt.Fprintf(w, "  read-only inside them: %s\n", strings.Join(prot, ", "))
	}
	fmt.Fprintln(w, "  everything else: read-only; no capabilities; no_new_privs")
	for _, s := range sandbox.SeccompRules(c) {
		fmt.Fprintf(w, "  seccomp: %s\n", s)
	}
	abi := sandbox.LandlockABI()
	landlockOn := chosen.Backend == sandbox.BackendLandlock
	if sandbox.UnixSocketsAllowed(c, landlockOn, abi) {
		fmt.Fprintln(w, "  AF_UNIX sockets: allowed; connect(2) limited to sockets inside the writable roots")
	} else if runtime.GOOS == "linux" {
		fmt.Fprintln(w, "  AF_UNIX sockets: refused (this kernel cannot limit connect(2) by path; GUARDSH_SANDBOX_UNIX=1 allows them)")
	}
	if runtime.GOOS == "linux" && (landlockOn && abi >= 6 || chosen.Backend == sandbox.BackendBwrap) {
		fmt.Fprintln(w, "  signals and abstract unix sockets: only within the sandbox")
	}
	fmt.Fprintln(w, "not protected:")
	fmt.Fprintln(w, "  reads: confined processes can read every file the user can (the rules' deny-read list covers known commands only)")
	fmt.Fprintln(w, "  hard links to outside files that already exist inside a writable root can be written through")
	fmt.Fprintln(w, "  .gitmodules and rc files that do not exist when the session starts can be created")
	if landlockOn && abi < 4 {
		fmt.Fprintln(w, "  Landlock TCP rules missing (ABI < 4); seccomp still refuses network sockets")
	}
	if landlockOn && abi < 6 {
		fmt.Fprintln(w, "  signals to processes outside the sandbox (ABI < 6)")
	}
	if runtime.GOOS == "darwin" {
		fmt.Fprintln(w, "  macOS: the Seatbelt profile is generated and unit-tested but not tested on a Mac by this project")
	}
	return true
}
