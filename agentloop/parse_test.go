package agentloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func nativeMsg(t *testing.T, raw string) api.Message {
	t.Helper()
	var m api.Message
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestExtractCalls(t *testing.T) {
	for _, c := range []struct {
		name    string
		msg     string // JSON of an api.Message
		want    string // "name args;..." of the calls
		prose   string
		wantErr string
	}{
		{name: "native", msg: `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a.go","offset":3}}}]}`,
			want: `read_file {"offset":3,"path":"a.go"}`},
		{name: "native arguments nested as a string", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"list_files","arguments":{"arguments":"{\"path\":\"src\"}"}}}]}`,
			want: `list_files {"path":"src"}`},
		{name: "tool_call tags", msg: `{"role":"assistant","content":"I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>"}`,
			want: `read_file {"path":"x"}`, prose: "I will read it."},
		{name: "unclosed tag", msg: `{"role":"assistant","content":"<tool_call>{\"name\": \"finish\", \"arguments\": {\"summary\": \"ok\"}}"}`,
			want: `finish {"summary":"ok"}`},
		{name: "fenced json", msg: "{\"role\":\"assistant\",\"content\":\"Reading:\\n```json\\n{\\\"name\\\": \\\"read_file\\\", \\\"parameters\\\": {\\\"path\\\": \\\"go.mod\\\"}}\\n```\\nthen more\"}",
			want: `read_file {"path":"go.mod"}`, prose: "Reading:\n\nthen more"},
		{name: "bare json, arguments as a string", msg: `{"role":"assistant","content":"{\"name\": \"run_shell\", \"arguments\": \"{\\\"command\\\": \\\"ls\\\", \\\"timeout_s\\\": \\\"30\\\"}\"}"}`,
			want: `run_shell {"command":"ls","timeout_s":30}`},
		{name: "function wrapper, list", msg: `{"role":"assistant","content":"[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}},{\"name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}]"}`,
			want: `read_file {"path":"a"};read_file {"path":"b"}`},
		{name: "json after prose", msg: `{"role":"assistant","content":"Sure. {\"name\": \"list_files\", \"arguments\": {\"path\": \".\"}} Done."}`,
			want: `list_files {"path":"."}`, prose: "Sure.  Done."},
		{name: "two objects on two lines", msg: `{"role":"assistant","content":"{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b\"}}"}`,
			want: `read_file {"path":"a"};read_file {"path":"b"}`},
		{name: "mistral TOOL_CALLS", msg: `{"role":"assistant","content":"[TOOL_CALLS][{\"name\": \"list_files\", \"arguments\": {\"path\": \".\"}}]"}`,
			want: `list_files {"path":"."}`, prose: ""},
		{name: "llama python_tag", msg: `{"role":"assistant","content":"<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"x\"}}"}`,
			want: `read_file {"path":"x"}`},
		{name: "prose about a name field", msg: `{"role":"assistant","content":"Set the \"name\": field of package.json to calc."}`,
			prose: "Set the \"name\": field of package.json to calc."},
		{name: "plain answer", msg: `{"role":"assistant","content":"The project computes sums."}`, prose: "The project computes sums."},
		{name: "json data, not a call", msg: "{\"role\":\"assistant\",\"content\":\"Its package.json:\\n```json\\n{\\\"version\\\": \\\"1.0.0\\\"}\\n```\"}",
			prose: "Its package.json:\n```json\n{\"version\": \"1.0.0\"}\n```"},
		{name: "unknown tool", msg: `{"role":"assistant","content":"{\"name\": \"delete_everything\", \"arguments\": {}}"}`, wantErr: `there is no tool "delete_everything"`},
		{name: "native unknown tool", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"bash","arguments":{"cmd":"ls"}}}]}`, wantErr: `there is no tool "bash"`},
		{name: "missing argument", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"edit_file","arguments":{"path":"a","old_string":"x"}}}]}`, wantErr: `needs the argument "new_string"`},
		{name: "unknown argument", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a","lines":"1-3"}}}]}`, wantErr: `has no argument "lines"`},
		{name: "wrong type", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"a","limit":"many"}}}]}`, wantErr: `"limit" must be an integer`},
		{name: "object for a string", msg: `{"role":"assistant","tool_calls":[{"function":{"name":"run_shell","arguments":{"command":{"x":1}}}}]}`, wantErr: `"command" must be a string`},
		{name: "broken json in tags", msg: `{"role":"assistant","content":"<tool_call>{\"name\": \"read_file\", \"arguments\": {</tool_call>"}`, wantErr: "not valid JSON"},
		{name: "broken bare json", msg: `{"role":"assistant","content":"{\"name\": \"read_file\", \"arguments\": {\"path\": "}`, wantErr: "not valid JSON"},
		{name: "arguments string not json", msg: `{"role":"assistant","content":"{\"name\": \"read_file\", \"arguments\": \"path=a\"}"}`, wantErr: "not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls, prose, err := extractCalls(nativeMsg(t, c.msg), toolSpecs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				if _, ok := err.(*formatError); !ok {
					t.Errorf("err is %T, not a format error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cl := range calls {
				got = append(got, cl.Name+" "+compactJSON(cl.Args))
			}
			if g := strings.Join(got, ";"); g != c.want {
				t.Errorf("calls = %s, want %s", g, c.want)
			}
			if c.prose != "" && prose != c.prose {
				t.Errorf("prose = %q, want %q", prose, c.prose)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	got := unifiedDiff("f", "a\nb\nc\n", "a\nB\nc\n")
	if !strings.Contains(got, "--- a/f\n+++ b/f\n") || !strings.Contains(got, "-b\n+B\n") {
		t.Errorf("diff:\n%s", got)
	}
	if unifiedDiff("f", "x", "x") != "" {
		t.Error("diff of equal texts")
	}
}

func TestHeadTail(t *testing.T) {
	h := newHeadTail(nil, 10)
	for i := 0; i < 100; i++ {
		h.Write([]byte("0123456789"))
	}
	got := h.String()
	if !strings.HasPrefix(got, "0123456789\n[... 980 bytes cut from the middle ...]\n0123456789") {
		t.Errorf("head/tail: %q", got)
	}
	small := newHeadTail(nil, 10)
	small.Write([]byte("abc\n"))
	if small.String() != "abc" {
		t.Errorf("small: %q", small.String())
	}
}

func TestDetectTestCmd(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"go.mod": "module x\n"}, "go test ./..."},
		{map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"}, "pytest"},
		{map[string]string{"tests/test_a.py": ""}, "pytest"},
		{map[string]string{"package.json": `{"scripts":{"test":"jest"}}`}, "npm test"},
		{map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, ""},
		{map[string]string{"Cargo.toml": "[package]\n"}, "cargo test"},
		{map[string]string{"Makefile": "all:\n\ttrue\ntest:\n\t./run\n"}, "make test"},
		{map[string]string{"README": "x"}, ""},
	} {
		dir := t.TempDir()
		for n, body := range c.files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
			os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644)
		}
		if got, _ := DetectTestCmd(dir); got != c.want {
			t.Errorf("%v: %q, want %q", c.files, got, c.want)
		}
	}
}

// TestFilesJail: the file tools stay in the project (attacks first).
func TestFilesJail(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "app")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.MkdirAll(filepath.Join(base, "app-evil"), 0o755)
	os.WriteFile(filepath.Join(base, "secret"), []byte("s3cret"), 0o644)
	os.WriteFile(filepath.Join(base, "app-evil", "x"), []byte("evil"), 0o644)
	os.WriteFile(filepath.Join(root, "ok.txt"), []byte("fine\n"), 0o644)
	os.Symlink(base, filepath.Join(root, "up"))
	os.Symlink(filepath.Join(base, "secret"), filepath.Join(root, "link"))
	os.Symlink("ok.txt", filepath.Join(root, "inside-link"))
	os.Link(filepath.Join(base, "secret"), filepath.Join(root, "hard"))
	syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644)
	f, err := OpenFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../secret", filepath.Join(base, "secret"), "up/secret", "link", "sub/../../secret", "~/x", "", "a\x00b", "../app-evil/x", filepath.Join(base, "app-evil", "x")} {
		if b, err := f.ReadFile(mustClean(f, p)); err == nil {
			t.Errorf("read %q escaped: %q", p, b)
		}
		if _, err := f.Clean(p); err == nil {
			t.Errorf("Clean(%q) accepted", p)
		}
	}
	if _, err := f.WriteFile("hard", []byte("x"), 0o644); err == nil {
		t.Error("wrote through a hard link to a file outside")
	}
	if b, _ := os.ReadFile(filepath.Join(base, "secret")); string(b) != "s3cret" {
		t.Fatal("outside file changed")
	}
	done := make(chan error, 1)
	go func() { _, err := f.ReadFile("fifo"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read a FIFO")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO hangs")
	}
	// Inside, through a symlink that stays inside, works.
	rel, err := f.Clean("inside-link")
	if err != nil || rel != "ok.txt" {
		t.Errorf("inside link: %q %v", rel, err)
	}
	made, err := f.WriteFile("new/deep/file.txt", []byte("x"), 0o644)
	if err != nil || strings.Join(made, ",") != "new,new/deep" {
		t.Errorf("write with new dirs: %v %v", made, err)
	}
	if err := f.Remove("new/deep", false); err == nil {
		t.Error("removed a directory as a file")
	}
}

func mustClean(f Files, p string) string {
	rel, err := f.Clean(p)
	if err != nil {
		return p
	}
	return rel
}

// FuzzExtractCalls: no reply text makes the parser panic, and whatever it
// accepts names an offered tool.
func FuzzExtractCalls(f *testing.F) {
	for _, s := range []string{
		`{"name": "read_file", "arguments": {"path": "x"}}`,
		"<tool_call>{\"name\": \"finish\", \"arguments\": \"{}\"}</tool_call>",
		"```json\n[{\"function\": {\"name\": \"list_files\", \"arguments\": {}}}]\n```",
		`[TOOL_CALLS][{"name": "run_shell", "arguments": {"command": 1}}]`,
		`{"name": "read_file", "arguments": {"path": `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		calls, _, err := extractCalls(api.Message{Role: "assistant", Content: content}, toolSpecs)
		for _, c := range calls {
			if err != nil || !offered(c.Name, toolSpecs) {
				t.Fatalf("accepted %q from %q (err %v)", c.Name, content, err)
			}
		}
	})
}

// TestToolSchema: exactly the seven tools with exactly these arguments (the
// optional ones not required).
func TestToolSchema(t *testing.T) {
	want := map[string]string{
		"list_files":  "path",
		"read_file":   "path offset? limit?",
		"write_file":  "path content",
		"edit_file":   "path old_string? new_string? edits?",
		"delete_file": "path",
		"run_shell":   "command timeout_s?",
		"finish":      "summary",
	}
	tools := apiTools()
	if len(tools) != len(want) {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tl := range tools {
		req := map[string]bool{}
		for _, r := range tl.Function.Parameters.Required {
			req[r] = true
		}
		var got []string
		for name := range tl.Function.Parameters.Properties.All() {
			if !req[name] {
				name += "?"
			}
			got = append(got, name)
		}
		if strings.Join(got, " ") != want[tl.Function.Name] || tl.Type != "function" {
			t.Errorf("%s: %q, want %q", tl.Function.Name, strings.Join(got, " "), want[tl.Function.Name])
		}
	}
}
