package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/ollama/ollama/api"
)

// turn is one scripted reply of the fake Ollama server.
type turn struct {
	content    string   // assistant text, streamed in small pieces
	calls      []string // native tool calls, raw JSON objects
	doneReason string   // "" = "stop"
	status     int      // an HTTP error status instead of a reply
	body       string   // the error body for status
	midError   string   // send part of the content, then an NDJSON error line
	cut        bool     // end the stream without the done line
	hold       time.Duration
	check      func(t *testing.T, req *api.ChatRequest)
}

// fakeOllama is an /api/chat server on 127.0.0.1 speaking Ollama's NDJSON
// wire format, streamed or not as the request asks, playing turns in order.
type fakeOllama struct {
	t     *testing.T
	mu    sync.Mutex
	turns []turn
	reqs  []*api.ChatRequest
	srv   *httptest.Server
}

func newFake(t *testing.T, turns ...turn) *fakeOllama {
	f := &fakeOllama{t: t, turns: turns}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOllama) client() *api.Client {
	u, _ := url.Parse(f.srv.URL)
	return api.NewClient(u, f.srv.Client())
}

// requests returns the requests received so far.
func (f *fakeOllama) requests() []*api.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*api.ChatRequest(nil), f.reqs...)
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("fake ollama: bad request: %v", err)
		http.Error(w, `{"error":"bad request"}`, 400)
		return
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, &req)
	var tn turn
	ok := n < len(f.turns)
	if ok {
		tn = f.turns[n]
	}
	f.mu.Unlock()
	if !ok {
		f.t.Errorf("fake ollama: request %d beyond the script (%d turns); last message: %+v", n+1, len(f.turns), req.Messages[len(req.Messages)-1])
		w.WriteHeader(500)
		io.WriteString(w, `{"error":"script exhausted"}`)
		return
	}
	if tn.check != nil {
		tn.check(f.t, &req)
	}
	if tn.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(tn.status)
		io.WriteString(w, tn.body)
		return
	}
	stream := req.Stream == nil || *req.Stream
	line := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	msg := func(content string, calls []string) map[string]any {
		m := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			var raw []json.RawMessage
			for _, c := range calls {
				raw = append(raw, json.RawMessage(c))
			}
			m["tool_calls"] = raw
		}
		return m
	}
	reason := tn.doneReason
	if reason == "" {
		reason = "stop"
	}
	done := map[string]any{"model": req.Model, "created_at": time.Now().UTC(), "done": true, "done_reason": reason,
		"total_duration": 1000, "eval_count": 10}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		done["message"] = msg(tn.content, tn.calls)
		line(done)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	chunks := chunk(tn.content, 7)
	if tn.midError != "" {
		for _, c := range chunks[:len(chunks)/2] {
			line(map[string]any{"model": req.Model, "created_at": time.Now().UTC(), "message": msg(c, nil), "done": false})
		}
		line(map[string]any{"error": tn.midError})
		return
	}
	for _, c := range chunks {
		line(map[string]any{"model": req.Model, "created_at": time.Now().UTC(), "message": msg(c, nil), "done": false})
	}
	if len(tn.calls) > 0 {
		line(map[string]any{"model": req.Model, "created_at": time.Now().UTC(), "message": msg("", tn.calls), "done": false})
	}
	if tn.hold > 0 {
		select {
		case <-time.After(tn.hold):
		case <-r.Context().Done():
			return
		}
	}
	if tn.cut {
		return
	}
	done["message"] = msg("", nil)
	line(done)
}

func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// call is a native tool call as Ollama sends it.
func call(name, args string) string {
	return fmt.Sprintf(`{"function":{"name":%q,"arguments":%s}}`, name, args)
}

// calls makes a turn of native tool calls.
func calls(c ...string) turn { return turn{calls: c} }

// --- the project under test ---

var goEnv struct {
	cache, modcache, path string
}

// realHome is HOME before any test fakes it.
var realHome, _ = os.UserHomeDir()

// TestMain finds the real Go caches before any test fakes HOME.
func TestMain(m *testing.M) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err == nil {
		l := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(l) == 3 {
			goEnv.cache, goEnv.modcache, goEnv.path = l[0], l[1], l[2]
		}
	}
	os.Exit(m.Run())
}

// shellEnv is the environment of the agent's shell in tests: a fake HOME,
// the real Go build cache (so go test is fast), no network needed.
func shellEnv(t *testing.T, home string) []string {
	return []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"GOCACHE=" + goEnv.cache,
		"GOMODCACHE=" + goEnv.modcache,
		"GOPATH=" + goEnv.path,
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"LC_ALL=C",
	}
}

// project is a copy of a testdata task repository in a temp dir, with a
// fake HOME and state directory.
type project struct {
	root, home string
	gate       interp.Gate // nil: no human
}

func newProject(t *testing.T, testdata string, withGit bool) *project {
	t.Helper()
	base := t.TempDir()
	p := &project{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(filepath.Join(p.home, "canary"), []byte("still here"), 0o644)
	t.Setenv("HOME", p.home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	if err := os.CopyFS(p.root, os.DirFS(filepath.Join("testdata", testdata))); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(p.root); err == nil {
		p.root = real
	}
	if withGit {
		p.git(t, "init", "-q", "-b", "main")
		p.git(t, "add", "-A")
		p.git(t, "commit", "-q", "-m", "start")
	}
	return p
}

func (p *project) git(t *testing.T, args ...string) string {
	t.Helper()
	full := append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = p.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (p *project) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shell builds the agent's guardsh session on the project.
func (p *project) shell(t *testing.T, mode guardsh.Mode) *interp.Runner {
	t.Helper()
	r, err := interp.New(interp.Config{
		Policy:  guardsh.NewPolicy(mode),
		Project: p.root,
		Dir:     p.root,
		Env:     shellEnv(t, p.home),
		Gate:    p.gate,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run runs the agent on the project against the fake.
//
//lint:ignore ST1008 the callers read the result, the error and then the output the agent printed
func (p *project) run(t *testing.T, ctx context.Context, f *fakeOllama, mode guardsh.Mode, edit func(*Config)) (*Result, error, string) {
	t.Helper()
	var out bytes.Buffer
	cfg := Config{
		Client:     f.client(),
		Model:      "qwen2.5-coder:7b",
		Host:       f.srv.URL,
		Task:       "Fix Sum so the tests pass.",
		Workdir:    p.root,
		Shell:      p.shell(t, mode),
		MaxSteps:   20,
		MaxTime:    2 * time.Minute,
		RetryDelay: 10 * time.Millisecond,
		Out:        &syncWriter{w: &out},
	}
	if edit != nil {
		edit(&cfg)
	}
	res, err := Run(ctx, cfg)
	return res, err, out.String()
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// lastToolResult finds the content of the last tool message named name in
// a request.
func lastToolResult(req *api.ChatRequest, name string) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "tool" && (name == "" || m.ToolName == name) {
			return m.Content
		}
	}
	return ""
}

// expectTool is a check that the previous tool result contains want.
func expectTool(name, want string) func(t *testing.T, req *api.ChatRequest) {
	return func(t *testing.T, req *api.ChatRequest) {
		t.Helper()
		if got := lastToolResult(req, name); !strings.Contains(got, want) {
			t.Errorf("last %s result does not contain %q:\n%s", name, want, got)
		}
	}
}

// with returns tn with a check added.
func (tn turn) with(check func(t *testing.T, req *api.ChatRequest)) turn {
	tn.check = check
	return tn
}
