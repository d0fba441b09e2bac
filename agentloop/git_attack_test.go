package agentloop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// plantScript writes an executable script at path that creates marker,
// and returns the script's path.
func plantScript(t *testing.T, path, marker string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho ran >> '"+marker+"'\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(text)
	f.Close()
}

// TestAgentGitRunsNoRepositoryCode: guardsh-agent's own git (open, branch,
// checkpoints, the summary's diffstat) runs outside the session sandbox, so
// nothing the repository names may run there: hooks, core.fsmonitor, a
// clean filter, an external diff or textconv, and the same planted behind
// .git/commondir, a .git file or objects/info/alternates. Each plant is
// made as a model or a hostile checkout would leave it; the run must finish
// without the marker ever being written (with the old gitOut, every row but
// the hook ones wrote it: --no-verify does not cover post-commit and
// reference-transaction either, and core.hooksPath was the only override).
func TestAgentGitRunsNoRepositoryCode(t *testing.T) {
	cases := []struct {
		name   string
		plant  func(t *testing.T, root, marker string)
		refuse string // the run works without git and says so
	}{
		{"core.fsmonitor", func(t *testing.T, root, marker string) {
			s := plantScript(t, filepath.Join(root, ".git", "x", "fsm"), marker)
			appendFile(t, filepath.Join(root, ".git", "config"), "[core]\n\tfsmonitor = "+s+"\n")
		}, ""}, // overridden: core.fsmonitor=false
		{"hooks", func(t *testing.T, root, marker string) {
			for _, h := range []string{"pre-commit", "post-commit", "post-checkout", "reference-transaction", "prepare-commit-msg", "commit-msg"} {
				plantScript(t, filepath.Join(root, ".git", "hooks", h), marker)
			}
		}, ""},
		{"hooksPath in the project", func(t *testing.T, root, marker string) {
			plantScript(t, filepath.Join(root, ".git", "x", "post-commit"), marker)
			appendFile(t, filepath.Join(root, ".git", "config"), "[core]\n\thooksPath = .git/x\n")
		}, ""},
		{"clean filter", func(t *testing.T, root, marker string) {
			s := plantScript(t, filepath.Join(root, ".git", "x", "clean"), marker)
			appendFile(t, filepath.Join(root, ".git", "config"), "[filter \"x\"]\n\tclean = "+s+"\n")
			appendFile(t, filepath.Join(root, ".git", "info", "attributes"), "* filter=x\n")
		}, "filter.x.clean"},
		{"include of a project file", func(t *testing.T, root, marker string) {
			s := plantScript(t, filepath.Join(root, ".git", "x", "fsm"), marker)
			appendFile(t, filepath.Join(root, ".git", "x", "cfg"), "[core]\n\tfsmonitor = "+s+"\n")
			appendFile(t, filepath.Join(root, ".git", "config"), "[include]\n\tpath = x/cfg\n")
		}, ""}, // overridden: core.fsmonitor=false
		{"commondir", func(t *testing.T, root, marker string) {
			// a full planted common dir: objects, refs, HEAD and a config
			// and hooks of the model's
			cfg := filepath.Join(root, "tools", "gitcommon")
			os.MkdirAll(cfg, 0o755)
			if err := os.CopyFS(cfg, os.DirFS(filepath.Join(root, ".git"))); err != nil {
				t.Fatal(err)
			}
			s := plantScript(t, filepath.Join(root, ".git", "x", "fsm"), marker)
			appendFile(t, filepath.Join(cfg, "config"), "[core]\n\tfsmonitor = "+s+"\n")
			plantScript(t, filepath.Join(cfg, "hooks", "post-commit"), marker)
			os.WriteFile(filepath.Join(root, ".git", "commondir"), []byte("../tools/gitcommon\n"), 0o644)
		}, "commondir"},
		{".git file", func(t *testing.T, root, marker string) {
			elsewhere := filepath.Join(root, "tools", "realgit")
			os.MkdirAll(filepath.Dir(elsewhere), 0o755)
			if err := os.Rename(filepath.Join(root, ".git"), elsewhere); err != nil {
				t.Fatal(err)
			}
			s := plantScript(t, filepath.Join(elsewhere, "x", "fsm"), marker)
			appendFile(t, filepath.Join(elsewhere, "config"), "[core]\n\tfsmonitor = "+s+"\n")
			os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: tools/realgit\n"), 0o644)
		}, "gitdir"},
		{"alternates", func(t *testing.T, root, marker string) {
			os.MkdirAll(filepath.Join(root, "tools", "objs"), 0o755)
			os.WriteFile(filepath.Join(root, ".git", "objects", "info", "alternates"), []byte(filepath.Join(root, "tools", "objs")+"\n"), 0o644)
		}, "alternates"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, "gofix", true)
			marker := filepath.Join(t.TempDir(), "ran")
			c.plant(t, p.root, marker)
			f := newFake(t,
				calls(call("write_file", `{"path": "NOTES.md", "content": "notes\n"}`)),
				calls(call("run_shell", `{"command": "echo more >> NOTES.md"}`)),
				calls(call("run_shell", `{"command": "true"}`)),
				calls(call("finish", `{"summary": "wrote notes"}`)),
			)
			res, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(cfg *Config) { cfg.TestCmd = "true" })
			if _, serr := os.Stat(marker); serr == nil {
				b, _ := os.ReadFile(marker)
				t.Fatalf("the repository's program ran in guardsh-agent's own git (%q):\n%s", b, out)
			}
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			if !res.Finished {
				t.Fatalf("not finished:\n%s", out)
			}
			if c.refuse != "" {
				if !strings.Contains(out, "working without git checkpoints") || !strings.Contains(out, c.refuse) {
					t.Errorf("the refusal does not say why (want %q):\n%s", c.refuse, out)
				}
			} else if n := p.git(t, "-c", "core.hooksPath=/dev/null", "rev-list", "--count", "guardsh/"+res.RunID); n == "1" {
				t.Errorf("hooks off, but no checkpoint made on guardsh/%s:\n%s", res.RunID, out)
			}
		})
	}
}

// TestAgentGitModelPlantedCommondir is the attack as a model makes it:
// through its own shell, in auto mode, it copies the repository's data to
// a directory of its own, adds a config with core.fsmonitor and points
// .git/commondir at it. Whether or not the rules let the plant through,
// the agent's next checkpoint must not run it.
func TestAgentGitModelPlantedCommondir(t *testing.T) {
	p := newProject(t, "gofix", true)
	marker := filepath.Join(t.TempDir(), "ran")
	plant := `mkdir -p tools/c && cp -r .git/HEAD .git/objects .git/refs tools/c/ && ` +
		`printf '#!/bin/sh\necho ran >> ` + marker + `\n' > tools/c/fsm && chmod +x tools/c/fsm && ` +
		`printf '[core]\n\tfsmonitor = ` + filepath.Join(p.root, "tools", "c", "fsm") + `\n' > tools/c/config && echo ../tools/c > .git/commondir`
	f := newFake(t,
		calls(call("write_file", `{"path": "NOTES.md", "content": "notes\n"}`)),
		calls(call("run_shell", `{"command": `+quoteJSON(plant)+`}`)),
		calls(call("write_file", `{"path": "NOTES.md", "content": "notes 2\n"}`)),
		calls(call("run_shell", `{"command": "true"}`)),
		calls(call("finish", `{"summary": "wrote notes"}`)),
	)
	_, err, out := p.run(t, context.Background(), f, guardsh.ModeAuto, func(cfg *Config) { cfg.TestCmd = "true" })
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatalf("the model's core.fsmonitor ran in guardsh-agent's own git:\n%s", out)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
