package sandbox

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ProxySocket is the name of the privileged side's proxy socket in the
// session's private temp dir; EnvProxySocket passes its path to the
// interpreter.
const (
	ProxySocket    = ".guardsh-proxy.sock"
	EnvProxySocket = "GUARDSH_PROXY_SOCKET"
)

// ListenProxy makes the privileged side's end of the session proxy: a
// Unix socket in dir (the session's temp dir, which the confined
// interpreter can reach), mode 0600.
func ListenProxy(dir string) (net.Listener, string, error) {
	path := filepath.Join(dir, ProxySocket)
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", err
	}
	os.Chmod(path, 0o600)
	return l, path, nil
}

// ProxyRelay is the confined side's end: a TCP listener on 127.0.0.1 in
// the session's network namespace (the only address commands there can
// reach) whose every connection is relayed to the proxy socket.
type ProxyRelay struct {
	l    net.Listener
	sock string
	wg   sync.WaitGroup
}

// StartProxyRelay listens on 127.0.0.1 and relays to the proxy at sock.
func StartProxyRelay(sock string) (*ProxyRelay, error) {
	if sock == "" {
		return nil, errors.New("no proxy socket")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &ProxyRelay{l: l, sock: sock}
	r.wg.Add(1)
	go r.loop()
	return r, nil
}

func (r *ProxyRelay) loop() {
	defer r.wg.Done()
	for {
		c, err := r.l.Accept()
		if err != nil {
			return
		}
		go r.relay(c)
	}
}

func (r *ProxyRelay) relay(c net.Conn) {
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
func (r *ProxyRelay) Addr() string { return r.l.Addr().String() }

// Close stops accepting; relayed connections end on their own.
func (r *ProxyRelay) Close() error {
	err := r.l.Close()
	r.wg.Wait()
	return err
}

// ProxyEnv returns the variables that send the common clients (curl,
// git, pip, npm, go, cargo, wget, Python's and Node's HTTP libraries that
// read them) through the proxy at addr, as user (so the proxy knows which
// command opened a connection). Loopback stays direct: it is the
// session's own network.
func ProxyEnv(addr, user string) []string {
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
