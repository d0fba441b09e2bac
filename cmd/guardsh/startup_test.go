package main

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// initTrace runs the guardsh binary with GODEBUG=inittrace=1 and returns
// the packages in the order they were initialised, with the bytes each
// one's init allocated.
func initTrace(t *testing.T, args ...string) (order []string, bytes map[string]int) {
	t.Helper()
	cmd := exec.Command(guardshTestBinary(t), args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("guardsh %v: %v\n%s", args, err, out)
	}
	bytes = map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		order = append(order, f[1])
		bytes[f[1]], _ = strconv.Atoi(f[7])
	}
	if len(order) == 0 {
		t.Fatalf("no init trace in:\n%s", out)
	}
	return order, bytes
}

// TestStartupInitIsLazy: guardsh's own packages build nothing big at init
// (every start pays it, three times for a sandboxed -c): the
// regexps for error messages and the command handler table are made on
// first use. A package-level regexp.MustCompile or table costs tens of KB
// here.
func TestStartupInitIsLazy(t *testing.T) {
	_, bytes := initTrace(t, "--version")
	limits := map[string]int{
		"github.com/guardsh/guardsh/guardsh": 64 << 10, // was 151 KB with the tables and regexps built at init; 46 KB at 10:10 (strict_profile.go's defaultProfile is parsed at init)
		"github.com/guardsh/guardsh/interp":  24 << 10, // was 100 KB with nine regexps
		"github.com/guardsh/guardsh/sandbox": 16 << 10,
		"main":                               16 << 10,
	}
	for pkg, max := range limits {
		if b := bytes[pkg]; b > max {
			t.Errorf("init of %s allocates %d bytes (limit %d): build it on first use (sync.OnceValue) instead of at init", pkg, b, max)
		}
	}
}

// TestStartupStageRunsFirst: the confining stage (package stagefirst's
// init) runs before the policy's, the interpreter's, mvdan's, net's and the
// HTTP client's packages initialise, whose work the stage's exec would
// throw away (the sandbox package must not import them).
func TestStartupStageRunsFirst(t *testing.T) {
	order, _ := initTrace(t, "--version")
	stage := slices.Index(order, "github.com/guardsh/guardsh/cmd/guardsh/internal/stagefirst")
	if stage < 0 {
		t.Fatalf("stagefirst has no init in the trace: %v", order)
	}
	for _, later := range []string{"github.com/guardsh/guardsh/guardsh", "github.com/guardsh/guardsh/interp", "mvdan.cc/sh/v3/expand", "net", "net/http", "main"} {
		if i := slices.Index(order, later); i >= 0 && i < stage {
			t.Errorf("%s initialises before the confining stage (order: %v)", later, order)
		}
	}
}
