package proxy

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// SocketName is the name of the privileged side's proxy socket in the
// session's private temp dir; EnvSocket passes its path to the
// interpreter.
const (
	SocketName = ".guardsh-proxy.sock"
	EnvSocket  = "GUARDSH_PROXY_SOCKET"
)

// Listen makes the privileged side's end of the session proxy: a
// Unix socket in dir (the session's temp dir, which the confined
// interpreter can reach), mode 0600.
func Listen(dir string) (net.Listener, string, error) {
	path := filepath.Join(dir, SocketName)
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", err
	}
	os.Chmod(path, 0o600)
	return l, path, nil
}

// Relay is the confined side's end: a TCP listener on 127.0.0.1 in
// the session's network namespace (the only address commands there can
// reach) whose every connection is relayed to the proxy socket.
type Relay struct {
	l    net.Listener
	sock string
	wg   sync.WaitGroup
}

// StartRelay listens on 127.0.0.1 and relays to the proxy at sock.
func StartRelay(sock string) (*Relay, error) {
	if sock == "" {
		return nil, errors.New("no proxy socket")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{l: l, sock: sock}
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
	u, err := net.Dial("unix", r.sock)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nguardsh: the session's proxy is not reachable: "+err.Error()+"\n")
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(u, c)
		u.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	io.Copy(c, u)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	<-done
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.l.Addr().String() }

// Close stops accepting; relayed connections end on their own.
func (r *Relay) Close() error {
	err := r.l.Close()
	r.wg.Wait()
	return err
}

// Env returns the variables that send the common clients (curl,
// git, pip, npm, go, cargo, wget, Python's and Node's HTTP libraries that
// read them) through the proxy at addr, as user (so the proxy knows which
// command opened a connection). Loopback stays direct: it is the
// session's own network.
func Env(addr, user string) []string {
	u := "http://" + addr
	if user != "" {
		u = "http://" + user + "@" + addr
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
