package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

// Attack A3: guardsh --hook without --rewrite answered allow on the rules
// alone. With the advisor on, the hook asks the model about the command as
// the agent wrote it: 100% -> the agent's deny with the advisor's message;
// no server -> allow, and the reason says why there is no rating. Through
// the hook's real JSON protocol for each agent.
func TestHookAdvisor(t *testing.T) {
	srv := advisortest.New(t, func(_ []string, req *api.ChatRequest) advisortest.Reply {
		if strings.Contains(advisortest.UserText(req), "data.db") {
			return advisortest.Rating(100, "deletes the database")
		}
		return advisortest.Rating(0, "reads")
	})
	home, proj := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(proj, "data.db"), []byte("precious"), 0o644)
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	cfgPath := filepath.Join(home, ".config", "guardsh", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	writeCfg := func(host string) {
		if err := os.WriteFile(cfgPath, []byte("[advisor]\nenabled = true\nmodel = \"judge:1b\"\nhost = \""+host+"\"\ntimeout = \"2s\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "GUARDSH_MODE": "auto", "XDG_STATE_HOME": filepath.Join(home, "state")}
	inProj := func(ev string) string {
		var m map[string]any
		json.Unmarshal([]byte(ev), &m)
		m["cwd"] = proj
		delete(m["tool_input"].(map[string]any), "dir_path")
		b, _ := json.Marshal(m)
		return string(b)
	}
	writeCfg(srv.URL)
	const refused = "guardsh: refused [advisor.destructive]: the advisor rated this command 100% likely to irreversibly destroy data. Narrow the target or run it yourself if this is intentional"
	for _, tc := range []struct {
		agent, in string
	}{
		{"claude", inProj(claudeBash("rm data.db"))},
		{"codex", inProj(codexBash("rm data.db"))},
		{"gemini", inProj(geminiShell("rm data.db"))},
		{"claude", inProj(claudeBash(": > data.db"))},
		{"claude", inProj(claudeBash("echo 'DELETE FROM t' | sqlite3 data.db"))},
	} {
		r := runHookTest(t, []string{tc.agent, "--no-rewrite"}, tc.in, env)
		if r.code != 0 || r.decision != "deny" || !strings.HasPrefix(r.reason, refused) {
			t.Errorf("%s %s: code %d decision %q reason %q stderr %q", tc.agent, tc.in, r.code, r.decision, r.reason, r.stderr)
		}
	}
	// below the threshold: allowed, the rating in the reason
	r := runHookTest(t, []string{"claude", "--no-rewrite"}, inProj(claudeBash("ls -la")), env)
	if r.decision != "allow" || !strings.Contains(r.reason, "advisor: 0% (threshold 70%)") {
		t.Errorf("ls: %+v", r)
	}
	// the audit record holds the rating
	log, _ := os.ReadFile(filepath.Join(home, "state", "guardsh", "audit.jsonl"))
	if !strings.Contains(string(log), `"rule":"advisor.destructive"`) || !strings.Contains(string(log), `"advisor":{"percent":100`) {
		t.Errorf("audit log:\n%s", log)
	}
	// --rewrite: guardsh -c rates at run time; the hook does not ask
	hits := srv.Hits()
	if r := runHookTest(t, []string{"claude", "--rewrite"}, inProj(claudeBash("rm data.db")), env); r.decision != "allow" || srv.Hits() != hits {
		t.Errorf("--rewrite: %+v, %d requests", r, srv.Hits()-hits)
	}
	// a rule's deny never reaches the model
	if r := runHookTest(t, []string{"claude", "--no-rewrite"}, inProj(claudeBash("rm -rf ~")), env); r.decision != "deny" || srv.Hits() != hits {
		t.Errorf("rule deny: %+v, %d requests", r, srv.Hits()-hits)
	}
	// no server: allow, visibly
	writeCfg("http://127.0.0.1:1")
	r = runHookTest(t, []string{"claude", "--no-rewrite"}, inProj(claudeBash("rm data.db")), env)
	if r.code != 0 || r.decision != "allow" || !strings.Contains(r.reason, "; advisor unavailable: no Ollama server at http://127.0.0.1:1") ||
		!strings.Contains(r.stderr, "guardsh: advisor unavailable: ") {
		t.Errorf("no server: %+v", r)
	}
	if r := runHookTest(t, []string{"gemini", "--no-rewrite"}, inProj(geminiShell("rm data.db")), env); r.decision != "allow" || !strings.Contains(r.reason, "advisor unavailable") {
		t.Errorf("gemini, no server: %+v", r)
	}
}

// TestHookAdvisorDryRun: threshold 0 is a dry run for the hook too: a
// command the rules allowed is refused without asking the model, which
// need not even be reachable.
func TestHookAdvisorDryRun(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	cfgPath := filepath.Join(home, ".config", "guardsh", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	os.WriteFile(cfgPath, []byte("[advisor]\nenabled = true\nmodel = \"judge:1b\"\nhost = \"127.0.0.1:9\"\nthreshold = 0\n"), 0o644)
	env := map[string]string{"HOME": home, "GUARDSH_MODE": "auto", "XDG_STATE_HOME": filepath.Join(home, "state")}
	var m map[string]any
	json.Unmarshal([]byte(claudeBash("ls -la")), &m)
	m["cwd"] = proj
	b, _ := json.Marshal(m)
	r := runHookTest(t, []string{"claude", "--no-rewrite"}, string(b), env)
	if r.decision != "deny" || !strings.Contains(r.reason, "[advisor.dry-run]") {
		t.Errorf("ls at threshold 0: %+v", r)
	}
}
