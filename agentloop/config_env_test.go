package agentloop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentTomlEnvPointsToConfig: the secret-free environment lives in
// guardsh's config.toml ([env]); writing it in agent.toml is an error that
// says where it goes.
func TestAgentTomlEnvPointsToConfig(t *testing.T) {
	for _, content := range []string{"[env]\nscrub_secrets = false\n", "scrub_secrets = false\n", "model = \"x\"\nkeep = [\"GH_TOKEN\"]\n"} {
		dir := t.TempDir()
		p := filepath.Join(dir, "guardsh", "agent.toml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		_, err := LoadFileConfig(func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				return dir
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), "[env] of guardsh's config.toml") {
			t.Errorf("%q: err = %v", content, err)
		}
	}
}
