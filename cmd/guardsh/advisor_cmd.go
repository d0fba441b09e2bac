package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/interp"
)

// guardsh --advise: ask the configured advisor model about one command,
// without running it, to try a model and see what a rating costs.

func init() { registerMode("--advise", runAdvise) }

const adviseUsage = `usage: guardsh --advise [--times N] [--json] [--] WORD...

Asks the model configured in [advisor] (see README "Advisor") to rate the
command WORD... (its argv, as the runner would see it after expansion) in the
current directory, and prints the rating, the reason, the latency and the
tokens. Nothing runs, and the rules are not consulted. --times N asks N
times without the cache, to measure the latency. It works with
enabled = false too, so that a model can be tried before it is turned on.

Exit status: 0 rated below the threshold, 1 at or above it (guardsh would
refuse the command if the rules allowed it), 2 no rating or a usage error.
`

func runAdvise(args []string) int {
	times, asJSON := 1, false
	var argv []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			argv = append(argv, args[i+1:]...)
			i = len(args)
		case a == "--json":
			asJSON = true
		case a == "--times" && i+1 < len(args):
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 || n > 100 {
				fmt.Fprintf(os.Stderr, "guardsh: --advise: --times %q: want 1 to 100\n%s", args[i], adviseUsage)
				return 2
			}
			times = n
		case a == "--help" || a == "-h":
			fmt.Print(adviseUsage)
			return 0
		case strings.HasPrefix(a, "-") && len(argv) == 0:
			fmt.Fprintf(os.Stderr, "guardsh: --advise: unknown option %q\n%s", a, adviseUsage)
			return 2
		default:
			argv = append(argv, args[i:]...)
			i = len(args)
		}
	}
	if len(argv) == 0 {
		fmt.Fprint(os.Stderr, "guardsh: --advise: no command given\n"+adviseUsage)
		return 2
	}
	home, _ := os.UserHomeDir()
	project := sessionProject()
	cfg, err := guardsh.LoadConfig(home, project, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return 2
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(os.Stderr, "guardsh: warning: %s\n", w)
	}
	ac := cfg.Advisor
	if ac.Model == "" {
		fmt.Fprintf(os.Stderr, "guardsh: --advise: no advisor model configured: add [advisor] model = \"NAME\" to %s (a model you pulled: ollama list)\n", guardsh.UserConfigPath(home, os.Getenv))
		return 2
	}
	host, err := ac.HostURL(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: --advise: %v\n", err)
		return 2
	}
	dir, _ := os.Getwd()
	c := guardsh.Command{Args: argv, Dir: dir, Project: project, Home: home, Via: "advise"}
	var r advisor.Rating
	var lat []time.Duration
	for range times {
		a, err := advisor.New(advisor.Config{Model: ac.Model, Host: host, Timeout: ac.Wait(), Threshold: ac.Limit()})
		if err == nil {
			r, err = a.Rate(context.Background(), c)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: advisor unavailable: %v\n", err)
			return 2
		}
		lat = append(lat, r.Latency)
	}
	refuse := r.Percent >= ac.Limit()
	if asJSON {
		rec := interp.RatingAudit(r)
		out := struct {
			Argv      []string       `json:"argv"`
			Dir       string         `json:"cwd"`
			Host      string         `json:"host"`
			Threshold int            `json:"threshold"`
			Refuse    bool           `json:"refuse"`
			Enabled   bool           `json:"enabled"`
			Rating    *audit.Advisor `json:"advisor"`
			LatencyMS []float64      `json:"latencies_ms"`
		}{argv, dir, host.String(), ac.Limit(), refuse, ac.Enabled, rec, nil}
		for _, d := range lat {
			out.LatencyMS = append(out.LatencyMS, float64(d.Microseconds())/1000)
		}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	} else {
		argvJSON, _ := json.Marshal(argv)
		fmt.Printf("model:   %s at %s\n", r.Model, host)
		fmt.Printf("command: %s in %s\n", argvJSON, dir)
		verdict := "below the threshold: it would run"
		if refuse {
			verdict = "at or above the threshold: guardsh would refuse it [advisor.destructive]"
		}
		fmt.Printf("rating:  %d%% (threshold %d%%), %s\n", r.Percent, ac.Limit(), verdict)
		fmt.Printf("reason:  %s\n", r.Reason)
		fmt.Printf("cost:    %s, %d prompt + %d answer tokens\n", latencyText(lat), r.PromptTokens, r.EvalTokens)
		if !ac.Enabled {
			fmt.Printf("note:    the advisor is off ([advisor] enabled = false or missing): sessions do not ask it\n")
		}
	}
	if refuse {
		return 1
	}
	return 0
}

// latencyText is one latency, or the median, minimum and maximum of several.
func latencyText(lat []time.Duration) string {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	}
	if len(lat) == 1 {
		return ms(lat[0])
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return fmt.Sprintf("median %s (min %s, max %s) over %d requests", ms(s[len(s)/2]), ms(s[0]), ms(s[len(s)-1]), len(s))
}
