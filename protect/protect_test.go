package protect

import (
	"slices"
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
