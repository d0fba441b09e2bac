package guardsh

import (
	"net/netip"
	"strings"
	"testing"
)

// TestNetworkPolicy: destinations by name and port, deny over allow,
// profiles, and special-purpose addresses reached only when named.
func TestNetworkPolicy(t *testing.T) {
	reg, _ := profileRules("registries")
	n := &NetworkPolicy{Rules: append([]NetRule{
		{Host: "*.example.com", Port: 443, Decision: Allow, Source: "u:3"},
		{Host: "bad.example.com", Decision: Deny, Source: "u:6"},
		{Host: "git.internal", Decision: Allow, Source: "u:9"},
		{Host: "10.9.0.0/16", Port: 8080, Decision: Allow, Source: "u:12"},
		{Host: "*", Port: 9418, Decision: Deny, Source: "u:15"},
	}, reg...)}
	tests := []struct {
		host string
		port int
		want Decision
		rule ruleID
	}{
		{"proxy.golang.org", 443, Allow, idNetHostAllowed},
		{"PROXY.golang.org.", 443, Allow, idNetHostAllowed},
		{"proxy.golang.org", 80, Ask, idNetHostUnlisted}, // profiles are 443 only
		{"a.example.com", 443, Allow, idNetHostAllowed},
		{"example.com", 443, Ask, idNetHostUnlisted}, // *.suffix is below it only
		{"evilexample.com", 443, Ask, idNetHostUnlisted},
		{"a.example.com", 80, Ask, idNetHostUnlisted},
		{"bad.example.com", 443, Deny, idNetHostDenied},
		{"git.internal", 22, Allow, idNetHostAllowed},
		{"github.com", 9418, Deny, idNetHostDenied},
		{"10.9.3.4", 8080, Allow, idNetHostAllowed},
		{"10.9.3.4", 80, Ask, idNetHostUnlisted},
		{"", 443, Deny, idNetHostDenied},
		{"[::1]", 443, Ask, idNetHostUnlisted},
	}
	for _, tt := range tests {
		v := n.Decide(tt.host, tt.port)
		if v.Decision != tt.want || v.Rule != tt.rule.String() {
			t.Errorf("%s:%d: %s [%s] %s, want %s [%s]", tt.host, tt.port, v.Decision, v.Rule, v.Reason, tt.want, tt.rule)
		}
		if v.Decision != Allow && (v.Reason == "" || v.Hint == "") {
			t.Errorf("%s:%d: verdict without reason or hint: %+v", tt.host, tt.port, v)
		}
	}
	addr := []struct {
		host, ip string
		port     int
		want     Decision
	}{
		{"proxy.golang.org", "142.250.1.1", 443, Allow},
		{"proxy.golang.org", "127.0.0.1", 443, Deny},    // a profile name resolving to loopback
		{"a.example.com", "169.254.169.254", 443, Deny}, // metadata service through a wildcard
		{"a.example.com", "::ffff:10.0.0.1", 443, Deny}, // mapped private address
		{"a.example.com", "100.64.1.1", 443, Deny},      // CGNAT
		{"a.example.com", "fd12::1", 443, Deny},         // unique local
		{"git.internal", "10.1.2.3", 22, Allow},         // named exactly by a user rule
		{"x.example.com", "10.9.3.4", 8080, Deny},       // port 8080 is not 443: Decide asks; the address rule alone does not allow
		{"a.example.com", "0.0.0.0", 443, Deny},         // unspecified
		{"a.example.com", "2002:7f00:1::1", 443, Deny},  // 6to4 embedding 127.0.0.1
		{"a.example.com", "93.184.216.34", 443, Allow},  // public
	}
	for _, a := range addr {
		v := n.Decide(a.host, a.port)
		v = n.Address(a.host, netip.MustParseAddr(a.ip), a.port, v)
		got := v.Decision
		if a.want == Deny && got == Deny && v.Rule != idNetPrivateAddress.String() && v.Rule != idNetHostDenied.String() {
			t.Errorf("%s -> %s: rule %s", a.host, a.ip, v.Rule)
		}
		if a.want == Allow && got != Allow || a.want == Deny && got == Allow {
			t.Errorf("%s -> %s:%d: %s [%s] %s, want %s", a.host, a.ip, a.port, got, v.Rule, v.Reason, a.want)
		}
	}
	// No policy: everything asks, special addresses are refused.
	var none *NetworkPolicy
	if v := none.Decide("pypi.org", 443); v.Decision != Ask {
		t.Errorf("nil policy: %+v", v)
	}
	if v := none.Address("localhost", netip.MustParseAddr("127.0.0.1"), 80, none.Decide("localhost", 80)); v.Decision != Deny {
		t.Errorf("nil policy, loopback: %+v", v)
	}
}

