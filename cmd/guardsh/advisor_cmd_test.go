package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

// TestAdviseMode: guardsh --advise asks the configured model about a
// command without running it, and reports the rating and its cost.
func TestAdviseMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh")
	}
	bin := guardshTestBinary(t)
	srv := advisortest.New(t, func(argv []string, _ *api.ChatRequest) advisortest.Reply {
		if slices.Contains(argv, "truncate") {
			return advisortest.Rating(80, "empties the file")
		}
		return advisortest.Rating(0, "reads")
	})
	home := t.TempDir()
	proj := t.TempDir()
	writeCfg := func(s string) {
		p := filepath.Join(home, ".config", "guardsh", "config.toml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, append([]string{"--advise"}, args...)...)
		cmd.Dir = proj
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GUARDSH_PROJECT=" + proj,
			"XDG_CACHE_HOME=" + os.Getenv("XDG_CACHE_HOME")} // the test process's own (testenv.Main)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	writeCfg("[advisor]\nmodel = \"judge:1b\"\nhost = \"" + srv.URL + "\"\n")
	out, errs, code := run("--", "truncate", "-s", "0", "data.db")
	for _, want := range []string{"model:   judge:1b at " + srv.URL, `command: ["truncate","-s","0","data.db"] in `, "rating:  80% (threshold 70%), at or above the threshold: guardsh would refuse it",
		"reason:  empties the file", " prompt + ", "note:    the advisor is off"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, errs)
		}
	}
	if code != 1 {
		t.Errorf("status %d, want 1", code)
	}
	before := srv.Hits()
	out, _, code = run("--times", "3", "--json", "ls", "-la")
	var j struct {
		Refuse    bool      `json:"refuse"`
		Latencies []float64 `json:"latencies_ms"`
		Advisor   struct {
			Percent *int   `json:"percent"`
			Model   string `json:"model"`
		} `json:"advisor"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 || j.Refuse || len(j.Latencies) != 3 || j.Advisor.Percent == nil || *j.Advisor.Percent != 0 || j.Advisor.Model != "judge:1b" {
		t.Errorf("--json: %v, status %d:\n%s", err, code, out)
	}
	if n := srv.Hits() - before; n != 3 {
		t.Errorf("--times 3 asked %d times", n)
	}
	writeCfg("[advisor]\nmodel = \"judge:1b\"\nhost = \"http://127.0.0.1:1\"\n")
	if _, errs, code = run("ls"); code != 2 || !strings.Contains(errs, "guardsh: advisor unavailable: no Ollama server at http://127.0.0.1:1") {
		t.Errorf("no server: status %d, stderr %q", code, errs)
	}
	writeCfg("")
	if _, errs, code = run("ls"); code != 2 || !strings.Contains(errs, "no advisor model configured") {
		t.Errorf("no model: status %d, stderr %q", code, errs)
	}
	if _, errs, code = run(); code != 2 || !strings.Contains(errs, "no command given") {
		t.Errorf("no command: status %d, stderr %q", code, errs)
	}
}
