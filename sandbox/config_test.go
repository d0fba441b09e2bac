package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNewConfig(t *testing.T) {
	proj := canon(t.TempDir())
	home := canon(t.TempDir())
	tmp := canon(t.TempDir())
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name          string
		project       string
		env           map[string]string
		wantRoots     []string
		wantProtected []string
		unix          bool
	}{
		{"defaults", proj, nil, []string{proj, tmp, "/tmp", "/var/tmp"},
			[]string{proj + "/.git/hooks", proj + "/.git/config", proj + "/.gitmodules", proj + "/.guardsh.toml", home + "/.bashrc", home + "/.ssh", home + "/.config/guardsh"}, false},
		{"/tmp read-only, extra writable", proj, map[string]string{"GUARDSH_SANDBOX_TMP": "0", "GUARDSH_SANDBOX_WRITE": "/opt/cache:relative:/"},
			[]string{proj, tmp, "/opt/cache"}, nil, false},
		{"/ is no project", "/", nil, []string{tmp, "/tmp", "/var/tmp"}, []string{home + "/.bashrc"}, false},
		{"home is no project", home, nil, []string{tmp, "/tmp", "/var/tmp"}, nil, false},
		{"an ancestor of home is no project", filepath.Dir(home), nil, []string{tmp, "/tmp", "/var/tmp"}, nil, false},
		{"unix sockets", proj, map[string]string{"GUARDSH_SANDBOX_UNIX": "1"}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConfig(tt.project, tmp, home, env(tt.env))
			if tt.wantRoots != nil && !slices.Equal(c.WritableRoots(), tt.wantRoots) {
				t.Errorf("roots %q, want %q", c.WritableRoots(), tt.wantRoots)
			}
			for _, p := range tt.wantProtected {
				if !slices.Contains(c.Protected, p) {
					t.Errorf("%s not protected: %q", p, c.Protected)
				}
			}
			if c.Unix != tt.unix {
				t.Errorf("Unix %v", c.Unix)
			}
		})
	}
}

func TestProtectedInsideAndMissing(t *testing.T) {
	proj := canon(t.TempDir())
	os.MkdirAll(filepath.Join(proj, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(proj, ".git", "config"), nil, 0o644)
	outsideHome := canon(t.TempDir())
	os.WriteFile(filepath.Join(outsideHome, ".bashrc"), nil, 0o644)
	c := NewConfig(proj, "", outsideHome, func(k string) string {
		if k == "GUARDSH_SANDBOX_TMP" {
			return "0"
		}
		return ""
	})
	if got, want := c.ProtectedInside(), []string{proj + "/.git/config", proj + "/.git/hooks"}; !slices.Equal(got, want) {
		t.Errorf("inside %q, want %q (the rc file is outside every writable root)", got, want)
	}
	want := []string{proj + "/.guardsh.toml", proj + "/.gitmodules", proj + "/.git/config.worktree", proj + "/.git/commondir",
		proj + "/.git/gitdir", proj + "/.git/objects/info/alternates", proj + "/.git/info/attributes"}
	if got := c.ProtectedMissing(); !slices.Equal(got, want) {
		t.Errorf("missing %q, want %q", got, want)
	}
	if c.GitDir() != proj+"/.git" {
		t.Errorf("GitDir %q", c.GitDir())
	}
	out := canon(t.TempDir())
	os.WriteFile(filepath.Join(out, "exists.txt"), nil, 0o644)
	r := c.With(Rights{Network: true, Writes: []string{out + "/exists.txt", out + "/new/deeper/file.txt", "relative", "/"}})
	if !r.Network || !slices.Equal(r.WritableRoots()[len(r.WritableRoots())-2:], []string{out + "/exists.txt", out}) || slices.Contains(c.WritableRoots(), out) {
		t.Errorf("With: %q (original %q)", r.WritableRoots(), c.WritableRoots())
	}
}

func TestProjectRoot(t *testing.T) {
	top := canon(t.TempDir())
	os.MkdirAll(filepath.Join(top, ".git"), 0o755)
	sub := filepath.Join(top, "a", "b")
	os.MkdirAll(sub, 0o755)
	if got := ProjectRoot(sub); got != top {
		t.Errorf("ProjectRoot(%s) = %s, want %s", sub, got, top)
	}
}
