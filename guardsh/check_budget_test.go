package guardsh

import (
	"strings"
	"testing"
	"time"
)

// budgetCases are inputs that exceed the checker's budget, each with a
// denied command the checker must not let through by giving up (bash runs
// line 1 before it reads the rest).
var budgetCases = []struct{ name, src string }{
	{"nested $( after rm", "rm -rf ~\n" + strings.Repeat("$(", 12000) + strings.Repeat(")", 12000)},
	{"unclosed $( after rm", "rm -rf ~\n" + strings.Repeat("$(", 12000)},
	{"500,001 statements then rm", strings.Repeat(":\n", 500001) + "rm -rf ~"},
	{"rm then 500,001 statements", "rm -rf ~\n" + strings.Repeat(":\n", 500001)},
	{"nested (( after rm", "rm -rf ~\necho " + strings.Repeat("$((", 5000) + "1" + strings.Repeat("))", 5000)},
	{"nested blocks then rm", strings.Repeat("{ ", 5000) + ":" + strings.Repeat("; }", 5000) + "\nrm -rf ~"},
	{"100,000 nested subshells after rm", "rm -rf ~\n" + strings.Repeat("(", 100000) + ":" + strings.Repeat(")", 100000)},
	{"100,000 nested $(( after rm", "rm -rf ~\necho " + strings.Repeat("$((", 100000) + "1" + strings.Repeat("))", 100000)},
	{"over the size limit", strings.Repeat("echo hello world\n", maxCheckInput/16) + "rm -rf ~"},
	{"nested sh -c", strings.Repeat("bash -c ", 1) + bashQuote("rm -rf ~; "+strings.Repeat("$(", 3000)+strings.Repeat(")", 3000))},
}

// TestCheckBudget: a script over the budget is denied, in every mode, and
// never asked or allowed. (How long the verdict takes is measured by
// BenchmarkCheckBudget, not asserted.)
func TestCheckBudget(t *testing.T) {
	modes := []Mode{ModeAuto, ModeDefault, ModeBypass}
	if testing.Short() {
		modes = modes[:1]
	}
	for _, mode := range modes {
		p := NewPolicy(mode)
		for _, c := range budgetCases {
			sv, _ := p.CheckScript(c.src, testEnv)
			if sv.Decision != Deny {
				t.Errorf("%s mode, %s: %s [%s] %s", mode, c.name, sv.Decision, sv.Rule, sv.Reason)
			}
		}
	}
	// the same scripts, fed to a shell inside the script
	p := NewPolicy(ModeAuto)
	sv, _ := p.CheckScript("bash -c "+bashQuote(strings.Repeat("$(", 200)+strings.Repeat(")", 200)), testEnv)
	if sv.Decision != Deny || !mentions(sv, idTooLarge.String()) {
		t.Errorf("nested in bash -c: %s [%s]", sv.Decision, sv.Rule)
	}
	// what agents send stays well inside the budget
	for _, s := range []string{benchAgentScript, strings.Repeat("echo hello world\n", 5000)} {
		if sv, _ := p.CheckScript(s, testEnv); mentions(sv, idTooLarge.String()) {
			t.Errorf("an ordinary script is over the budget: %s", sv.Reason)
		}
	}
}

// benchAgentScript is a long command an agent really sends.
var benchAgentScript = "set -euo pipefail\n" +
	"cd \"$(git rev-parse --show-toplevel)\"\n" +
	"for f in $(git diff --name-only HEAD~1 -- '*.go'); do\n" +
	"  gofmt -l \"$f\" || true\n" +
	"  go vet \"./$(dirname \"$f\")/...\" 2>&1 | head -20\n" +
	"done\n" +
	"n=$(git ls-files | wc -l)\n" +
	"echo \"files: $((n))\"\n" +
	"if [[ -d build ]]; then rm -rf build; fi\n" +
	"mkdir -p build && go build -o build/app ./cmd/app\n" +
	"cat > build/NOTES.md <<'END'\nBuilt from $(git rev-parse HEAD)\nEND\n" +
	"go test ./... -run 'Test(A|B)' -count=1 | tee build/test.log | tail -5\n"

// BenchmarkCheckBudget prints how long the verdict on each over-budget
// input takes (ns/op, and the worst run in ms), next to an agent's
// ordinary long command.
func BenchmarkCheckBudget(b *testing.B) {
	p := NewPolicy(ModeAuto)
	cases := append([]struct{ name, src string }{{"agent script", benchAgentScript}}, budgetCases...)
	for _, c := range cases {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			var worst time.Duration
			for b.Loop() {
				t := time.Now()
				sv, _ := p.CheckScript(c.src, testEnv)
				if d := time.Since(t); d > worst {
					worst = d
				}
				if c.name != "agent script" && sv.Decision != Deny {
					b.Fatalf("%s: %s", c.name, sv.Decision)
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
		})
	}
}
