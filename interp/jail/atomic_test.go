package jail

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The helper processes: the test binary re-executed with GUARDSH_JAIL_HELPER.
func TestMain(m *testing.M) {
	switch os.Getenv("GUARDSH_JAIL_HELPER") {
	case "":
		os.Exit(m.Run())
	case "fifo":
		os.Exit(helperFIFO(os.Getenv("GUARDSH_JAIL_DIR")))
	case "writer":
		helperWriter(os.Getenv("GUARDSH_JAIL_DIR"))
	}
}

func helperFIFO(dir string) int {
	j, err := New(dir)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	res, _ := j.Resolve(dir, "fifo")
	// what the agent's read_file and write_file do (agentloop/files.go)
	_, rerr := j.Open(res, os.O_RDONLY, 0, Options{RegularOnly: true})
	werr := j.WriteAtomic(res, []byte("x"), 0o644)
	// what a redirection of the shell does
	_, oerr := j.Open(res, os.O_WRONLY, 0, Options{})
	for _, err := range []error{rerr, werr, oerr} {
		if err == nil {
			fmt.Println("FIFO accepted")
			return 1
		}
		fmt.Println(err)
	}
	return 0
}

func helperWriter(dir string) {
	j, err := New(dir)
	if err != nil {
		os.Exit(2)
	}
	a := bytes.Repeat([]byte("a"), 1<<20)
	b := bytes.Repeat([]byte("b"), 1<<20)
	res, err := j.Resolve(dir, "f")
	if err != nil {
		os.Exit(2)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		if err := j.WriteAtomic(res, c, 0o644); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
	}
}

func helper(t *testing.T, ctx context.Context, kind, dir string) *exec.Cmd {
	exe, err := os.Executable()
	must(t, err)
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GUARDSH_JAIL_HELPER="+kind, "GUARDSH_JAIL_DIR="+dir)
	return cmd
}

// TestFIFONoHang: the jail's primitives on a FIFO fail at once instead of
// waiting for a writer or reader; run in a subprocess so a hang fails the
// test instead of stalling it.
func TestFIFONoHang(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	must(t, syscall.Mkfifo(dir+"/fifo", 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := helper(t, ctx, "fifo", dir).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("FIFO hung the helper: %s", out)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "FIFO") {
		t.Errorf("messages do not name the FIFO:\n%s", out)
	}
}

// TestAtomicWriteKilled kills a process that rewrites a 1 MiB file over and
// over with WriteAtomic (the agent's write_file) at random moments: the file is always wholly the old or the new
// content.
func TestAtomicWriteKilled(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	a := bytes.Repeat([]byte("a"), 1<<20)
	b := bytes.Repeat([]byte("b"), 1<<20)
	must(t, os.WriteFile(dir+"/f", a, 0o644))
	rounds, sawB := 25, 0
	if testing.Short() {
		rounds = 5
	}
	// On a slow machine (-race, a loaded CI runner) a 40 ms window may
	// never see a write complete: after the planned rounds, go on with
	// longer windows until one does, so the test always proves something.
	for i := 0; i < rounds || sawB == 0 && i < rounds+40; i++ {
		cmd := helper(t, context.Background(), "writer", dir)
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		buf := make([]byte, 6)
		stdout.Read(buf) // "ready"
		window := 40
		if i >= rounds {
			window = 40 + 20*(i-rounds+1)
		}
		time.Sleep(time.Duration(rand.Intn(window)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(dir + "/f")
		must(t, err)
		switch {
		case bytes.Equal(got, a):
		case bytes.Equal(got, b):
			sawB++
		default:
			t.Fatalf("round %d: torn file: %d bytes, starts %q", i, len(got), got[:min(len(got), 8)])
		}
	}
	if sawB == 0 {
		t.Errorf("the writer never completed a write before being killed: the test proves nothing")
	}
	ents, _ := os.ReadDir(dir)
	t.Logf("%d planned rounds, %d ended with the second content; %d directory entries left (stray temp files are allowed)", rounds, sawB, len(ents))
}
