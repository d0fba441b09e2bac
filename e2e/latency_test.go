package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
)

// EnvLatency turns TestToolCallLatency on: GUARDSH_E2E_LATENCY=N runs N
// rounds (each round one session per agent and route, in turn, so load
// changes hit every route alike).
const EnvLatency = "GUARDSH_E2E_LATENCY"

// latencyCalls is the number of benign tool calls in one latency session.
const latencyCalls = 12

// TestToolCallLatency measures the time one shell tool call takes with the
// real agent CLI and the fake model server, per route: from the model's
// reply asking for the call to the agent's next request carrying its
// result. The agent alone (its own shell, no guardsh) is the baseline; the
// figure of a route is its median minus the baseline's. It is a
// measurement, not a check: it fails only when a session does not run.
//
//	GUARDSH_E2E_LATENCY=5 go test -count=1 -run TestToolCallLatency -v ./e2e
//
// GUARDSH_E2E_AGENTS=claude-code,gemini-cli limits the agents.
func TestToolCallLatency(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv(EnvLatency))
	if rounds <= 0 {
		t.Skipf("a benchmark: %s=N (rounds) runs it", EnvLatency)
	}
	g := guardshUnderTest(t)
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("GUARDSH_E2E_AGENTS"), ",") {
		if n != "" {
			only[n] = true
		}
	}
	type key struct {
		agent string
		r     route
	}
	samples := map[key][]time.Duration{}
	startup := map[key][]time.Duration{}
	failed := map[key]bool{} // a session of the route failed its checks
	var order []key
	for round := 0; round < rounds; round++ {
		for _, a := range agents {
			if len(only) > 0 && !only[a.name] {
				continue
			}
			bin := filepath.Join(npmPrefix(), "node_modules", ".bin", a.bin)
			if _, err := os.Stat(bin); err != nil {
				if round == 0 {
					t.Logf("%s not installed: npm install --prefix %s %s", a.name, npmPrefix(), a.pkg)
				}
				continue
			}
			for _, r := range append([]route{routeAlone}, a.routes...) {
				k := key{a.name, r}
				if round == 0 {
					order = append(order, k)
				}
				var steps []step
				for i := 0; i < latencyCalls; i++ {
					tok := fmt.Sprintf("%d", i)
					// distinct commands: an agent may stop a loop of identical calls
					steps = append(steps, step{name: "benign" + tok, cmd: "cat benign.txt && echo call-" + tok, want: []string{"benign-", "call-" + tok}})
				}
				if r != routeAlone {
					// guardsh must be on the route: its refusal proves it.
					steps = append(steps, commonSteps("")[1])
				}
				var res *sessionResult
				t.Run(fmt.Sprintf("%s/%s/%d", a.name, r, round), func(t *testing.T) {
					res = runSession(t, a, r, g, bin, steps, latencySession)
				})
				if res == nil || len(res.scr.check()) > 0 || res.err != nil {
					failed[k] = true // the route does not work for this agent (TestAgents says why)
					continue
				}
				// The first call pays the agent's lazy start-up (its shell
				// snapshot, tool set-up): kept apart.
				startup[k] = append(startup[k], res.scr.results[0].elapsed)
				for _, sr := range res.scr.results[1:latencyCalls] {
					samples[k] = append(samples[k], sr.elapsed)
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "per tool call, median over %d rounds x %d calls (first call apart):\n", rounds, latencyCalls-1)
	fmt.Fprintf(&b, "%-12s %-13s %9s %9s %9s %11s\n", "agent", "route", "median", "added", "p90", "first call")
	base := map[string]time.Duration{}
	for _, k := range order {
		s := samples[k]
		if len(s) == 0 || failed[k] {
			// Not measured: the route fails, or guardsh is not on it (a
			// figure for an unguarded route would flatter it).
			fmt.Fprintf(&b, "%-12s %-13s %9s\n", k.agent, k.r, "(fails or unguarded: see TestAgents)")
			continue
		}
		med, p90 := quantile(s, 0.5), quantile(s, 0.9)
		added := ""
		if k.r == routeAlone {
			base[k.agent] = med
		} else if bm, ok := base[k.agent]; ok {
			added = (med - bm).Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-12s %-13s %9v %9s %9v %11v\n", k.agent, k.r, med.Round(time.Millisecond), added,
			p90.Round(time.Millisecond), quantile(startup[k], 0.5).Round(time.Millisecond))
	}
	t.Log("\n" + b.String())
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

// pieces are the processes a route adds to one tool call, timed alone in
// the same rounds as the agents, so that a route's added time can be split
// into guardsh's share and the agent's.
func pieces(t *testing.T, g, home, project string) []struct {
	name string
	argv []string
	in   string
} {
	shimDir := filepath.Join(home, "shim")
	os.MkdirAll(shimDir, 0o755)
	shim := filepath.Join(shimDir, "bash")
	os.Remove(shim)
	if err := os.Symlink(g, shim); err != nil {
		t.Fatal(err)
	}
	// Claude Code's form of a call (its snapshot aside).
	claude := "eval 'cat benign.txt' < /dev/null && pwd -P >| " + filepath.Join(project, ".cwd")
	event := mustJSON(map[string]any{"session_id": "latency", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "cat benign.txt"}, "cwd": project, "permission_mode": "default"})
	return []struct {
		name string
		argv []string
		in   string
	}{
		{"bash -c -l (Claude Code's call, its own bash)", []string{"/bin/bash", "-c", "-l", claude}, ""},
		{"guardsh as bash -c -l (the launcher's shim)", []string{shim, "-c", "-l", claude}, ""},
		{"bash -c (Gemini CLI's, opencode's call)", []string{"/bin/bash", "-c", "cat benign.txt"}, ""},
		{"guardsh as bash -c", []string{shim, "-c", "cat benign.txt"}, ""},
		{"guardsh --hook claude --no-rewrite", []string{g, "--hook", "claude", "--mode", "auto", "--no-rewrite"}, event},
		{"guardsh --mode=auto -c (a rewritten call)", []string{g, "--mode=auto", "-c", "cat benign.txt"}, ""},
		{"guardsh --no-sandbox -c true (start-up, no sandbox)", []string{g, "--no-sandbox", "-c", "true"}, ""},
	}
}

// TestShellPieces times each process a route adds to a tool call, alone,
// interleaved (GUARDSH_E2E_LATENCY=N: N x 20 rounds).
func TestShellPieces(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv(EnvLatency))
	if rounds <= 0 {
		t.Skipf("a benchmark: %s=N runs it", EnvLatency)
	}
	g := guardshUnderTest(t)
	home := filepath.Join(testenv.Outside(t), "home")
	project := filepath.Join(t.TempDir(), "project")
	for _, d := range []string{home, project} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(project, "benign.txt"), []byte("benign\n"), 0o644)
	ps := pieces(t, g, home, project)
	times := make([][]time.Duration, len(ps))
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "GUARDSH_MODE=auto", "LANG=C.UTF-8",
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state")}
	for i := 0; i < rounds*20; i++ {
		for j, p := range ps {
			cmd := exec.Command(p.argv[0], p.argv[1:]...)
			cmd.Dir, cmd.Env = project, env
			cmd.Stdin = strings.NewReader(p.in)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				t.Fatalf("%s: %v\n%s", p.name, err, out)
			}
			times[j] = append(times[j], d)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "per process, median (p90) over %d interleaved runs:\n", rounds*20)
	for j, p := range ps {
		fmt.Fprintf(&b, "%-52s %8v (%v)\n", p.name, quantile(times[j], 0.5).Round(100*time.Microsecond), quantile(times[j], 0.9).Round(100*time.Microsecond))
	}
	t.Log("\n" + b.String())
}
