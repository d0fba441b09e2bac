//go:build linux

package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// loopbackPy listens on 127.0.0.1 and talks to itself, then tries the
// host's listener (argv[1]): "pair ok" or the pair's error, then "host
// reached" or the connect's error.
const loopbackPy = `import socket, sys
try:
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen()
    c = socket.create_connection(srv.getsockname(), 2); a, _ = srv.accept(); c.send(b"hi")
    print("pair ok" if a.recv(2) == b"hi" else "pair broken")
except OSError as e:
    print("pair:", e.__class__.__name__, e.errno)
try:
    h, p = sys.argv[1].rsplit(":", 1)
    socket.create_connection((h, int(p)), 2); print("host reached")
except OSError as e:
    print("host:", e.__class__.__name__)
`

// TestSandboxLoopback: inside the sandbox a listener and a client on
// 127.0.0.1 talk (a private network namespace with lo up), while the
// host's own 127.0.0.1 listener is not reachable. Without a namespace
// (GUARDSH_SANDBOX_NETNS=0) sockets stay off: EPERM, and guardsh says why
// in one line.
func TestSandboxLoopback(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 needed for the socket test")
	}
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			if err := os.WriteFile(filepath.Join(f.project, "lo.py"), []byte(loopbackPy), 0o644); err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var hits atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					hits.Add(1)
					c.Close()
				}
			}()
			out, errOut, code := f.run(t, backend, "python3 lo.py "+ln.Addr().String())
			if code != 0 || !strings.Contains(out, "pair ok") || !strings.Contains(out, "host: ConnectionRefusedError") {
				t.Errorf("private loopback: status %d, stdout %q, stderr %q; want the pair to talk and the host refused", code, out, errOut)
			}
			out, errOut, code = f.run(t, backend, "python3 lo.py "+ln.Addr().String(), "GUARDSH_SANDBOX_NETNS=0")
			if !strings.Contains(out, "pair: PermissionError 1") || !strings.Contains(out, "host: PermissionError") {
				t.Errorf("network off: stdout %q; want EPERM for both", out)
			}
			if code != 0 || strings.Count(errOut, "guardsh: note: network sockets are off in this sandbox (turned off by GUARDSH_SANDBOX_NETNS=0)") != 0 {
				// lo.py catches its errors and exits 0: no note then
				t.Errorf("network off, program succeeded: status %d, stderr %q", code, errOut)
			}
			_, errOut, _ = f.run(t, backend, "python3 -c 'import socket; socket.socket()'", "GUARDSH_SANDBOX_NETNS=0")
			if n := strings.Count(errOut, "guardsh: note: network sockets are off in this sandbox (turned off by GUARDSH_SANDBOX_NETNS=0)"); n != 1 {
				t.Errorf("network off, program failed: want the note once, stderr %q", errOut)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the host's listener was reached %d times", n)
			}
		})
	}
}
