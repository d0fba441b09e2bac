package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestCLI runs the command-line scripts in testdata/cli against the built
// guardsh binary (on PATH as guardsh, and through bash and sh shims):
// bash's option parsing, $0/$1, stdin scripts, script files, login shells,
// exit statuses and error messages.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	shims := t.TempDir()
	for _, name := range []string{"bash", "sh"} {
		if err := os.Symlink(bin, filepath.Join(shims, name)); err != nil {
			t.Fatal(err)
		}
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/cli",
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("HOME", home)
			// The probe cache in the test process's own cache directory
			// (testenv.Main), not in a fallback of the machine's (/run).
			e.Setenv("XDG_CACHE_HOME", os.Getenv("XDG_CACHE_HOME"))
			e.Setenv("PATH", filepath.Dir(bin)+string(filepath.ListSeparator)+os.Getenv("PATH"))
			e.Setenv("SHIMS", shims)
			e.Setenv("GUARDSH_MODE", "bypass")
			e.Setenv("LANG", "C.UTF-8")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
	})
}

// cmdExits is "exits N COMMAND [ARGS...]": run the command like exec and
// require exit status N.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: exits STATUS COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if (got == want) == neg {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
