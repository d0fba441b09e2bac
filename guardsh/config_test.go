package guardsh

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadTestConfig loads the configuration of a fresh HOME whose project is
// ~/proj, from the user file user and the project file project (each
// written only if not empty); trust puts a trusted_projects line for
// ~/proj first in the user file.
func loadTestConfig(t *testing.T, user, project string, trust bool, env func(string) string) (*Config, error) {
	t.Helper()
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if trust {
		user = "trusted_projects = [\"~/proj\"]\n" + user
	}
	if user != "" {
		writeFile(t, filepath.Join(home, ".config", "guardsh", "config.toml"), user)
	}
	if project != "" {
		writeFile(t, filepath.Join(proj, ".guardsh.toml"), project)
	}
	return LoadConfig(home, proj, env)
}

// wantConfigError fails t unless err is a *ConfigError containing want.
func wantConfigError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want containing %q", err, want)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("err is %T, want *ConfigError", err)
	}
}

func TestLoadConfig(t *testing.T) {
	const goodUser = `mode = "auto"

[[rule]]
id = "user.make-test"
decision = "allow"
prefix = ["make", "test*"]
match = ["make test", "make test-unit V=1", "'make' \"test\""]
not_match = ["make install", "make"]

[[rule]]
id = "user.npm-install"
decision = "ask"
prefix = ["npm", "install"]
network = true
write = ["~/.npm"]
`
	tests := []struct {
		name    string
		user    string // "" = no file
		project string // "" = no file
		trust   bool   // add the project to trusted_projects
		wantErr string // substring; "" = no error
		// checks on success
		wantMode  Mode
		wantRules []string // IDs in order
		wantWarn  []string // substrings, one warning each
		check     func(t *testing.T, c *Config)
	}{
		{name: "no files", wantRules: nil},
		{
			name: "user file", user: goodUser, wantMode: ModeAuto,
			wantRules: []string{"user.make-test", "user.npm-install"},
			check: func(t *testing.T, c *Config) {
				r := c.Rules[1]
				if r.Decision != Ask || !r.Network || len(r.Write) != 1 || !strings.HasSuffix(r.Write[0], "/.npm") || !filepath.IsAbs(r.Write[0]) {
					t.Errorf("rule 2 = %+v", r)
				}
				if !strings.HasSuffix(r.Source, "config.toml:10") {
					t.Errorf("source = %q", r.Source)
				}
			},
		},
		{name: "syntax error", user: "mode = \"auto\"\n[[rule]\nid = 1\n", wantErr: "config.toml:2:7: expected end of table array"},
		{name: "unterminated string", user: "mode = \"auto\n", wantErr: "config.toml:1:13: strings cannot contain newlines"},
		{name: "wrong type", user: "\nmode = 3\n", wantErr: "config.toml:2:1: key \"mode\": incompatible types"},
		{name: "bad mode", user: "\n\nmode = \"yolo\"\n", wantErr: `config.toml:3:1: unknown mode "yolo"`},
		{name: "unknown key", user: "[[rule]]\nid = \"a\"\ndecison = \"deny\"\nprefix=[\"x\"]\n", wantErr: `config.toml:3:1: unknown key "rule.decison"`},
		{name: "unknown key second rule", user: "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix=[\"x\"]\n[[rule]]\nid = \"b\"\n  prefx = [\"y\"]\n", wantErr: `config.toml:7:3: unknown key "rule.prefx"`},
		{name: "missing id", user: "[[rule]]\ndecision = \"deny\"\nprefix=[\"x\"]\n", wantErr: "config.toml:1:1: rule 1 (no id): missing id"},
		{name: "bad decision", user: "[[rule]]\nid = \"a\"\ndecision = \"maybe\"\nprefix=[\"x\"]\n", wantErr: `config.toml:3:1: rule 1 (a): decision "maybe"`},
		{name: "missing prefix", user: "[[rule]]\nid = \"a\"\ndecision = \"deny\"\n", wantErr: "config.toml:1:1: rule 1 (a): missing prefix"},
		{name: "bad glob", user: "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix=[\"[x\"]\n", wantErr: "config.toml:4:1: rule 1 (a): prefix word"},
		{name: "duplicate id", user: "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix=[\"x\"]\n[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix=[\"y\"]\n", wantErr: `config.toml:6:1: rule 2 (a): duplicate id`},
		{name: "relative write in user file", user: "[[rule]]\nid = \"a\"\ndecision = \"ask\"\nprefix=[\"x\"]\nwrite=[\"out\"]\n", wantErr: "config.toml:5:1: rule 1 (a): write path"},
		{
			name:    "failing match example",
			user:    "[[rule]]\nid = \"a\"\ndecision = \"allow\"\nprefix = [\"make\", \"test\"]\nmatch = [\"make tests\"]\n",
			wantErr: `config.toml:5:1: rule 1 (a): example "make tests" does not match`,
		},
		{
			name:    "failing not_match example",
			user:    "[[rule]]\nid = \"a\"\ndecision = \"allow\"\nprefix = [\"make\"]\nnot_match = [\"make install\"]\n",
			wantErr: `config.toml:5:1: rule 1 (a): example "make install" matches`,
		},
		{
			name:    "example not a simple command",
			user:    "[[rule]]\nid = \"a\"\ndecision = \"allow\"\nprefix = [\"make\"]\nmatch = [\"make; make\"]\n",
			wantErr: "want exactly one simple command",
		},
		{
			name:    "example with expansion",
			user:    "[[rule]]\nid = \"a\"\ndecision = \"allow\"\nprefix = [\"make\"]\nmatch = [\"make $(id)\"]\n",
			wantErr: "literal words",
		},
		{
			name:    "program with a directory",
			user:    "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix = [\"./deploy.sh\"]\nmatch = [\"./deploy.sh prod\"]\n",
			wantErr: `config.toml:5:1: rule 1 (a): example "./deploy.sh prod" does not match prefix ["./deploy.sh"] (rules match the normalised argv, where a program is named without its directory: write "deploy.sh")`,
		},
		{
			name:      "examples are normalised like commands",
			user:      "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nprefix = [\"rm\", \"-rf\"]\nmatch = [\"/bin/rm -rf x\", \"sudo rm -rf x\", \"X=1 rm -rf y\"]\nnot_match = [\"rm -r x\"]\n",
			wantRules: []string{"a"},
		},
		{name: "relative trusted project", user: "trusted_projects = [\"src/x\"]\n", wantErr: "config.toml:1:1: trusted_projects"},
		{
			name:      "untrusted project tightens",
			project:   "[[rule]]\nid = \"proj.no-deploy\"\ndecision = \"deny\"\nprefix = [\"deploy.sh\"]\nmatch = [\"./deploy.sh prod\"]\n",
			wantRules: []string{"proj.no-deploy"},
		},
		{
			name:      "untrusted project trying to allow",
			user:      goodUser,
			project:   "[[rule]]\nid = \"proj.ask\"\ndecision = \"ask\"\nprefix = [\"make\"]\n\n[[rule]]\nid = \"proj.yolo\"\ndecision = \"allow\"\nprefix = [\"rm\"]\n",
			wantMode:  ModeAuto,
			wantRules: []string{"user.make-test", "user.npm-install", "proj.ask"},
			wantWarn:  []string{`.guardsh.toml:6:1: rule "proj.yolo" ignored: an untrusted project may only add deny and ask rules`},
		},
		{
			name:      "trusted project may allow",
			user:      goodUser,
			trust:     true,
			project:   "[[rule]]\nid = \"proj.yolo\"\ndecision = \"allow\"\nprefix = [\"make\", \"deploy\"]\nwrite = [\"build\"]\n",
			wantMode:  ModeAuto,
			wantRules: []string{"user.make-test", "user.npm-install", "proj.yolo"},
			check: func(t *testing.T, c *Config) {
				if !c.ProjectTrusted {
					t.Error("project not trusted")
				}
				if w := c.Rules[2].Write; len(w) != 1 || !strings.HasSuffix(w[0], "/proj/build") {
					t.Errorf("write = %q, want project-relative", w)
				}
			},
		},
		{
			name:      "untrusted project cannot grant rights",
			project:   "[[rule]]\nid = \"proj.curl\"\ndecision = \"ask\"\nprefix = [\"curl\"]\nnetwork = true\n",
			wantRules: []string{"proj.curl"},
			wantWarn:  []string{`rule "proj.curl": network/write rights ignored`},
			check: func(t *testing.T, c *Config) {
				if c.Rules[0].Network {
					t.Error("network right kept")
				}
			},
		},
		{
			name: "untrusted project loosens mode", user: goodUser, project: "mode = \"bypass\"\n",
			wantMode: ModeAuto, wantRules: []string{"user.make-test", "user.npm-install"},
			wantWarn: []string{`.guardsh.toml:1:1: mode "bypass" ignored`},
		},
		{
			name: "untrusted project tightens mode", user: goodUser, project: "mode = \"plan\"\n",
			wantMode: ModePlan, wantRules: []string{"user.make-test", "user.npm-install"},
		},
		{
			name: "project cannot trust itself", project: "trusted_projects = [\"/\"]\n[[rule]]\nid = \"p\"\ndecision = \"allow\"\nprefix = [\"x\"]\n",
			wantWarn: []string{"trusted_projects ignored", `rule "p" ignored`},
		},
		{name: "broken project file", project: "[[rule]]\nid = \"p\"\ndecision = \"deny\"\nprefix = [\"x\"\n", wantErr: ".guardsh.toml:"},
		{name: "bad project example", project: "[[rule]]\nid = \"p\"\ndecision = \"deny\"\nprefix = [\"x\"]\nmatch = [\"y\"]\n", wantErr: `.guardsh.toml:5:1: rule 1 (p): example "y" does not match`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadTestConfig(t, tt.user, tt.project, tt.trust, nil)
			if tt.wantErr != "" {
				wantConfigError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Mode != tt.wantMode {
				t.Errorf("mode = %q, want %q", c.Mode, tt.wantMode)
			}
			var ids []string
			for _, r := range c.Rules {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantRules, ",") {
				t.Errorf("rules = %q, want %q", ids, tt.wantRules)
			}
			if len(c.Warnings) != len(tt.wantWarn) {
				t.Errorf("warnings = %q, want %d", c.Warnings, len(tt.wantWarn))
			} else {
				for i, w := range tt.wantWarn {
					if !strings.Contains(c.Warnings[i], w) {
						t.Errorf("warning %d = %q, want containing %q", i, c.Warnings[i], w)
					}
				}
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestUserConfigPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, "/h/.config/guardsh/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/guardsh/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "rel"}, "/h/.config/guardsh/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "GUARDSH_CONFIG": "/c.toml"}, "/c.toml"},
	}
	for _, tt := range tests {
		if got := UserConfigPath("/h", env(tt.env)); got != tt.want {
			t.Errorf("env %v: got %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestLoadConfigXDG(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(xdg, "guardsh", "config.toml"), "mode = \"plan\"\n")
	c, err := LoadConfig(home, "", func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	})
	if err != nil || c.Mode != ModePlan {
		t.Fatalf("c = %+v, err = %v", c, err)
	}
}

func TestResolveMode(t *testing.T) {
	cfg := &Config{Mode: ModePlan, ModeSource: "cfg:1"}
	tests := []struct {
		cfg     *Config
		flag    string
		env     string
		want    Mode
		wantSrc string
		wantErr bool
	}{
		{nil, "", "", ModeDefault, "default", false},
		{cfg, "", "", ModePlan, "cfg:1", false},
		{cfg, "", "auto", ModeAuto, "GUARDSH_MODE", false},
		{cfg, "bypass", "auto", ModeBypass, "--mode", false},
		{cfg, "", "nope", "", "", true},
		{cfg, "nope", "", "", "", true},
	}
	for _, tt := range tests {
		m, src, err := tt.cfg.ResolveMode(tt.flag, func(string) string { return tt.env })
		if (err != nil) != tt.wantErr || m != tt.want || (!tt.wantErr && src != tt.wantSrc) {
			t.Errorf("flag %q env %q: got %q %q %v", tt.flag, tt.env, m, src, err)
		}
	}
}

func TestConfigPolicy(t *testing.T) {
	c := &Config{Rules: []Rule{{ID: "a", Decision: Deny, Prefix: []string{"x"}}}}
	p := c.Policy(ModeAuto)
	if p.Mode != ModeAuto || len(p.Rules) != 1 || p.Rules[0].ID != "a" {
		t.Fatalf("policy = %+v", p)
	}
}

// TestAuditLimitsConfig: [audit] max_session_mb, max_file_mb and keep set
// the log's bounds; bad values are errors with their place; a project
// file cannot set them.
func TestAuditLimitsConfig(t *testing.T) {
	c, err := loadTestConfig(t, "[audit]\nmax_session_mb = 2\nmax_file_mb = 8\nkeep = 5\n", "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.AuditLimits(), (AuditLimits{SessionBytes: 2 << 20, FileBytes: 8 << 20, Keep: 5}); got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
	c, err = loadTestConfig(t, "mode = \"auto\"\n", "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.AuditLimits(), (AuditLimits{DefaultAuditSessionBytes, DefaultAuditFileBytes, DefaultAuditKeep}); got != want {
		t.Errorf("default limits %+v, want %+v", got, want)
	}
	if got := (*Config)(nil).AuditLimits(); got.SessionBytes != DefaultAuditSessionBytes {
		t.Errorf("nil config limits %+v", got)
	}
	for _, bad := range []struct{ src, want string }{
		{"[audit]\nmax_session_mb = 0\n", "config.toml:2:1: audit.max_session_mb: 0 is not a size"},
		{"[audit]\nmax_file_mb = -3\n", "audit.max_file_mb: -3 is not a size"},
		{"[audit]\nkeep = 1000\n", "audit.keep: 1000 is not a number of files"},
		{"[audit]\nmax_session_mb = \"big\"\n", "max_session_mb"},
	} {
		_, err := loadTestConfig(t, bad.src, "", false, nil)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.src, err, bad.want)
		}
	}
	c, err = loadTestConfig(t, "", "[audit]\nmax_session_mb = 100000\n", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.AuditLimits().SessionBytes != DefaultAuditSessionBytes {
		t.Errorf("a project file set the audit cap: %+v", c.AuditLimits())
	}
}
