package guardsh

import (
	"errors"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	base := []string{
		"PATH=/usr/bin", "HOME=/home/u", "TERM=xterm", "PWD=/p", "OLDPWD=/q", "SSH_AUTH_SOCK=/tmp/ssh/agent.1",
		"GUARDSH_MODE=auto", "GUARDSH_CONFIG=/c", "GUARDSH_SANDBOX_RUN=x", "GUARDSH_SANDBOX_BROKER_FD=3", "GUARDSH_SANDBOX_FILES=audit:4",
		"LANG=C.UTF-8", "GOPATH=/go", "EDITOR=vi", "TOKENIZERS_PARALLELISM=false", "GIT_ASKPASS=/bin/true",
		"KEYTIMEOUT=1", "USER=u", "OLLAMA_HOST=127.0.0.1",
	}
	secrets := []string{
		"GH_TOKEN=ghp_1", "GITHUB_TOKEN=ghp_2", "gh_host=github.com", "AWS_SECRET_ACCESS_KEY=a", "AWS_REGION=eu",
		"OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-ant", "npm_token=x", "Stripe_Secret=y", "SIGNING_KEY=z",
		"PGPASSWORD=p", "MY_PASSWORD_FILE=/f", "DB_PASSWD=p", "SMTP_PASS=p", "MYSQL_PWD=p", "SECRET_KEY_BASE=s",
		"GOOGLE_API_KEY_ID=g", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "JWT_PRIVATE_KEY_PATH=/k", "MINIO_ACCESS_KEY_ID=m",
		"GPG_PASSPHRASE=x", "NPM_CONFIG__AUTH=x", "AZURE_STORAGE_CONNECTION_STRING=x", "SLACK_WEBHOOK_URL=https://hooks/x",
		"GH_TOKEN_FILE=/t", "SENTRY_DSN=https://key@sentry.io/1", "DATABASE_URL=postgres://app:hunter2@db:5432/app", "REDIS_URL=redis://:pw@localhost:6379",
	}
	harmlessURLs := []string{"HTTP_PROXY=http://proxy:3128", "REPO=https://github.com/a/b", "ORIGIN=ssh://git@github.com/a/b.git"}
	env := slices.Concat(base, secrets, harmlessURLs)
	names := func(list []string) []string {
		var out []string
		for _, kv := range list {
			n, _, _ := strings.Cut(kv, "=")
			out = append(out, n)
		}
		return out
	}
	tests := []struct {
		name        string
		cfg         *EnvConfig
		wantRemoved []string
	}{
		{"defaults", &EnvConfig{}, names(secrets)},
		{"nil config: defaults", nil, names(secrets)},
		{"keep by name and glob, case-insensitively", &EnvConfig{Keep: []string{"gh_token", "AWS_*", "DATABASE_URL"}},
			slices.DeleteFunc(names(secrets), func(n string) bool {
				return n == "GH_TOKEN" || strings.HasPrefix(n, "AWS_") || n == "DATABASE_URL"
			})},
		{"extra scrub patterns", &EnvConfig{Extra: []string{"LANG", "go*", "*_HOST"}},
			// OLLAMA_HOST matches *_HOST; GOPATH go*; LANG itself.
			append([]string{"LANG", "GOPATH", "OLLAMA_HOST"}, names(secrets)...)},
		{"a glob matching everything still keeps what the session needs", &EnvConfig{Extra: []string{"*"}},
			slices.DeleteFunc(names(env), func(n string) bool { return neverScrubbed(n) })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, removed := tt.cfg.Scrub(env)
			slices.Sort(removed)
			want := slices.Clone(tt.wantRemoved)
			slices.Sort(want)
			if !slices.Equal(removed, want) {
				t.Errorf("removed = %q\nwant      %q", removed, want)
			}
			if len(kept)+len(removed) != len(env) {
				t.Errorf("kept %d + removed %d != %d", len(kept), len(removed), len(env))
			}
			for _, kv := range kept {
				n, _, _ := strings.Cut(kv, "=")
				if slices.Contains(removed, n) {
					t.Errorf("%s both kept and removed", n)
				}
			}
			for _, n := range removed {
				if strings.Contains(n, "=") {
					t.Errorf("removed holds a value: %q", n)
				}
			}
			for _, must := range []string{"PATH", "HOME", "TERM", "PWD", "GUARDSH_MODE", "GUARDSH_SANDBOX_BROKER_FD", "GUARDSH_SANDBOX_RUN", "GUARDSH_SANDBOX_FILES"} {
				if slices.Contains(removed, must) {
					t.Errorf("%s removed", must)
				}
			}
		})
	}
	// Defaults never touch the variables that make a session work.
	_, removed := (&EnvConfig{}).Scrub(base)
	if len(removed) != 0 {
		t.Errorf("defaults removed %q from the harmless base", removed)
	}
	// Duplicates are named once.
	_, removed = (&EnvConfig{}).Scrub([]string{"A_TOKEN=1", "A_TOKEN=2"})
	if !slices.Equal(removed, []string{"A_TOKEN"}) {
		t.Errorf("duplicates: %q", removed)
	}
}

