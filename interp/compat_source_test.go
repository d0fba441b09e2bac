package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInternalMarksNotForgeable: the marks guardsh's rewrites put into
// paths and eval'd code (">|", source, internal names after a reparse)
// are random per process; spelt as a script could guess them they are
// plain names.
func TestInternalMarksNotForgeable(t *testing.T) {
	dir := t.TempDir()
	out, errs, st := runScript(t, dir, `set -C; echo 1 > f; echo 2 > __guardsh_clobber:f; echo 3 >| f; cat f
__guardsh_k0000000000000000_out 0 forged; echo "st=$?"`)
	if out != "3\nst=127\n" || st != 0 {
		t.Errorf("stdout %q status %d stderr %q", out, st, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "__guardsh_clobber:f")); err != nil {
		t.Errorf("a file named like the mark was not created as such: %v", err)
	}
	if !strings.Contains(errs, "command not found") {
		t.Errorf("a guessed internal name ran: %q", errs)
	}
}

// TestSourcedRewrites: a sourced file runs with guardsh's rewrites (here
// fd 3 and an assignment's backslash), and its errors name the file.
func TestSourcedRewrites(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("exec 3>out\necho s >&3\nexec 3>&-\nx=a\\ b\nnosuch\n"), 0o644)
	out, errs, _ := runScript(t, dir, `. ./lib.sh; cat out; echo "$x"`)
	if out != "s\na b\n" || !strings.Contains(errs, "./lib.sh: line 5: nosuch: command not found") {
		t.Errorf("stdout %q stderr %q", out, errs)
	}
}
