package interp

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// TestKillOwnJobs: kill of a process this shell started and still runs
// ($! of a background job, a subshell's virtual PID) is job control;
// kill of any other PID asks (refused here: nobody to ask).
func TestKillOwnJobs(t *testing.T) {
	tests := []struct {
		src, out string
		refused  bool
	}{
		{"sleep 30 & kill $!; echo k=$?", "k=0\n", false},
		{"(sleep 30) & kill $!; echo k=$?", "k=0\n", false},
		{"sleep 30 & p=$!; kill -TERM $p; wait $p; echo w=$?", "w=143\n", false},
		{"sleep 0 & p=$!; wait; kill $p; echo k=$?", "k=126\n", true},
		{"kill 1234567; echo k=$?", "k=126\n", true},
	}
	for _, tt := range tests {
		// syncBuffer: a background job's output is copied into out by
		// os/exec's goroutine while the script's builtins write to it too
		var out, errb syncBuffer
		dir := t.TempDir()
		r, err := New(Config{
			Policy: guardsh.NewPolicy(guardsh.ModeAuto), Project: dir, Dir: dir,
			Env:   []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Sandbox: "off (test)",
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r.Run(ctx, strings.NewReader(tt.src), "t")
		cancel()
		refused := strings.Contains(errb.String(), "[proc.kill]")
		if out.String() != tt.out || refused != tt.refused {
			t.Errorf("%q: stdout %q refused %v, want %q refused %v (stderr %q)", tt.src, out.String(), refused, tt.out, tt.refused, errb.String())
		}
	}
}
