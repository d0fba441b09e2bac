package guardsh

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// The network by destination.
//
// Commands of a sandboxed session reach the network only through a proxy
// on the privileged side (sandbox.Proxy). The proxy asks NetworkPolicy
// about every connection a command opens, by the host name and port the
// client asked for (CONNECT host:port, or the URL of a plain HTTP
// request), and again, after it resolved the name itself, about every
// address it would dial: private, loopback, link-local and other
// special-purpose addresses are reached only when a rule names that host
// exactly or names the address.

// NetRule is one destination rule: a host pattern, an optional port, and
// what a connection that matches gets.
type NetRule struct {
	// Host is an exact name ("proxy.golang.org"), "*.suffix" (any name
	// below suffix, not suffix itself), "*" (any name), or an IP address
	// or prefix ("10.1.2.3", "fd00::/8").
	Host string
	// Port is the port the rule applies to; 0 means any.
	Port     int
	Decision Decision // Allow or Deny
	// Source is where the rule comes from: "file:line" or "profile NAME".
	Source string
}

// NetworkPolicy decides connections by destination.
type NetworkPolicy struct {
	// Rules in the order they were given; a deny rule that matches wins
	// over any allow rule.
	Rules []NetRule
	// Profiles are the names of the built-in profiles turned on (their
	// rules are in Rules too, with Source "profile NAME").
	Profiles []string
}

// NetVerdict is the decision on one destination.
type NetVerdict struct {
	Decision Decision
	Rule     string // the rule ID: net.host-allowed, net.host-unlisted ...
	Reason   string
	Hint     string
	// Source is the configuration that decided (a rule's Source); "" for
	// the default.
	Source string
	// Exact: an allow rule that names this very host (or address), not a
	// pattern or profile: only such a rule lets a name reach a private
	// address (NetworkPolicy.Address).
	Exact bool
}

// NetProfiles are the built-in destination profiles a configuration can
// turn on by name ([network] profiles = ["registries"]).
var NetProfiles = map[string][]string{
	// The package registries of the common toolchains, and what their
	// clients fetch besides the index (checksums, tarballs, wheels).
	"registries": {
		"proxy.golang.org", "sum.golang.org", "index.golang.org", "storage.googleapis.com",
		"registry.npmjs.org", "registry.yarnpkg.com",
		"pypi.org", "files.pythonhosted.org",
		"crates.io", "index.crates.io", "static.crates.io",
		"rubygems.org", "index.rubygems.org",
		"repo.maven.apache.org", "repo1.maven.org",
	},
	// GitHub: the web and API hosts, git over HTTPS, downloads.
	"github": {
		"github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
		"raw.githubusercontent.com", "*.githubusercontent.com", "ghcr.io", "pkg-containers.githubusercontent.com",
	},
}

// Decide returns the decision for a connection to host:port by name (or
// by address, when host is an IP literal). A matching deny rule wins;
// then a matching allow rule; otherwise the connection asks.
func (n *NetworkPolicy) Decide(host string, port int) NetVerdict {
	host = normHost(host)
	dest := hostPort(host, port)
	if host == "" {
		return NetVerdict{Decision: Deny, Rule: idNetHostDenied.String(), Reason: "a connection without a host name", Hint: "name the host you connect to"}
	}
	var allow *NetRule
	if n != nil {
		for i := range n.Rules {
			r := &n.Rules[i]
			if !r.matches(host, port) {
				continue
			}
			if r.Decision == Deny {
				return NetVerdict{Decision: Deny, Rule: idNetHostDenied.String(),
					Reason: fmt.Sprintf("%s %s: %s", idNetHostDenied.rule().Reason, r.Source, dest),
					Hint:   idNetHostDenied.rule().Hint, Source: r.Source}
			}
			if allow == nil || (!allow.exact(host) && r.exact(host)) {
				allow = r
			}
		}
	}
	if allow != nil {
		return NetVerdict{Decision: Allow, Rule: idNetHostAllowed.String(),
			Reason: fmt.Sprintf("%s %s: %s", idNetHostAllowed.rule().Reason, allow.Source, dest),
			Source: allow.Source, Exact: allow.exact(host)}
	}
	return NetVerdict{Decision: Ask, Rule: idNetHostUnlisted.String(),
		Reason: fmt.Sprintf("%s: %s", idNetHostUnlisted.rule().Reason, dest),
		Hint:   fmt.Sprintf("%s: [[network.allow]] host = %q, port = %d", idNetHostUnlisted.rule().Hint, host, port)}
}

