package proxy

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync"
)

// Kind is the broker request kind of a proxied connection
// (sandbox.Client.Open); EnvProxy tells the interpreter that the
// privileged side runs the session proxy.
const (
	Kind     = "proxy"
	EnvProxy = "GUARDSH_PROXY"
)

// Relay is the confined side's end: a TCP listener on 127.0.0.1 in
// the session's network namespace (the only address commands there can
// reach) whose every connection is relayed to the proxy over a stream
// dial opens (the broker's, sandbox.Client.Open).
type Relay struct {
	l    net.Listener
	dial func() (net.Conn, error)
	wg   sync.WaitGroup
}

// StartRelay listens on 127.0.0.1 and relays each connection to a stream
// from dial.
func StartRelay(dial func() (net.Conn, error)) (*Relay, error) {
	if dial == nil {
		return nil, errors.New("no way to the proxy")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{l: l, dial: dial}
	r.wg.Add(1)
	go r.loop()
	return r, nil
}

func (r *Relay) loop() {
	defer r.wg.Done()
	for {
		c, err := r.l.Accept()
		if err != nil {
			return
		}
		go r.relay(c)
	}
}

func (r *Relay) relay(c net.Conn) {
	defer c.Close()
	u, err := r.dial()
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nguardsh: the session's proxy is not reachable: "+err.Error()+"\n")
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(u, c)
		closeWrite(u)
		close(done)
	}()
	io.Copy(c, u)
	closeWrite(c)
	<-done
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.l.Addr().String() }

// Env returns the variables that send the common clients (curl,
// git, pip, npm, go, cargo, wget, Python's and Node's HTTP libraries that
// read them) through the proxy at addr, as user (so the proxy knows which
// command opened a connection). Loopback stays direct: it is the
// session's own network.
func Env(addr, user string) []string {
	u := "http://" + addr
	if user != "" {
		// with a password (which the proxy ignores): git asks for the
		// password of a proxy URL that has a user and none
		u = "http://" + user + ":guardsh@" + addr
	}
	noProxy := "localhost,127.0.0.1,::1"
	var env []string
	for _, k := range []string{"http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+u, strings.ToUpper(k)+"="+u)
	}
	env = append(env, "no_proxy="+noProxy, "NO_PROXY="+noProxy,
		// npm reads its own settings before the variables in some versions.
		"npm_config_proxy="+u, "npm_config_https_proxy="+u)
	return env
}
