package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox/proxy"
)

// envAuditSession passes the session id the privileged side chose to the
// interpreter, so that the proxy's connection records and the commands'
// records carry the same session.
const envAuditSession = "GUARDSH_AUDIT_SESSION"

// startSessionProxy starts the session's network proxy on the privileged
// side (proxy.Proxy, on a Unix socket in the session's temp dir): every
// connection a command opens is decided by n, asked at the terminal when
// one is open (refused at once otherwise), recorded in the audit log
// (audit may be nil) and, when refused, said on stderr. It returns a
// function that stops it.
func startSessionProxy(dir string, n *guardsh.NetworkPolicy, audit *interp.AuditLog, sandboxDesc string) (func(), error) {
	l, _, err := proxy.Listen(dir)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	byName := map[string]guardsh.NetVerdict{} // the name's verdict, for its addresses
	key := func(d proxy.Dest) string { return d.Host + "\x00" + strconv.Itoa(d.Port) }
	var gate *interp.TerminalGate
	p := &proxy.Proxy{
		Decide: func(d proxy.Dest) proxy.Verdict {
			mu.Lock()
			defer mu.Unlock()
			if !d.Addr.IsValid() {
				v := n.Decide(d.Host, d.Port)
				byName[key(d)] = v
				return proxyVerdict(v)
			}
			v, ok := byName[key(d)]
			if !ok {
				v = n.Decide(d.Host, d.Port)
			}
			if v.Decision == guardsh.Ask {
				// approved by name (Ask ran): its addresses are still checked
				v.Decision = guardsh.Allow
			}
			return proxyVerdict(n.Address(d.Host, d.Addr, d.Port, v))
		},
		Ask: func(d proxy.Dest, v proxy.Verdict) bool {
			mu.Lock()
			defer mu.Unlock()
			if gate == nil {
				g, err := interp.OpenTerminalGate()
				if err != nil {
					return false
				}
				gate = g
			}
			cmd := guardsh.Command{Args: []string{"connect", d.String()}}
			a := gate.Approve(context.Background(), interp.GateRequest{Command: cmd,
				Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: v.Rule, Reason: v.Reason, Hint: v.Hint, Effects: guardsh.Effects{Network: true}}})
			if a == interp.GateAllowSession {
				n.Rules = append(n.Rules, guardsh.NetRule{Host: d.Host, Port: d.Port, Decision: guardsh.Allow, Source: "allowed for this session"})
			}
			return a == interp.GateAllowOnce || a == interp.GateAllowSession
		},
		Refused: func(d proxy.Dest, v proxy.Verdict) {
			fmt.Fprintf(os.Stderr, "guardsh: denied [%s]: %s. %s\n", v.Rule, v.Reason, v.Hint)
		},
		Record: func(c proxy.Conn) {
			if audit == nil {
				return
			}
			rec := &guardsh.AuditRecord{Via: "proxy", Argv: []string{c.Method, c.Dest.String()}, Decision: c.Decision,
				Rule: c.Rule, Reason: c.Reason, Gate: c.Gate, Effects: guardsh.Effects{Network: true}, Sandbox: sandboxDesc,
				DurationMS: float64(c.Duration.Microseconds()) / 1000,
				Connect:    &guardsh.AuditConnectInfo{Host: c.Host, Port: c.Port, Client: c.Client, Up: c.Up, Down: c.Down, Error: c.Err}}
			if c.Addr.IsValid() {
				rec.Connect.Addr = c.Addr.String()
			}
			audit.Connect(rec)
		},
	}
	go p.Serve(l)
	return func() { p.Close(); l.Close() }, nil
}

func proxyVerdict(v guardsh.NetVerdict) proxy.Verdict {
	return proxy.Verdict{Decision: v.Decision.String(), Rule: v.Rule, Reason: v.Reason, Hint: v.Hint}
}

// startProxyRelay is the confined interpreter's end of the proxy: when the
// privileged side runs one and the session has a network of its own
// (loopback in a private namespace), a relay on 127.0.0.1 and the proxy
// variables for every command. Where commands have no network at all
// (no namespace could be made), it does nothing: they stay offline.
func startProxyRelay() []string {
	sock := os.Getenv(proxy.EnvSocket)
	os.Unsetenv(proxy.EnvSocket)
	if sock == "" {
		return nil
	}
	r, err := proxy.StartRelay(sock)
	if err != nil {
		return nil // no sockets in this sandbox: no network, as before
	}
	user := "s-" + os.Getenv(envAuditSession)
	return proxy.Env(r.Addr(), user)
}

// dropEnv removes name from env (nil stays nil: the process environment).
func dropEnv(env []string, name string) []string {
	out := env[:0:0]
	if env == nil {
		return nil
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// proxySocketVar is proxy.EnvSocket: never passed on to commands.
const (
	proxySocketVar  = proxy.EnvSocket
	proxySocketName = proxy.SocketName
)