// Address checks an address the proxy resolved host to (or the address
// host is) before it dials: special-purpose addresses (loopback, private,
// link-local, CGNAT, unique-local, multicast, unspecified ...) are reached
// only when the allow rule that let host through names it exactly, or an
// allow rule names the address or its prefix. v is Decide's verdict for
// host.
func (n *NetworkPolicy) Address(host string, addr netip.Addr, port int, v NetVerdict) NetVerdict {
	addr = addr.Unmap()
	if n != nil {
		// a deny rule naming the address or its prefix wins whatever name
		// led to it
		for i := range n.Rules {
			r := &n.Rules[i]
			if r.Decision == Deny && r.matchesAddr(addr, port) {
				return NetVerdict{Decision: Deny, Rule: idNetHostDenied.String(),
					Reason: fmt.Sprintf("%s %s: %s is %s", idNetHostDenied.rule().Reason, r.Source, hostPort(normHost(host), port), addr),
					Hint:   idNetHostDenied.rule().Hint, Source: r.Source}
			}
		}
	}
	if !specialAddr(addr) {
		return v
	}
	if n != nil {
		for i := range n.Rules {
			r := &n.Rules[i]
			if r.Decision == Allow && r.matchesAddr(addr, port) {
				return v
			}
		}
	}
	if v.Decision == Allow && v.Exact {
		return v
	}
	return NetVerdict{Decision: Deny, Rule: idNetPrivateAddress.String(),
		Reason: fmt.Sprintf("%s: %s is %s", idNetPrivateAddress.rule().Reason, hostPort(normHost(host), port), addr),
		Hint:   fmt.Sprintf("%s: [[network.allow]] host = %q (the name exactly, or the address)", idNetPrivateAddress.rule().Hint, normHost(host))}
}

func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

// normHost lowers a host name, drops a trailing dot and IPv6 brackets.
func normHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

func (r *NetRule) matches(host string, port int) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return r.matchesAddr(a, port)
	}
	switch p := r.Host; {
	case p == "*":
		return true
	case strings.HasPrefix(p, "*."):
		return strings.HasSuffix(host, p[1:])
	default:
		return p == host
	}
}

// sessionSource is the Source of the rules AllowForSession adds.
const sessionSource = "allowed for this session"

// exact: the rule names host itself, in a configuration file (a profile
// or a session approval of a name is not one).
func (r *NetRule) exact(host string) bool {
	return r.Host == host && !strings.HasPrefix(r.Source, "profile ") && r.Source != sessionSource
}

// AllowForSession adds the rule a human's approval of host:port for the
// session is: the name (normalised as Decide does) and port, not the
// special-purpose addresses it may resolve to (DNS can change its answer
// after the approval).
func (n *NetworkPolicy) AllowForSession(host string, port int) {
	n.Rules = append(n.Rules, NetRule{Host: normHost(host), Port: port, Decision: Allow, Source: sessionSource})
}

func (r *NetRule) matchesAddr(a netip.Addr, port int) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	a = a.Unmap().WithZone("") // a zone names an interface, not another address
	if pfx, err := netip.ParsePrefix(r.Host); err == nil {
		return pfx.Contains(a)
	}
	if ra, err := netip.ParseAddr(r.Host); err == nil {
		return ra.Unmap() == a
	}
	return false
}

// specialAddr reports an address that is not a public unicast address:
// the host's own and its networks' services live there.
func specialAddr(a netip.Addr) bool {
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range specialPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("::ffff:0:0/96"),   // mapped (Unmap handles most)
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): embeds IPv4 addresses
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, cloud metadata
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds IPv4 addresses
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: embeds IPv4 addresses
	netip.MustParsePrefix("2001::/32"),       // Teredo: embeds IPv4 addresses
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
}

// checkNetHost reports why a rule's host pattern is not one, "" if it is.
func checkNetHost(h string) string {
	switch {
	case h == "":
		return "host is empty"
	case h == "*":
		return ""
	case strings.Contains(h, "/"):
		if _, err := netip.ParsePrefix(h); err != nil {
			return fmt.Sprintf("%q is not an address prefix (%v)", h, err)
		}
		return ""
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return ""
	}
	name := strings.TrimPrefix(h, "*.")
	if strings.Contains(name, "*") {
		return fmt.Sprintf("%q: a wildcard is only allowed as a whole first label (*.example.com)", h)
	}
	if name == "" || len(name) > 253 {
		return fmt.Sprintf("%q is not a host name", h)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Sprintf("%q is not a host name", h)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Sprintf("%q is not a host name (lower-case letters, digits, - and _)", h)
			}
		}
	}
	return ""
}

// profileRules returns the rules of the built-in profile name.
func profileRules(name string) ([]NetRule, bool) {
	hosts, ok := NetProfiles[name]
	if !ok {
		return nil, false
	}
	var out []NetRule
	for _, h := range hosts {
		out = append(out, NetRule{Host: h, Port: 443, Decision: Allow, Source: "profile " + name})
	}
	return out, true
}

// ProfileNames lists the built-in profiles, sorted.
func ProfileNames() []string {
	var out []string
	for k := range NetProfiles {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
