package agentloop

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestRemoteShell: the session protocol keeps cwd and variables, streams
// both outputs, stops a cancelled command, and survives a dead session.
func TestRemoteShell(t *testing.T) {
	p := newProject(t, "gofix", false)
	os.MkdirAll(filepath.Join(p.root, "sub"), 0o755)
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- ServeShell(reqR, respW, p.shell(t, guardsh.ModeAuto), "test"); respW.Close() }()
	sh, err := NewRemoteShell(reqW, respR, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Sandbox != "test" || sh.Cwd() != p.root {
		t.Fatalf("hello: %q %q", sh.Sandbox, sh.Cwd())
	}
	ctx := context.Background()
	var o, e bytes.Buffer
	if st := sh.RunCommand(ctx, "cd sub && export X=42; echo err >&2; exit 3", &o, &e); st != 3 || e.String() != "err\n" {
		t.Errorf("status %d, stderr %q", st, e.String())
	}
	o.Reset()
	if st := sh.RunCommand(ctx, "pwd; echo $X", &o, &e); st != 0 || o.String() != filepath.Join(p.root, "sub")+"\n42\n" {
		t.Errorf("state lost: %d %q", st, o.String())
	}
	if sh.Cwd() != filepath.Join(p.root, "sub") {
		t.Errorf("cwd %q", sh.Cwd())
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	start := time.Now()
	st := sh.RunCommand(cctx, "sleep 121.2718"+runTag, &o, &e)
	cancel()
	// Stopped at the limit, not at the end of the sleep: a bound far from
	// both, so that the machine's load does not count.
	if st != 124 || time.Since(start) > time.Minute || len(pidsWith("121.2718"+runTag)) > 0 {
		t.Errorf("timeout: status %d after %v, pids %v", st, time.Since(start), pidsWith("121.2718"+runTag))
	}
	o.Reset()
	if st := sh.RunCommand(ctx, "echo still here", &o, &e); st != 0 || o.String() != "still here\n" {
		t.Errorf("after a cancel: %d %q", st, o.String())
	}
	reqW.Close()
	<-served
	e.Reset()
	if st := sh.RunCommand(ctx, "echo x", &o, &e); st != 126 || !strings.Contains(e.String(), "shell session") {
		t.Errorf("dead session: %d %q", st, e.String())
	}
}
