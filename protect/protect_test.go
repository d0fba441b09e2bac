package protect

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	w := Where{Project: "/p", Home: "/h", ConfigHome: "/x", Config: "/c/g.toml"}
	tests := []struct {
		abs  string
		want bool
	}{
		{"/p/.guardsh.toml", true},
		{"/p/sub/.guardsh.toml", false}, // only the project root's is read
		{"/p/.gitmodules", true},
		{"/p/.git/config", true},
		{"/p/.git/commondir", true},
		{"/p/.git/gitdir", true},
		{"/p/.git/objects/info/alternates", true},
		{"/p/.git/info/attributes", true},
		{"/p/.git/config.worktree", true},
		{"/p/.git/hooks", true},
		{"/p/.git/hooks/pre-commit", true},
		{"/p/.git/modules/sub/config", true},
		{"/p/.git/modules/a/b/hooks/post-checkout", true},
		{"/p/.git/modules/a/modules/b/commondir", true},
		{"/p/.git/worktrees/wt/commondir", true},
		{"/p/.git/worktrees/wt/gitdir", true},
		{"/p/vendor/lib/.git/config", true}, // a nested repository's
		{"/p/.git/HEAD", false},
		{"/p/.git/index", false},
		{"/p/.git/objects/ab/cdef", false},
		{"/p/.git/info/exclude", false},
		{"/p/.git/refs/heads/main", false},
		{"/p/config", false},
		{"/h/.bashrc", true},
		{"/h/.bash_aliases", true},
		{"/h/.cshrc", true},
		{"/h/.ssh/authorized_keys", true},
		{"/h/.config/fish/config.fish", true},
		{"/h/.config/guardsh/config.toml", true},
		{"/h/.gitconfig", true},
		{"/h/.local/state/guardsh/audit.jsonl", true},
		{"/h/notes.txt", false},
		{"/h/.config/other", false},
		{"/x/guardsh/config.toml", true},
		{"/x/git/config", true},
		{"/c/g.toml", true},
		{"/etc/zprofile", true},
		{"/etc/zshrc", true},
		{"/etc/profile.d/x.sh", true},
		{"/etc/hosts", false},
		{"relative/.bashrc", false},
	}
	for _, tt := range tests {
		if _, got := Match(tt.abs, w); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.abs, got, tt.want)
		}
	}
}

// TestPathsCoverEntries: every entry anchored in w is listed for the
// sandbox, and each listed path matches its entry.
func TestPathsCoverEntries(t *testing.T) {
	w := Where{Project: "/nonexistent/p", Home: "/nonexistent/h", ConfigHome: "/nonexistent/x"}
	ps := Paths(w)
	for _, p := range ps {
		if _, ok := Match(p, w); !ok {
			t.Errorf("Paths lists %s, which Match does not protect", p)
		}
	}
	for _, want := range []string{"/nonexistent/p/.git/commondir", "/nonexistent/h/.tcshrc", "/nonexistent/x/guardsh", "/etc/zprofile"} {
		if !slices.Contains(ps, want) {
			t.Errorf("Paths lacks %s", want)
		}
	}
}

// TestPathsNestedRepositories: the git directory of a repository nested in
// the project (a vendored checkout) is kept read-only like the project's;
// one in node_modules or deeper than the search goes is not looked for.
func TestPathsNestedRepositories(t *testing.T) {
	p := t.TempDir()
	for _, d := range []string{".git", "vendor/lib/.git", "a/b/c/.git", "node_modules/x/.git", "a/b/c/d/e/.git"} {
		if err := os.MkdirAll(filepath.Join(p, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for _, q := range Paths(Where{Project: p}) {
		got[q] = true
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{".git/config", true}, {"vendor/lib/.git/config", true}, {"vendor/lib/.git/hooks", true},
		{"a/b/c/.git/config", true}, {"node_modules/x/.git/config", false}, {"a/b/c/d/e/.git/config", false},
	} {
		if got[filepath.Join(p, c.path)] != c.want {
			t.Errorf("Paths has %s: %v, want %v", c.path, !c.want, c.want)
		}
	}
}

// TestHooksPathProtected: the directory a repository's core.hooksPath
// names inside the project (husky's .husky/_) is protected like .git/hooks,
// for the rules (Match) and the kernel (Paths); one outside the project is
// not the session's to write and is left out.
func TestHooksPathProtected(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range []struct{ hooksPath, probe string }{
		{".husky/_", ".husky/_/pre-commit"},
		{"tools/hooks", "tools/hooks/post-checkout"},
		{"ABS/githooks", "githooks/pre-push"},
		{"/dev/null", ""},
		{".", ""},
		{"../outside", ""},
	} {
		t.Run(c.hooksPath, func(t *testing.T) {
			p := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", p).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			hp := strings.Replace(c.hooksPath, "ABS", p, 1)
			if out, err := exec.Command("git", "-C", p, "config", "core.hooksPath", hp).CombinedOutput(); err != nil {
				t.Fatalf("git config: %v %s", err, out)
			}
			w := Where{Project: p}
			if c.probe == "" {
				if d := HooksDir(p); d != "" {
					t.Errorf("HooksDir = %q, want none", d)
				}
				if _, ok := Match(filepath.Join(p, "src.go"), w); ok {
					t.Errorf("an ordinary project file is protected")
				}
				return
			}
			probe := filepath.Join(p, c.probe)
			if _, ok := Match(probe, w); !ok {
				t.Errorf("Match(%s) = false with core.hooksPath = %s", c.probe, hp)
			}
			if !slices.Contains(Paths(w), filepath.Dir(probe)) {
				t.Errorf("Paths lacks %s", filepath.Dir(probe))
			}
			if _, ok := Match(filepath.Join(p, "src.go"), w); ok {
				t.Errorf("an ordinary project file is protected")
			}
		})
	}
}

// TestHooksPathSpellings: HooksDir asks git only when the config file may
// set core.hooksPath; every spelling git accepts must still be seen (git
// itself is the oracle), and a file without the key costs no git start.
func TestHooksPathSpellings(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, cfg := range []string{
		"[core]\n\thooksPath = .husky/_\n",
		"[CORE]\n\tHOOKSPATH = .husky/_\n",
		"[Core]\nHooksPath=\".husky/_\"\n",
		"[core]\n\thooksPath = .hus\\\nky/_\n",
		"[core] hookspath = tools/hooks\n",
		"\ufeff[core]\n\thooksPath = tools/hooks\n",
		"[core]\n\tbare = false\n[core]\n\thooksPath = tools/hooks\n",
		"[core]\n\tbare = false\n\tfilemode = true\n",
		"[core \"hookspath\"]\n\tx = tools/hooks\n",
		"# hooksPath = tools/hooks\n[core]\n\tbare = false\n",
	} {
		p := t.TempDir()
		os.MkdirAll(filepath.Join(p, ".git"), 0o755)
		file := filepath.Join(p, ".git", "config")
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command("git", "config", "--file", file, "--get", "core.hooksPath").Output()
		want := strings.TrimSpace(string(out))
		if want != "" {
			want = filepath.Join(p, want)
		}
		if got := HooksDir(p); got != want {
			t.Errorf("config %q: HooksDir = %q, git says %q", cfg, got, want)
		}
		if want == "" && !strings.Contains(strings.ToLower(cfg), "hookspath") && mayNameHooksPath(file) {
			t.Errorf("config %q: git would be asked for a file without the key", cfg)
		}
	}
}
