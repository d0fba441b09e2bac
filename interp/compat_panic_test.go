package interp

import (
	"strings"
	"testing"
)

// TestNoPanic: inputs that made mvdan's interpreter or guardsh's builtins
// panic. A panic in a pipeline's goroutine would end the process with a
// Go stack trace (no recover reaches it), so the shapes are rewritten
// before they run; one on the main goroutine that remains becomes a
// bash-style error with status 2 (RunFile).
func TestNoPanic(t *testing.T) {
	tests := []struct {
		name, src       string
		stdout, errPart string
		status          int
	}{
		{"umask empty", "umask ''; echo st=$?", "st=1\n", "umask: `\x00': invalid symbolic mode operator", 0},
		{"arith assign to element of empty array", `a=(); (( a[2]=5 )); echo "${a[@]}" ${#a[@]}`, "5 1\n", "", 0},
		{"arith assign list", `i=0; (( b[i]=7, b[i+1]=8 )); (( b[1]+=2 )); echo "${b[@]}"`, "7 10\n", "", 0},
		{"arith assign status", `a=(); (( a[0]=0 )); echo st=$?`, "st=1\n", "", 0},
		{"arith element assign in a pipeline", `echo $(( c[1]=3 )) | cat; echo after`, "after\n", "assignment to an array element inside an expression is not supported", 0},
		{"arith element increment", `(( x[1]++ ))`, "", "increment of an array element is not supported", 1},
		{"nameref to an empty name", `declare -n n=""; echo $n`, "", "unsupported by the interpreter", 2},
		// FuzzRunner: a parse error after a complete statement, with a
		// byte that is not UTF-8 (bash: two "command not found")
		{"parse error prefix with invalid UTF-8", "\"\"&0\xa9", "", "syntax error", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, st := runScript(t, t.TempDir(), tc.src)
			if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine ") {
				t.Fatalf("a Go panic:\n%s", errs)
			}
			if out != tc.stdout || st != tc.status || !strings.Contains(errs, tc.errPart) {
				t.Errorf("stdout %q status %d stderr %q; want %q, %d, stderr with %q", out, st, errs, tc.stdout, tc.status, tc.errPart)
			}
		})
	}
}