func TestScrubOn(t *testing.T) {
	on, off := true, false
	for _, tt := range []struct {
		c    *EnvConfig
		def  bool
		want bool
	}{
		{nil, false, false}, {nil, true, true}, {&EnvConfig{}, true, true},
		{&EnvConfig{ScrubSecrets: &off}, true, false}, {&EnvConfig{ScrubSecrets: &on}, false, true},
	} {
		if got := tt.c.ScrubOn(tt.def); got != tt.want {
			t.Errorf("%+v.ScrubOn(%v) = %v", tt.c, tt.def, got)
		}
	}
}

func TestConfigEnv(t *testing.T) {
	tests := []struct {
		name      string
		user      string
		project   string
		trust     bool
		wantErr   string // "file:line:col: msg" substring
		wantOn    *bool  // nil: unset
		wantKeep  []string
		wantExtra []string
		wantWarn  []string
	}{
		{name: "none"},
		{name: "user on with keep and scrub", user: "[env]\nscrub_secrets = true\nkeep = [\"GH_TOKEN\", \"NPM_*\"]\nscrub = [\"ACME_*\"]\n",
			wantOn: ptr(true), wantKeep: []string{"GH_TOKEN", "NPM_*"}, wantExtra: []string{"ACME_*"}},
		{name: "user off", user: "[env]\nscrub_secrets = false\n", wantOn: ptr(false)},
		{name: "untrusted project may turn on and add scrub", user: "[env]\nscrub_secrets = false\n",
			project: "[env]\nscrub_secrets = true\nscrub = [\"ACME_*\"]\n", wantOn: ptr(true), wantExtra: []string{"ACME_*"}},
		{name: "untrusted project may not turn off nor keep", user: "[env]\nscrub_secrets = true\nkeep = [\"A\"]\n",
			project: "\n[env]\nscrub_secrets = false\nkeep = [\"GH_TOKEN\"]\n", wantOn: ptr(true), wantKeep: []string{"A"},
			wantWarn: []string{".guardsh.toml:3:1: env.scrub_secrets = false ignored", ".guardsh.toml:4:1: env.keep GH_TOKEN ignored"}},
		{name: "trusted project may turn off and keep", user: "[env]\nscrub_secrets = true\n",
			project: "[env]\nscrub_secrets = false\nkeep = [\"GH_TOKEN\"]\n", trust: true, wantOn: ptr(false), wantKeep: []string{"GH_TOKEN"}},
		{name: "bad glob", user: "[env]\nkeep = [\"OK\",\n  \"BAD[\"]\n", wantErr: "config.toml:3:3: env.keep: \"BAD[\" is not a valid glob"},
		{name: "assignment is not a pattern", user: "[env]\nscrub = [\"A=b\"]\n", wantErr: "config.toml:2:10: env.scrub: \"A=b\" is not a variable name pattern"},
		{name: "empty pattern", user: "[env]\nscrub = [\"\"]\n", wantErr: "config.toml:2:10: env.scrub: empty pattern"},
		{name: "bad pattern in a project file", project: "[env]\nscrub = ['x y']\n", wantErr: ".guardsh.toml:2:10: env.scrub"},
		{name: "PATH is never scrubbed", user: "[env]\nscrub = [\"PATH\"]\n", wantErr: "config.toml:2:10: env.scrub: PATH is never scrubbed"},
		{name: "unknown key", user: "[env]\nscrub_secret = true\n", wantErr: "config.toml:2:1: unknown key \"env.scrub_secret\""},
		{name: "wrong type", user: "[env]\nscrub_secrets = \"yes\"\n", wantErr: "config.toml:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
			user := tt.user
			if tt.trust {
				user = "trusted_projects = [\"" + proj + "\"]\n" + user
				// keep the [env] line numbers of the tests that do not trust
			}
			if user != "" {
				writeFile(t, filepath.Join(home, ".config", UserConfigFile), user)
			}
			if tt.project != "" {
				writeFile(t, filepath.Join(proj, ProjectConfigFile), tt.project)
			}
			c, err := LoadConfig(home, proj, nil)
			if tt.wantErr != "" {
				var ce *ConfigError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ce) {
					t.Fatalf("err = %v, want a ConfigError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.Env.ScrubSecrets
			if (got == nil) != (tt.wantOn == nil) || got != nil && *got != *tt.wantOn {
				t.Errorf("ScrubSecrets = %v, want %v", deref(got), deref(tt.wantOn))
			}
			if got != nil && !strings.Contains(c.Env.Source, ":") {
				t.Errorf("Source = %q", c.Env.Source)
			}
			if !slices.Equal(c.Env.Keep, tt.wantKeep) || !slices.Equal(c.Env.Extra, tt.wantExtra) {
				t.Errorf("keep %q extra %q, want %q %q", c.Env.Keep, c.Env.Extra, tt.wantKeep, tt.wantExtra)
			}
			if len(c.Warnings) != len(tt.wantWarn) {
				t.Fatalf("warnings = %q, want %q", c.Warnings, tt.wantWarn)
			}
			for i, w := range tt.wantWarn {
				if !strings.Contains(c.Warnings[i], w) {
					t.Errorf("warning %d = %q, want containing %q", i, c.Warnings[i], w)
				}
			}
		})
	}
}

func ptr(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

func TestScrubSession(t *testing.T) {
	out, names := (&EnvConfig{}).ScrubSession([]string{"A_TOKEN=1", EnvScrubbedVar + "=OLD_KEY,B_TOKEN", "B_TOKEN=2", "PATH=/bin"})
	if !slices.Equal(names, []string{"OLD_KEY", "B_TOKEN", "A_TOKEN"}) {
		t.Errorf("names %q", names)
	}
	if !slices.Equal(out, []string{"PATH=/bin", EnvScrubbedVar + "=OLD_KEY,B_TOKEN,A_TOKEN"}) {
		t.Errorf("out %q", out)
	}
	if _, names := (&EnvConfig{}).ScrubSession([]string{"PATH=/bin"}); names == nil || len(names) != 0 {
		t.Errorf("nothing removed: %#v", names)
	}
}

// BenchmarkScrub is the start-up cost of scrubbing a typical environment
// (60 variables).
func BenchmarkScrub(b *testing.B) {
	env := []string{"PATH=/usr/bin", "HOME=/h", "GH_TOKEN=x", "DATABASE_URL=postgres://a:b@c/d"}
	for i := range 56 {
		env = append(env, "SOME_ORDINARY_VARIABLE_"+strings.Repeat("X", i%7)+"="+strings.Repeat("v", 40))
	}
	e := &EnvConfig{Keep: []string{"NPM_*"}, Extra: []string{"ACME_*"}}
	for b.Loop() {
		e.Scrub(env)
	}
}

// globFold matches a name already lower-cased against pattern p,
// ignoring case, through the compiled glob Scrub uses.
func globFold(p, lower string) bool { return compileGlob(p).match(lower) }

func TestGlobFold(t *testing.T) {
	for _, p := range []string{"*_TOKEN", "*PASSWORD*", "AWS_*", "OPENAI_API_KEY", "*", "**", "a*b*c", "*_TOKEN_*", "x*", "*x", "GH_[A-Z]*", "a?c", "*SECRET*"} {
		for _, name := range []string{"gh_token", "a_token_b", "pgpassword", "aws_region", "openai_api_key", "abc", "axbyc", "ac", "abbc", "x", "", "secret", "my_secret_key", "_token", "gh_host", "token"} {
			want, _ := path.Match(strings.ToLower(p), name)
			if got := globFold(p, name); got != want {
				t.Errorf("globFold(%q, %q) = %v, path.Match says %v", p, name, got, want)
			}
		}
	}
}
