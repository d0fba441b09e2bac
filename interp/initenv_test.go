package interp

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestClearInitialEnviron: a process started with a secret blanks it in
// its initial environment: /proc/self/environ and /proc/<pid>/environ seen
// by a child no longer hold it, everything else is where it was, and the
// process itself still reads it with os.Getenv.
func TestClearInitialEnviron(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/environ is Linux's")
	}
	if os.Getenv("GUARDSH_TEST_INITENV") == "child" {
		n, err := ClearInitialEnviron(func(name, _ string) bool { return strings.HasSuffix(name, "_TOKEN") })
		self, _ := os.ReadFile("/proc/self/environ")
		child, _ := exec.Command("sh", "-c", `cat /proc/$PPID/environ`).Output()
		os.Stdout.WriteString(strings.Join([]string{
			"n=" + string(rune('0'+n)), errString(err), "getenv=" + os.Getenv("A_TOKEN"),
			"self=" + strings.ReplaceAll(string(self), "\x00", "|"),
			"child=" + strings.ReplaceAll(string(child), "\x00", "|"),
		}, "\n") + "\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClearInitialEnviron$")
	cmd.Env = []string{"GUARDSH_TEST_INITENV=child", "A_TOKEN=SEKRIT1", "KEEP=k1", "B_TOKEN=SEKRIT2", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s := string(out)
	for _, want := range []string{"n=2\n", "err=nil\n", "getenv=SEKRIT1\n", "self=GUARDSH_TEST_INITENV=child|", "|KEEP=k1|", "child=GUARDSH_TEST_INITENV=child|"} {
		if !strings.Contains(s, want) {
			t.Errorf("want %q in:\n%s", want, s)
		}
	}
	if strings.Count(s, "SEKRIT") != 1 { // getenv's
		t.Errorf("a blanked value is still readable:\n%s", s)
	}
}

func errString(err error) string {
	if err == nil {
		return "err=nil"
	}
	return "err=" + err.Error()
}

// BenchmarkClearInitialEnviron is the start-up cost of looking through the
// initial environment (nothing to blank: the writes are one pwrite each).
func BenchmarkClearInitialEnviron(b *testing.B) {
	for b.Loop() {
		if _, err := ClearInitialEnviron(func(name, _ string) bool { return name == "NO_SUCH_VARIABLE_X" }); err != nil {
			b.Fatal(err)
		}
	}
}
