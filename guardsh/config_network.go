package guardsh

import (
	"fmt"
	"slices"
)

// The [network] section (network.go decides with it):
//
//	[network]
//	profiles = ["registries", "github"]   # built-in host lists (NetProfiles)
//
//	[[network.allow]]
//	host = "*.example.com"                 # exact name, *.suffix, "*", an IP or a prefix
//	port = 443                             # optional: any port when absent
//
//	[[network.deny]]
//	host = "uploads.example.com"
//
// A project file (.guardsh.toml) may only narrow: its deny entries apply;
// its allow entries and profiles apply only when the user file trusts the
// project, and are ignored with a warning otherwise.

type fileNetwork struct {
	Profiles []string      `toml:"profiles"`
	Allow    []fileNetRule `toml:"allow"`
	Deny     []fileNetRule `toml:"deny"`
}

type fileNetRule struct {
	Host string `toml:"host"`
	Port *int   `toml:"port"`
}

func (c *Config) applyNetwork(file, src string, f *fileNetwork, project bool) error {
	if f == nil {
		return nil
	}
	trusted := !project || c.ProjectTrusted
	for i, name := range f.Profiles {
		rules, ok := profileRules(name)
		if !ok {
			l, col := locateKey(src, "network", 0, "profiles")
			return &ConfigError{file, l, col, fmt.Sprintf("network.profiles[%d]: unknown profile %q (known: %v)", i, name, ProfileNames())}
		}
		if !trusted {
			l, col := locateKey(src, "network", 0, "profiles")
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: network profile %q ignored: an untrusted project may only deny destinations", file, l, col, name))
			continue
		}
		if !slices.Contains(c.Network.Profiles, name) {
			c.Network.Profiles = append(c.Network.Profiles, name)
			c.Network.Rules = append(c.Network.Rules, rules...)
		}
	}
	for _, list := range []struct {
		key      string
		rules    []fileNetRule
		decision Decision
	}{{"deny", f.Deny, Deny}, {"allow", f.Allow, Allow}} {
		for i, r := range list.rules {
			l, col := locateKey(src, "network."+list.key, i, "host")
			if why := checkNetHost(normHost(r.Host)); why != "" {
				return &ConfigError{file, l, col, fmt.Sprintf("network.%s: %s", list.key, why)}
			}
			port := 0
			if r.Port != nil {
				if *r.Port < 1 || *r.Port > 65535 {
					pl, pc := locateKey(src, "network."+list.key, i, "port")
					return &ConfigError{file, pl, pc, fmt.Sprintf("network.%s: port %d is not a port (1-65535)", list.key, *r.Port)}
				}
				port = *r.Port
			}
			if list.decision == Allow && !trusted {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d:%d: [[network.allow]] %q ignored: an untrusted project may only deny destinations", file, l, col, r.Host))
				continue
			}
			c.Network.Rules = append(c.Network.Rules, NetRule{Host: normHost(r.Host), Port: port, Decision: list.decision, Source: fmt.Sprintf("%s:%d", file, l)})
		}
	}
	return nil
}
