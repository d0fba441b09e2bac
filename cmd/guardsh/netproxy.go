package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
	"github.com/guardsh/guardsh/sandbox"
	"github.com/guardsh/guardsh/sandbox/proxy"
)

// envAuditSession passes the session id the privileged side chose to the
// interpreter, so that the proxy's connection records and the commands'
// records carry the same session.
const envAuditSession = "GUARDSH_AUDIT_SESSION"

// sessionProxy makes the session's network proxy for the privileged side
// (proxy.Proxy): every connection a command opens is decided by n, asked
// of whoever answers this session's asks (privilegedGate: the launcher, or
// the terminal; refused at once when nobody can), recorded in the audit
// log (audit may be nil) and, when refused, said on stderr.
// Its connections arrive as broker streams (brokerProxyHandler).
func sessionProxy(n *guardsh.NetworkPolicy, alog *audit.Log, sandboxDesc string) *proxy.Proxy {
	var mu sync.Mutex
	byName := map[string]guardsh.NetVerdict{} // the name's verdict, for its addresses
	key := func(d proxy.Dest) string { return d.Host + "\x00" + strconv.Itoa(d.Port) }
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
			gate := privilegedGate() // approval.go: the launcher, or the terminal
			if gate == nil {
				return false
			}
			cmd := guardsh.Command{Args: []string{"connect", d.String()}}
			a := gate.Approve(context.Background(), interp.GateRequest{Command: cmd,
				Verdict: guardsh.Verdict{Decision: guardsh.Ask, Rule: v.Rule, Reason: v.Reason, Hint: v.Hint, Effects: guardsh.Effects{Network: true}}})
			if a == interp.GateAllowSession {
				n.AllowForSession(d.Host, d.Port)
			}
			return a == interp.GateAllowOnce || a == interp.GateAllowSession
		},
		Refused: func(d proxy.Dest, v proxy.Verdict) {
			fmt.Fprintf(os.Stderr, "guardsh: denied [%s]: %s. %s\n", v.Rule, v.Reason, v.Hint)
		},
		Record: func(c proxy.Conn) {
			if alog == nil {
				return
			}
			rec := &audit.Record{Via: "proxy", Argv: []string{c.Method, c.Dest.String()}, Decision: c.Decision,
				Rule: c.Rule, Reason: c.Reason, Gate: c.Gate, Effects: guardsh.Effects{Network: true}, Sandbox: sandboxDesc,
				DurationMS: float64(c.Duration.Microseconds()) / 1000,
				Connect:    &audit.ConnectInfo{Host: c.Host, Port: c.Port, Client: c.Client, Up: c.Up, Down: c.Down, Error: c.Err}}
			if c.Addr.IsValid() {
				rec.Connect.Addr = c.Addr.String()
			}
			alog.Connect(rec)
		},
	}
	return p
}

// brokerProxyHandler serves the interpreter's proxy streams
// (sandbox.Client.Open(proxy.Kind)) with p.
func brokerProxyHandler(p *proxy.Proxy) func(sandbox.Request, []*os.File) sandbox.Response {
	return func(_ sandbox.Request, files []*os.File) sandbox.Response {
		if len(files) != 1 {
			return sandbox.Response{Status: 126, Err: "guardsh: broker: malformed proxy request"}
		}
		c, err := net.FileConn(files[0]) // a dup: the broker closes files[0]
		if err != nil {
			return sandbox.Response{Status: 126, Err: "guardsh: broker: " + err.Error()}
		}
		go p.ServeConn(c)
		return sandbox.Response{}
	}
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
	on := os.Getenv(proxy.EnvProxy) == "1"
	os.Unsetenv(proxy.EnvProxy)
	c := sessionAdviseClient // the privileged side's channel (session.go)
	if !on || c == nil {
		return nil
	}
	r, err := proxy.StartRelay(func() (net.Conn, error) {
		f, err := c.Open(proxy.Kind)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return net.FileConn(f)
	})
	if err != nil {
		return nil // no sockets in this sandbox: no network, as before
	}
	return proxy.Env(r.Addr(), "s-"+os.Getenv(envAuditSession))
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

// proxyVar is proxy.EnvProxy: never passed on to commands.
const proxyVar = proxy.EnvProxy

// sandboxHasNetNS says whether a session started with this environment
// gets a network namespace of its own, whose connections go through the
// session's proxy (the checker's --sandboxed and the rewritten hooks judge
// as that session will: Policy.NetProxy): not when the user turned the
// namespace off (GUARDSH_SANDBOX_NETNS=0) or chose the container level,
// which has none (its commands have no network, and a network command
// asks, so that a human can let it run with the network). Where the
// kernel refuses a namespace at run time, a command judged so finds no
// network rather than asking.
func sandboxHasNetNS(getenv func(string) string) bool {
	return getenv("GUARDSH_SANDBOX_NETNS") != "0" && !strings.EqualFold(getenv("GUARDSH_SANDBOX"), sandbox.BackendContainer)
}
