//go:build linux || darwin

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestProbeListener: the probe's raw-socket listener tells a connection
// that reached it (an unconfined connect: the probe must fail then) from
// none, and the connect reports a refused port as an error.
func TestProbeListener(t *testing.T) {
	for _, tt := range []struct {
		name    string
		dial    bool
		reached bool
	}{
		{"a connect reaches it", true, true},
		{"nothing reached it", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fd, addr, err := probeListen()
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			if tt.dial {
				if err := probeDial(addr); err != nil {
					t.Fatalf("unconfined connect to %s: %v", addr, err)
				}
			}
			if got := probeReached(fd); got != tt.reached {
				t.Errorf("reached = %v, want %v", got, tt.reached)
			}
		})
	}
	// A closed port: the connect fails.
	fd, addr, err := probeListen()
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	if err := probeDial(addr); err == nil {
		t.Errorf("connect to the closed port %s succeeded", addr)
	}
	if err := probeDial("not-an-address"); err == nil {
		t.Error("a malformed address did not fail")
	}
}
