package guardsh

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The [advisor] section: a local model's second opinion on the commands the
// rules allowed (off by default; docs/advisor.md).
//
//	[advisor]
//	enabled = true
//	model = "qwen2.5-coder:7b"           # required when enabled
//	host = "http://127.0.0.1:11434"      # default: $OLLAMA_HOST, else this
//	threshold = 70                       # refuse at >= 70%: 0..100 in steps of 10; 0 = dry run
//	timeout = "10s"                      # per rating, a Go duration
//
// A project file may only tighten unless the project is trusted: it may
// turn the advisor on (with the user's model and host) and lower the
// threshold. Its host, model and timeout, turning the advisor off and
// raising the threshold are ignored with a warning: a project must never
// choose where commands are sent.

// Advisor defaults.
const (
	DefaultAdvisorThreshold = 70
	DefaultAdvisorTimeout   = 10 * time.Second
	DefaultOllamaHost       = "http://127.0.0.1:11434"
)

type fileAdvisor struct {
	Enabled   *bool   `toml:"enabled"`
	Model     *string `toml:"model"`
	Host      *string `toml:"host"`
	Threshold any     `toml:"threshold"` // checked here, for a precise message
	Timeout   *string `toml:"timeout"`
}

// AdvisorConfig configures the advisor: the local model asked to rate every
// command the rules allowed.
type AdvisorConfig struct {
	// Enabled turns the advisor on; off by default.
	Enabled bool
	// Model is the Ollama model's name ("" unless configured).
	Model string
	// Host is the Ollama server as configured; "" means $OLLAMA_HOST, else
	// DefaultOllamaHost (see HostURL).
	Host string
	// Threshold is the percentage from which a rating refuses the command;
	// 0 means DefaultAdvisorThreshold unless DryRun is set (see Limit).
	Threshold int
	// DryRun is threshold = 0: every command the rules allowed is refused
	// without asking the model (Limit is 0).
	DryRun bool
	// Timeout bounds one rating; 0 means DefaultAdvisorTimeout (see Wait).
	Timeout time.Duration
	// Source is where the advisor was turned on ("file:line").
	Source string
}

// Limit returns the threshold in percent; 0 is the dry run.
func (a AdvisorConfig) Limit() int {
	if a.DryRun {
		return 0
	}
	if a.Threshold == 0 {
		return DefaultAdvisorThreshold
	}
	return a.Threshold
}

// Wait returns the timeout of one rating.
func (a AdvisorConfig) Wait() time.Duration {
	if a.Timeout == 0 {
		return DefaultAdvisorTimeout
	}
	return a.Timeout
}

// HostURL returns the Ollama server's base URL: the configured host, else
// $OLLAMA_HOST (looked up with env; nil: none), else DefaultOllamaHost. A
// host without a scheme is http; one without a port gets Ollama's 11434,
// as OLLAMA_HOST does.
func (a AdvisorConfig) HostURL(env func(string) string) (*url.URL, error) {
	h := a.Host
	if h == "" && env != nil {
		h = env("OLLAMA_HOST")
	}
	if strings.TrimSpace(h) == "" {
		h = DefaultOllamaHost
	}
	return ParseOllamaHost(h)
}

// ParseOllamaHost parses an Ollama host as OLLAMA_HOST is written:
// "http://host:port", "host:port", "host" (port 11434). https is refused:
// the advisor's client speaks plain HTTP (wire.go in guardsh/advisor).
func ParseOllamaHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	bare := !strings.Contains(s, "://")
	if bare {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err == nil && u.Scheme == "https" {
		return nil, fmt.Errorf("Ollama host %q: the advisor speaks plain http to a local server (reach a remote one through an SSH tunnel: ssh -L 11434:127.0.0.1:11434 HOST)", s)
	}
	if err != nil || u.Host == "" || u.Scheme != "http" || u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("bad Ollama host %q (want http://HOST:PORT, e.g. %q)", strings.TrimPrefix(s, "http://"), DefaultOllamaHost)
	}
	if bare && u.Port() == "" {
		u.Host += ":11434"
	}
	return u, nil
}

