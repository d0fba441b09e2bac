//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Stage()
	if addr := os.Getenv("GUARDSH_TEST_DIAL"); addr != "" {
		// Helper command for the escalation tests: connect and say hello.
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			os.Exit(3)
		}
		fmt.Fprintln(c, "hello")
		c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (CI runs as root)")
	}
}

func TestProbeBackends(t *testing.T) {
	needRoot(t)
	for _, b := range []string{BackendLandlock, BackendBwrap} {
		t.Run(b, func(t *testing.T) {
			if b == BackendLandlock && LandlockABI() < minLandlockABI {
				t.Skip("no Landlock")
			}
			if _, err := exec.LookPath("bwrap"); b == BackendBwrap && err != nil {
				t.Skip("no bwrap")
			}
			c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
			r := Probe(b, c)
			for _, ch := range r.Checks {
				t.Logf("%v %s: %s", ch.OK, ch.Name, ch.Detail)
			}
			if !r.OK {
				t.Fatalf("probe %s failed: %s", b, r.Err)
			}
		})
	}
}