// TestNetworkConfig: the [network] section, its errors, and a project
// file that may only narrow.
func TestNetworkConfig(t *testing.T) {
	user := `[network]
profiles = ["registries"]

[[network.allow]]
host = "*.Corp.example"
port = 443

[[network.deny]]
host = "files.pythonhosted.org"
`
	c, err := loadTestConfig(t, user, "[[network.deny]]\nhost = \"pypi.org\"\n\n[[network.allow]]\nhost = \"*\"\n\n[network]\nprofiles = [\"github\"]\n", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := &c.Network
	for _, tt := range []struct {
		host string
		want Decision
	}{{"proxy.golang.org", Allow}, {"x.corp.example", Allow}, {"files.pythonhosted.org", Deny}, {"pypi.org", Deny}, {"github.com", Ask}, {"example.org", Ask}} {
		if v := n.Decide(tt.host, 443); v.Decision != tt.want {
			t.Errorf("%s: %s [%s], want %s", tt.host, v.Decision, v.Rule, tt.want)
		}
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, `[[network.allow]] "*" ignored`) || !strings.Contains(w, `network profile "github" ignored`) {
		t.Errorf("warnings:\n%s", w)
	}
	if v := n.Decide("files.pythonhosted.org", 443); !strings.Contains(v.Reason, "config.toml:9") {
		t.Errorf("deny reason does not name its rule's place: %s", v.Reason)
	}
	c, err = loadTestConfig(t, "", "[[network.allow]]\nhost = \"*\"\n", true, nil)
	if err != nil || c.Network.Decide("example.org", 443).Decision != Allow {
		t.Errorf("a trusted project's allow: %v %+v", err, c.Network)
	}
	for _, bad := range []struct{ src, want string }{
		{"[network]\nprofiles = [\"everything\"]\n", `unknown profile "everything"`},
		{"[[network.allow]]\nhost = \"a.*.com\"\n", "wildcard is only allowed as a whole first label"},
		{"[[network.allow]]\nhost = \"\"\n", "host is empty"},
		{"[[network.allow]]\nhost = \"10.0.0.0/33\"\n", "not an address prefix"},
		{"[[network.allow]]\nhost = \"a b\"\n", "not a host name"},
		{"[[network.allow]]\nhost = \"x.org\"\nport = 70000\n", "config.toml:3:1: network.allow: port 70000 is not a port"},
		{"[[network.allow]]\nhost = \"x.org\"\nproto = \"tcp\"\n", `unknown key "network.allow.proto"`},
	} {
		if _, err := loadTestConfig(t, bad.src, "", false, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.src, err, bad.want)
		}
	}
}

// TestNetProxyPolicy: with the session proxy, commands that ask only for
// using the network run (their connections are decided by destination);
// everything else they do is judged as before, and without the proxy
// nothing changes.
func TestNetProxyPolicy(t *testing.T) {
	home := "/home/u"
	cmd := func(line string) Command {
		return Command{Args: strings.Fields(line), Dir: "/home/u/proj", Project: "/home/u/proj", Home: home}
	}
	tests := []struct {
		line         string
		proxy, plain string // "decision rule" with and without the proxy
	}{
		{"curl -sSL https://go.dev/doc", "allow dev.routine", "ask net.command"},
		{"wget https://example.org/a.tgz", "allow dev.routine", "ask net.command"},
		{"git fetch origin", "allow", "ask git.network"},
		{"git pull", "allow", "ask git.network"},
		{"git clone https://x /opt/y", "ask write.outside-project", "ask git.network"},
		{"curl -o /etc/motd https://x", "ask write.outside-project", ""},
		{"ssh host", "ask net.remote-shell", "ask net.remote-shell"},
		{"git push origin main", "ask git.push", "ask git.push"},
		{"git push --force origin main", "deny git.push-force", "deny git.push-force"},
		{"kubectl delete pod x", "ask net.cloud", "ask net.cloud"},
		{"rsync -a src/ build/", "allow edit.project", "allow edit.project"},
		{"rsync -a src/ host:/srv/", "ask net.remote-shell", "ask net.remote-shell"},
	}
	for _, tt := range tests {
		for _, proxied := range []bool{true, false} {
			want := tt.plain
			if proxied {
				want = tt.proxy
			}
			if want == "" {
				continue
			}
			p := NewPolicy(ModeAuto)
			p.NetProxy = proxied
			v := p.Classify(cmd(tt.line))
			got := v.Decision.String() + " " + v.Rule
			if !strings.HasPrefix(got, want) {
				t.Errorf("%q (proxy %v): %s (%s), want %s", tt.line, proxied, got, v.Reason, want)
			}
			if proxied && v.Decision == Allow && !v.Effects.Network && strings.Contains(tt.line, "https") {
				t.Errorf("%q: allowed without the network effect", tt.line)
			}
		}
	}
}