// applyAdvisor merges one file's [advisor] section into c.Advisor.
func (c *Config) applyAdvisor(file, src string, f *fileAdvisor, project bool) error {
	if f == nil {
		return nil
	}
	at := func(key string) (int, int) { return locateKey(src, "advisor", 0, key) }
	bad := func(key, format string, args ...any) error {
		l, col := at(key)
		return &ConfigError{file, l, col, "advisor." + key + ": " + fmt.Sprintf(format, args...)}
	}
	// Check every value first: a project file with a broken value is an
	// error too (guardsh never runs on a half-understood configuration).
	var next AdvisorConfig
	if f.Model != nil {
		m := strings.TrimSpace(*f.Model)
		if m == "" || strings.ContainsAny(m, " \t\n") {
			return bad("model", "%q is not a model name (e.g. model = \"qwen2.5-coder:7b\"; list yours with: ollama list)", *f.Model)
		}
		next.Model = m
	}
	if f.Host != nil {
		if _, err := ParseOllamaHost(*f.Host); err != nil {
			return bad("host", "%v", err)
		}
		next.Host = strings.TrimSpace(*f.Host)
	}
	if f.Threshold != nil {
		n, ok := f.Threshold.(int64)
		if !ok || n < 0 || n > 100 || n%10 != 0 {
			return bad("threshold", "%s: want an integer percent from 0 to 100 in steps of 10 (e.g. threshold = %d; 0 refuses every command the rules allowed, a dry run)", tomlValue(f.Threshold), DefaultAdvisorThreshold)
		}
		next.Threshold, next.DryRun = int(n), n == 0
	}
	if f.Timeout != nil {
		d, err := time.ParseDuration(strings.TrimSpace(*f.Timeout))
		if err != nil || d <= 0 || d > 10*time.Minute {
			return bad("timeout", "%q: want a duration from 1ms to 10m written like \"10s\" or \"1m30s\"", *f.Timeout)
		}
		next.Timeout = d
	}
	a := &c.Advisor
	if !project || c.ProjectTrusted {
		if f.Enabled != nil {
			a.Enabled = *f.Enabled
			if a.Enabled {
				l, _ := at("enabled")
				a.Source = fmt.Sprintf("%s:%d", file, l)
			}
		}
		if f.Model != nil {
			a.Model = next.Model
		}
		if f.Host != nil {
			a.Host = next.Host
		}
		if f.Threshold != nil {
			a.Threshold, a.DryRun = next.Threshold, next.DryRun
		}
		if f.Timeout != nil {
			a.Timeout = next.Timeout
		}
		if a.Enabled && a.Model == "" {
			l, _ := at("")
			return &ConfigError{file, l, 0, "[advisor] is enabled but names no model: add model = \"NAME\" (a model you pulled: ollama list), or set enabled = false"}
		}
		return nil
	}
	// An untrusted project: it may only tighten.
	warn := func(key, format string, args ...any) {
		l, col := at(key)
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: ", file, l, col)+fmt.Sprintf(format, args...))
	}
	const how = "only the user file, or a trusted project's, may"
	for _, k := range []struct {
		set  bool
		name string
	}{{f.Host != nil, "host"}, {f.Model != nil, "model"}, {f.Timeout != nil, "timeout"}} {
		if k.set {
			warn(k.name, "advisor.%s ignored: an untrusted project cannot choose where or how its commands are rated (%s)", k.name, how)
		}
	}
	if f.Enabled != nil {
		switch {
		case !*f.Enabled && a.Enabled:
			warn("enabled", "advisor.enabled = false ignored: an untrusted project cannot turn the advisor off (%s)", how)
		case *f.Enabled && !a.Enabled && a.Model == "":
			warn("enabled", "advisor.enabled = true ignored: the user file names no advisor model (add [advisor] model = \"NAME\" to it)")
		case *f.Enabled && !a.Enabled:
			a.Enabled = true
			l, _ := at("enabled")
			a.Source = fmt.Sprintf("%s:%d", file, l)
		}
	}
	if f.Threshold != nil {
		if next.Limit() <= a.Limit() {
			a.Threshold, a.DryRun = next.Threshold, next.DryRun
		} else {
			warn("threshold", "advisor.threshold = %d ignored: an untrusted project may only lower it (now %d; %s raise it)", next.Threshold, a.Limit(), how)
		}
	}
	return nil
}

// tomlValue writes a decoded TOML value back as it was written, roughly.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("%v", v)
}
