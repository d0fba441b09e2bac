package bench

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunScript keeps bench/run valid: it parses, and --help prints its
// usage without building or measuring anything.
func TestRunScript(t *testing.T) {
	if out, err := exec.Command("bash", "-n", "run").CombinedOutput(); err != nil {
		t.Fatalf("bash -n bench/run: %v\n%s", err, out)
	}
	out, err := exec.Command("bash", "run", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--quick") {
		t.Fatalf("bench/run --help: %v\n%s", err, out)
	}
	if out, err := exec.Command("bash", "run", "--no-such-option").CombinedOutput(); err == nil {
		t.Fatalf("bench/run accepted an unknown option:\n%s", out)
	}
}
