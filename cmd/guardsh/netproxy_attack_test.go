package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/sandbox/proxy"
)

// TestSessionProxyAddresses: the session's proxy with the real
// NetworkPolicy and a fake resolver: names allowed by a pattern, "*" or a
// profile never reach loopback, link-local or private addresses; a deny
// rule by address applies to what a name resolves to; nothing is dialled
// but 127.0.0.1 (a stand-in dialler records what would be dialled).
func TestSessionProxyAddresses(t *testing.T) {
	n := &guardsh.NetworkPolicy{Rules: []guardsh.NetRule{
		{Host: "*.corp.test", Decision: guardsh.Allow, Source: "u:1"},
		{Host: "*", Port: 8080, Decision: guardsh.Allow, Source: "u:2"},
		{Host: "named.test", Decision: guardsh.Allow, Source: "u:3"},
		{Host: "8.8.4.0/24", Decision: guardsh.Deny, Source: "u:4"},
	}}
	p := sessionProxy(n, nil, "")
	defer p.Close()
	p.Ask = func(proxy.Dest, proxy.Verdict) bool { return false } // nobody at a terminal, even under go test in one
	hosts := map[string]string{
		"meta.corp.test": "169.254.169.254", "lo.corp.test": "127.0.0.1", "mapped.corp.test": "::ffff:127.0.0.1",
		"rebind.test": "10.0.0.1", "named.test": "127.0.0.1", "cdn.corp.test": "8.8.4.4", "compat.corp.test": "::127.0.0.1",
		"2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", // what getaddrinfo's inet_aton makes of them
	}
	p.Resolve = func(_ context.Context, h string) ([]netip.Addr, error) {
		if a, ok := hosts[h]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, fmt.Errorf("no such host")
	}
	var dialled []netip.AddrPort
	p.Dial = func(_ context.Context, ap netip.AddrPort) (net.Conn, error) {
		dialled = append(dialled, ap)
		return nil, fmt.Errorf("not dialled in this test")
	}
	tests := []struct {
		target string
		dial   bool // the proxy would dial (its decision was allow)
	}{
		{"meta.corp.test:80", false},
		{"lo.corp.test:443", false},
		{"mapped.corp.test:443", false},
		{"compat.corp.test:443", false},
		{"rebind.test:8080", false},
		{"cdn.corp.test:443", false},
		{"127.0.0.1:8080", false},
		{"2130706433:8080", false},
		{"[::1]:8080", false},
		{"0177.0.0.1:8080", false},
		{"127.1:8080", false},
		{"LO.corp.test.:443", false},
		{"named.test:443", true},
	}
	for _, tt := range tests {
		dialled = nil
		c, s := net.Pipe()
		go p.ServeConn(s)
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", tt.target, tt.target)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", tt.target, err)
		}
		if got := len(dialled) > 0; got != tt.dial {
			t.Errorf("CONNECT %s: %d %s, dialled %v, want dial=%v", tt.target, resp.StatusCode, resp.Header.Get("X-Guardsh-Rule"), dialled, tt.dial)
		}
	}
}
