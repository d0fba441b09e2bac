package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// forgedInherited is the helper process of TestInheritedForged: under
// no_new_privs and no capabilities (setpriv), it installs a seccomp
// filter that is not guardsh's (allow everything, as a container
// runtime's default profile mostly does) and asks Inherited.
func forgedInherited() {
	if os.Getenv("GUARDSH_TEST_FORGE") != "1" {
		return
	}
	if err := loadSeccomp([]bpf.RawInstruction{{Op: 0x06, K: retAllow}}); err != nil {
		os.Stdout.WriteString("seccomp failed: " + err.Error())
		os.Exit(2)
	}
	desc, ok, err := Inherited()
	if ok {
		os.Stdout.WriteString("CONFINED " + desc)
	} else {
		os.Stdout.WriteString("refused: " + strings.TrimSpace(func() string {
			if err != nil {
				return err.Error()
			}
			return ""
		}()))
	}
	os.Exit(0)
}

// TestInheritedForged: GUARDSH_SANDBOX_RUN=container:... set by hand in a
// process that merely runs under another seccomp filter (no_new_privs and
// no capabilities, as in a Kubernetes restricted pod) must not pass for a
// confined interpreter: there Landlock was never applied.
func TestInheritedForged(t *testing.T) {
	needRoot(t)
	sp, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv")
	}
	exe, _ := os.Executable()
	cmd := exec.Command(sp, "--no-new-privs", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GUARDSH_TEST_FORGE=1", EnvRun+"=container:landlock+seccomp (abi 6)")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v %s", err, out)
	}
	if strings.HasPrefix(string(out), "CONFINED") {
		t.Errorf("a process under a foreign seccomp filter with %s set by hand passes for a confined interpreter: %s", EnvRun, out)
	}
}

// loadSeccomp installs the filter on every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC). no_new_privs must already be set.
func loadSeccomp(raw []bpf.RawInstruction) error {
	return loadSeccompFlags(raw, unix.SECCOMP_FILTER_FLAG_TSYNC)
}
