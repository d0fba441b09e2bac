package agentloop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// FileConfig is the agent's own configuration file, agent.toml beside
// guardsh's config.toml ($XDG_CONFIG_HOME/guardsh/agent.toml, by default
// ~/.config/guardsh/agent.toml):
//
//	model = "qwen2.5-coder:7b"
//	host = "http://127.0.0.1:11434"
//	num_ctx = 16384
//	max_steps = 40
//	test_cmd = "make check"      # instead of detecting one
//	clean_env = true             # commands start from an allow-listed environment, HOME of the run's own
//	env_allow = ["JAVA_HOME"]    # more variables a clean environment keeps
//
// What the agent shares with guardsh is configured in guardsh's own
// config.toml: the rules, the mode, and [env], the secret-free environment
// of the model's commands (on by default for the agent: scrub_secrets,
// keep, scrub).
type FileConfig struct {
	Model    string `toml:"model"`
	Host     string `toml:"host"`
	NumCtx   int    `toml:"num_ctx"`
	MaxSteps int    `toml:"max_steps"`
	TestCmd  string `toml:"test_cmd"`
	// CleanEnv starts the commands' environment from an allow-list, with
	// HOME in a directory of the run's own (--clean-env); nil: not set.
	CleanEnv *bool `toml:"clean_env"`
	// EnvAllow are more variables the clean environment keeps.
	EnvAllow []string `toml:"env_allow"`
	// Path is the file that was read ("" if none).
	Path string `toml:"-"`
}

// AgentConfigPath is where agent.toml is looked for.
func AgentConfigPath(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "guardsh", "agent.toml")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "guardsh", "agent.toml")
}

// LoadFileConfig reads agent.toml; a missing file is an empty config, an
// unreadable or unknown key is an error naming the file.
func LoadFileConfig(getenv func(string) string) (*FileConfig, error) {
	p := AgentConfigPath(getenv)
	c := &FileConfig{}
	md, err := toml.DecodeFile(p, c)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		if k == "env" || strings.HasPrefix(k, "env.") || k == "scrub_secrets" || k == "keep" || k == "scrub" {
			return nil, fmt.Errorf("%s: unknown key %q: the secret-free environment is configured in [env] of guardsh's config.toml (shared with guardsh), not in agent.toml", p, k)
		}
		return nil, fmt.Errorf("%s: unknown key %q (known: model, host, num_ctx, max_steps, test_cmd, clean_env, env_allow)", p, k)
	}
	for _, n := range c.EnvAllow {
		if n == "" || strings.ContainsAny(n, "= \t\n") {
			return nil, fmt.Errorf("%s: env_allow: %q is not a variable name", p, n)
		}
		if n == "HOME" {
			return nil, fmt.Errorf("%s: env_allow: HOME is always the run's own in a clean environment", p)
		}
	}
	c.Path = p
	return c, nil
}
