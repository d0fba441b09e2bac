package guardsh

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAdvisorConfig(t *testing.T) {
	const user = "[advisor]\nenabled = true\nmodel = \"m:1b\"\nhost = \"http://10.0.0.1:1234\"\nthreshold = 80\ntimeout = \"3s\"\n"
	tests := []struct {
		name     string
		user     string // "" = no file
		project  string // "" = no file
		trust    bool
		env      map[string]string
		wantErr  string // substring, with file:line[:col]
		want     AdvisorConfig
		wantHost string
		wantWarn []string
	}{
		{name: "off by default", want: AdvisorConfig{}, wantHost: DefaultOllamaHost},
		{name: "OLLAMA_HOST is the default host", env: map[string]string{"OLLAMA_HOST": "gpu-box"}, wantHost: "http://gpu-box:11434"},
		{name: "user file", user: user, wantHost: "http://10.0.0.1:1234",
			want: AdvisorConfig{Enabled: true, Model: "m:1b", Host: "http://10.0.0.1:1234", Threshold: 80, Timeout: 3 * time.Second, Source: "config.toml:2"}},
		{name: "defaults", user: "[advisor]\nenabled = true\nmodel = \"m\"\n",
			want: AdvisorConfig{Enabled: true, Model: "m", Source: "config.toml:2"}, wantHost: DefaultOllamaHost},
		{name: "model required", user: "\n[advisor]\nenabled = true\n", wantErr: "config.toml:2: [advisor] is enabled but names no model"},
		{name: "disabled needs no model", user: "[advisor]\nenabled = false\nthreshold = 50\n", want: AdvisorConfig{Threshold: 50}, wantHost: DefaultOllamaHost},
		{name: "threshold not a step", user: "[advisor]\nmodel = \"m\"\n  threshold = 75\n", wantErr: "config.toml:3:3: advisor.threshold: 75: want an integer percent from 0 to 100 in steps of 10"},
		{name: "threshold 0 is the dry run", user: "[advisor]\nthreshold = 0\n", want: AdvisorConfig{DryRun: true}, wantHost: DefaultOllamaHost},
		{name: "threshold too low", user: "[advisor]\nthreshold = -10\n", wantErr: "config.toml:2:1: advisor.threshold: -10:"},
		{name: "untrusted project may turn on the dry run", user: "[advisor]\nmodel = \"m\"\n", project: "[advisor]\nenabled = true\nthreshold = 0\n",
			want: AdvisorConfig{Enabled: true, Model: "m", DryRun: true, Source: ".guardsh.toml:2"}, wantHost: DefaultOllamaHost},
		{name: "threshold too high", user: "[advisor]\nthreshold = 110\n", wantErr: "config.toml:2:1: advisor.threshold: 110:"},
		{name: "threshold float", user: "[advisor]\nthreshold = 70.5\n", wantErr: "config.toml:2:1: advisor.threshold: 70.5:"},
		{name: "threshold string", user: "[advisor]\nthreshold = \"70%\"\n", wantErr: `config.toml:2:1: advisor.threshold: "70%":`},
		{name: "bad timeout", user: "[advisor]\ntimeout = \"10\"\n", wantErr: `config.toml:2:1: advisor.timeout: "10": want a duration`},
		{name: "negative timeout", user: "[advisor]\ntimeout = \"-1s\"\n", wantErr: `config.toml:2:1: advisor.timeout: "-1s"`},
		{name: "bad host", user: "[advisor]\nhost = \"ftp://x\"\n", wantErr: `config.toml:2:1: advisor.host: bad Ollama host`},
		{name: "empty model", user: "[advisor]\nmodel = \"\"\n", wantErr: `config.toml:2:1: advisor.model: "" is not a model name`},
		{name: "enabled not a bool", user: "[advisor]\nenabled = \"yes\"\n", wantErr: `config.toml:2:`},
		{name: "unknown key", user: "[advisor]\nmodle = \"m\"\n", wantErr: `config.toml:2:1: unknown key "advisor.modle"`},
		{
			name: "untrusted project turns it on and lowers the threshold", user: "[advisor]\nmodel = \"m\"\n",
			project: "[advisor]\nenabled = true\nthreshold = 40\n",
			want:    AdvisorConfig{Enabled: true, Model: "m", Threshold: 40, Source: ".guardsh.toml:2"}, wantHost: DefaultOllamaHost,
		},
		{
			name: "untrusted project may not choose host, model, timeout, or loosen", user: user,
			project:  "[advisor]\nenabled = false\nmodel = \"evil\"\nhost = \"http://attacker:80\"\ntimeout = \"1ms\"\nthreshold = 100\n",
			want:     AdvisorConfig{Enabled: true, Model: "m:1b", Host: "http://10.0.0.1:1234", Threshold: 80, Timeout: 3 * time.Second, Source: "config.toml:2"},
			wantHost: "http://10.0.0.1:1234",
			wantWarn: []string{".guardsh.toml:4:1: advisor.host ignored", ".guardsh.toml:3:1: advisor.model ignored", ".guardsh.toml:5:1: advisor.timeout ignored",
				".guardsh.toml:2:1: advisor.enabled = false ignored", ".guardsh.toml:6:1: advisor.threshold = 100 ignored"},
		},
		{
			name: "untrusted project cannot choose the host even when the user did not", project: "[advisor]\nhost = \"attacker\"\n",
			env: map[string]string{"OLLAMA_HOST": "127.0.0.1:5"}, wantHost: "http://127.0.0.1:5",
			wantWarn: []string{"advisor.host ignored"},
		},
		{
			name: "untrusted project enabling without a user model is a warning", project: "[advisor]\nenabled = true\n",
			wantHost: DefaultOllamaHost, wantWarn: []string{"advisor.enabled = true ignored: the user file names no advisor model"},
		},
		{
			name: "trusted project may loosen", user: user, trust: true,
			project:  "[advisor]\nmodel = \"other\"\nthreshold = 90\nhost = \"127.0.0.1:9\"\n",
			want:     AdvisorConfig{Enabled: true, Model: "other", Host: "127.0.0.1:9", Threshold: 90, Timeout: 3 * time.Second, Source: "config.toml:2"},
			wantHost: "http://127.0.0.1:9",
		},
		{name: "broken project value is an error", user: user, project: "[advisor]\nthreshold = 5\n", wantErr: ".guardsh.toml:2:1: advisor.threshold: 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := func(k string) string { return tt.env[k] }
			c, err := loadTestConfig(t, tt.user, tt.project, tt.trust, env)
			if tt.wantErr != "" {
				wantConfigError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.Advisor
			if got.Source != "" {
				if tt.trust && strings.HasSuffix(got.Source, "config.toml:3") {
					got.Source = "config.toml:2" // the trusted_projects line came first
				}
				got.Source = filepath.Base(got.Source)
			}
			if got != tt.want {
				t.Errorf("advisor = %+v, want %+v", got, tt.want)
			}
			u2, err := c.Advisor.HostURL(env)
			if err != nil || u2.String() != tt.wantHost {
				t.Errorf("host = %v, %v; want %s", u2, err, tt.wantHost)
			}
			if len(c.Warnings) != len(tt.wantWarn) {
				t.Fatalf("warnings = %q, want %d", c.Warnings, len(tt.wantWarn))
			}
			for i, w := range tt.wantWarn {
				if !strings.Contains(c.Warnings[i], w) {
					t.Errorf("warning %d = %q, want containing %q", i, c.Warnings[i], w)
				}
			}
		})
	}
}

func TestAdvisorConfigDefaults(t *testing.T) {
	var a AdvisorConfig
	if a.Limit() != 70 || a.Wait() != 10*time.Second {
		t.Errorf("defaults = %d, %v", a.Limit(), a.Wait())
	}
	for in, want := range map[string]string{
		"localhost":          "http://localhost:11434",
		"127.0.0.1:8080":     "http://127.0.0.1:8080",
		"http://box/prefix":  "http://box/prefix",
		"http://[::1]:11434": "http://[::1]:11434",
	} {
		u, err := ParseOllamaHost(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseOllamaHost(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, in := range []string{"", "ftp://x", "http://", "http://user:pw@h:1", "https://ollama.example", "http://h:1/?q=1"} {
		if _, err := ParseOllamaHost(in); err == nil {
			t.Errorf("ParseOllamaHost(%q) accepted", in)
		}
	}
}
