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

// latencyCalls is the number of benign tool calls in a long latency
// session; a short one makes one.
const latencyCalls = 12

// TestToolCallLatency measures one shell tool call with the real agent CLI
// and the fake model server, per route, two ways:
//
//   - wall time: from the model's reply asking for the call to the agent's
//     next request carrying its result (the calls after the first, which
//     pays the agent's lazy set-up), the median;
//   - CPU time: the user+system time of the agent's process tree (the
//     agent, its shells, guardsh, the hooks), per call: a long session's
//     minus a short one's, divided by the calls between them, so that
//     start-up and exit cancel. CPU time does not grow with the machine's
//     load as wall time does.
//
// The agent alone (its own shell, no guardsh) is the baseline; "added" is
// a route's figure minus the baseline's. Each round runs every variant
// once, in turn, so that load changes hit them alike. A route whose
// session fails, or on which guardsh is not (its rm -r ~/victim not
// refused), is not measured. It is a measurement, not a check:
//
//	GUARDSH_E2E_LATENCY=3 go test -count=1 -timeout 60m -run TestToolCallLatency -v ./e2e
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
	wall := map[key][]time.Duration{}
	cpu := map[key][]time.Duration{}
	failed := map[key]bool{}
	var order []key
	session := func(t *testing.T, a *agent, r route, bin string, calls int) *sessionResult {
		var steps []step
		for i := 0; i < calls; i++ {
			tok := strconv.Itoa(i)
			// distinct commands: an agent may stop a loop of identical calls
			steps = append(steps, step{name: "benign" + tok, cmd: "cat benign.txt && echo call-" + tok, want: []string{"benign-", "call-" + tok}})
		}
		if r != routeAlone {
			// guardsh must be on the route: its refusal proves it.
			steps = append(steps, commonSteps("")[1])
		}
		var res *sessionResult
		t.Run(fmt.Sprintf("%s/%s/%d-calls", a.name, r, calls), func(t *testing.T) {
			res = runSession(t, a, r, g, bin, steps, latencySession)
		})
		if res == nil || len(res.scr.check()) > 0 || res.err != nil {
			return nil
		}
		return res
	}
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
				if failed[k] {
					continue
				}
				short := session(t, a, r, bin, 1)
				long := session(t, a, r, bin, 1+latencyCalls)
				if short == nil || long == nil {
					failed[k] = true // TestAgents says why
					continue
				}
				for _, sr := range long.scr.results[1 : 1+latencyCalls] {
					wall[k] = append(wall[k], sr.elapsed)
				}
				cpu[k] = append(cpu[k], (long.cpu-short.cpu)/latencyCalls)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "per tool call, %d rounds (wall: median of %d calls a round; CPU: median of the rounds' (long - short session) / %d):\n",
		rounds, latencyCalls, latencyCalls)
	fmt.Fprintf(&b, "%-12s %-13s %10s %10s %10s %10s %10s\n", "agent", "route", "wall", "added", "wall p90", "CPU", "added")
	baseWall, baseCPU := map[string]time.Duration{}, map[string]time.Duration{}
	for _, k := range order {
		if failed[k] || len(wall[k]) == 0 {
			fmt.Fprintf(&b, "%-12s %-13s %10s\n", k.agent, k.r, "(fails or guardsh not on it: see TestAgents)")
			continue
		}
		w, c := quantile(wall[k], 0.5), quantile(cpu[k], 0.5)
		addW, addC := "", ""
		if k.r == routeAlone {
			baseWall[k.agent], baseCPU[k.agent] = w, c
		} else if bw, ok := baseWall[k.agent]; ok {
			addW = (w - bw).Round(time.Millisecond).String()
			addC = (c - baseCPU[k.agent]).Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "%-12s %-13s %10v %10s %10v %10v %10s\n", k.agent, k.r, w.Round(time.Millisecond), addW,
			quantile(wall[k], 0.9).Round(time.Millisecond), c.Round(time.Millisecond), addC)
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
