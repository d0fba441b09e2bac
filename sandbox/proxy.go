package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is the session's way out to the network: an HTTP proxy (CONNECT
// for TLS and other streams, absolute-URI requests for plain HTTP) that
// runs on the privileged side and decides every connection by its
// destination, before it resolves the name (by the name and port the
// client asked for) and again for each address it resolved (Decide with
// Addr set), then dials only an address it allowed. Names are resolved
// here: a confined command needs no resolver of its own.
//
// Refusals answer 403 with the rule ID in the X-Guardsh-Rule header and a
// one-line body; Refused (when set) also says them on the session's
// stderr, where the command's user sees them whatever the client prints.
//
// TLS is not intercepted: the proxy sees the CONNECT host and, in the
// client's first TLS record, the server name (SNI); a TLS client whose
// SNI is missing or differs from the CONNECT host is refused. What a
// client sends to an allowed host is not seen.
type Proxy struct {
	// Decide answers for a destination: by name (Addr invalid) and then
	// for every address the name resolved to. Required.
	Decide func(d Dest) ProxyVerdict
	// Ask settles an ask verdict (the one approval point); nil or false:
	// refused at once.
	Ask func(d Dest, v ProxyVerdict) bool
	// Record is told of every connection when it ends (refused ones
	// too).
	Record func(c ProxyConn)
	// Refused is told of every refusal as it happens.
	Refused func(d Dest, v ProxyVerdict)
	// Resolve resolves a host name (default: net.DefaultResolver).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial dials an address the proxy decided on (default: a net.Dialer
	// with a 30 s timeout).
	Dial func(ctx context.Context, addr netip.AddrPort) (net.Conn, error)

	srv  *http.Server
	once sync.Once
}

// Dest is a connection's destination; Client is who asked (the
// Proxy-Authorization user the session gave the command, "" if none).
type Dest struct {
	Host   string
	Port   int
	Addr   netip.Addr // invalid: the decision by name
	Client string
}

func (d Dest) String() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// ProxyVerdict is the answer for a destination. Decision is "allow",
// "ask" or "deny".
type ProxyVerdict struct {
	Decision string
	Rule     string
	Reason   string
	Hint     string
}

// ProxyConn describes one connection through the proxy.
type ProxyConn struct {
	Dest
	Method   string // CONNECT, GET, POST ...
	Decision string // the final decision: allow or deny
	Rule     string
	Reason   string
	Gate     string // who settled an ask: "once", "denied", "no-human"
	Up, Down int64  // bytes client -> server, server -> client
	Duration time.Duration
	Err      string
}

// Serve accepts connections on l until it is closed.
func (p *Proxy) Serve(l net.Listener) error {
	p.once.Do(func() {
		p.srv = &http.Server{Handler: http.HandlerFunc(p.handle), ReadHeaderTimeout: 30 * time.Second,
			ErrorLog: nil}
	})
	err := p.srv.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the proxy; connections under way end.
func (p *Proxy) Close() error {
	if p.srv == nil {
		return nil
	}
	return p.srv.Close()
}

func (p *Proxy) handle(w http.ResponseWriter, r *http.Request) {
	client := proxyUser(r.Header.Get("Proxy-Authorization"))
	r.Header.Del("Proxy-Authorization")
	if r.Method == http.MethodConnect {
		p.connect(w, r, client)
		return
	}
	if !r.URL.IsAbs() || (r.URL.Scheme != "http") {
		http.Error(w, "guardsh proxy: only absolute http:// requests and CONNECT are proxied", http.StatusBadRequest)
		return
	}
	port := 80
	if s := r.URL.Port(); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			http.Error(w, "guardsh proxy: bad port", http.StatusBadRequest)
			return
		}
		port = n
	}
	d := Dest{Host: r.URL.Hostname(), Port: port, Client: client}
	rec := ProxyConn{Dest: d, Method: r.Method}
	start := time.Now()
	var up, down atomic.Int64
	defer func() {
		rec.Up, rec.Down, rec.Duration = up.Load(), down.Load(), time.Since(start)
		p.record(rec)
	}()
	var dialErr error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{
			DisableKeepAlives: true, // one connection a request: its bytes are its own
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				c, v, err := p.open(ctx, d, &rec)
				if err != nil {
					dialErr = &refusal{v}
					return nil, dialErr
				}
				return &countConn{Conn: c, up: &up, down: &down}, nil
			},
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			var rf *refusal
			if errors.As(err, &rf) {
				refuse(w, rf.v)
				return
			}
			rec.Err = err.Error()
			http.Error(w, "guardsh proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

func (p *Proxy) connect(w http.ResponseWriter, r *http.Request, client string) {
	host, ps, err := net.SplitHostPort(r.RequestURI)
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || port < 1 || port > 65535 || host == "" {
		http.Error(w, "guardsh proxy: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	d := Dest{Host: host, Port: port, Client: client}
	rec := ProxyConn{Dest: d, Method: http.MethodConnect}
	start := time.Now()
	defer func() { rec.Duration = time.Since(start); p.record(rec) }()
	upstream, v, err := p.open(r.Context(), d, &rec)
	if err != nil {
		if v.Decision != "allow" {
			refuse(w, v)
		} else {
			rec.Err = err.Error()
			http.Error(w, "guardsh proxy: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	defer upstream.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "guardsh proxy: cannot take over the connection", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	conn, buf, err := hj.Hijack()
	if err != nil {
		rec.Err = err.Error()
		return
	}
	defer conn.Close()
	// Server to client at once (ssh and other protocols speak first);
	// client to server after its first bytes are seen: a TLS ClientHello
	// must name the host the client asked to CONNECT to.
	var down atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, _ := io.Copy(conn, upstream)
		down.Store(n)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	first, err := peekFirst(buf.Reader, conn)
	if err == nil {
		if why := checkSNI(first, host); why != "" {
			rec.Decision, rec.Rule, rec.Reason = "deny", "net.tls-name", why
			if p.Refused != nil {
				p.Refused(d, ProxyVerdict{Decision: "deny", Rule: "net.tls-name", Reason: why, Hint: "connect to the host the TLS client names"})
			}
			upstream.Close()
			conn.Close()
			<-done
			return
		}
		n, _ := io.Copy(upstream, io.MultiReader(bytes.NewReader(first), buf.Reader, conn))
		rec.Up = n
	}
	if cw, ok := upstream.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		upstream.Close()
	}
	<-done
	rec.Down = down.Load()
}

// open decides d by name, settles an ask, resolves, decides each address
// and dials the first one allowed. rec gets the decision.
func (p *Proxy) open(ctx context.Context, d Dest, rec *ProxyConn) (net.Conn, ProxyVerdict, error) {
	v := p.settle(d, p.Decide(d), rec)
	if v.Decision != "allow" {
		return nil, v, &refusal{v}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(strings.Trim(d.Host, "[]")); err == nil {
		addrs = []netip.Addr{a}
	} else {
		resolve := p.Resolve
		if resolve == nil {
			resolve = func(ctx context.Context, h string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
			}
		}
		if addrs, err = resolve(ctx, d.Host); err != nil {
			return nil, v, fmt.Errorf("cannot resolve %s: %v", d.Host, err)
		}
	}
	var last ProxyVerdict
	var lastErr error
	for _, a := range addrs {
		da := d
		da.Addr = a.Unmap()
		av := p.Decide(da)
		if av.Decision == "ask" {
			av = p.settle(da, av, rec)
		}
		if av.Decision != "allow" {
			last = av
			continue
		}
		dial := p.Dial
		if dial == nil {
			dial = func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
				var dl net.Dialer
				dl.Timeout = 30 * time.Second
				return dl.DialContext(ctx, "tcp", ap.String())
			}
		}
		c, err := dial(ctx, netip.AddrPortFrom(da.Addr, uint16(d.Port)))
		if err == nil {
			rec.Decision, rec.Rule, rec.Reason, rec.Addr = "allow", v.Rule, v.Reason, da.Addr
			return c, v, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		rec.Decision, rec.Rule, rec.Reason = "allow", v.Rule, v.Reason
		return nil, v, lastErr
	}
	if last.Decision == "" {
		last = ProxyVerdict{Decision: "deny", Rule: "net.host-unresolved", Reason: d.Host + " resolved to no address", Hint: "check the host name"}
	}
	rec.Decision, rec.Rule, rec.Reason = "deny", last.Rule, last.Reason
	if p.Refused != nil {
		p.Refused(d, last)
	}
	return nil, last, &refusal{last}
}

// settle turns an ask into allow or deny through Ask, and tells Refused
// of a refusal.
func (p *Proxy) settle(d Dest, v ProxyVerdict, rec *ProxyConn) ProxyVerdict {
	switch v.Decision {
	case "allow":
		return v
	case "ask":
		if p.Ask != nil && p.Ask(d, v) {
			rec.Gate = "once"
			v.Decision = "allow"
			return v
		}
		rec.Gate = "no-human"
		if p.Ask != nil {
			rec.Gate = "denied"
		}
		v.Decision = "deny"
	default:
		v.Decision = "deny"
	}
	rec.Decision, rec.Rule, rec.Reason = v.Decision, v.Rule, v.Reason
	if p.Refused != nil {
		p.Refused(d, v)
	}
	return v
}

func (p *Proxy) record(c ProxyConn) {
	if p.Record != nil {
		p.Record(c)
	}
}

type refusal struct{ v ProxyVerdict }

func (r *refusal) Error() string { return "refused [" + r.v.Rule + "]: " + r.v.Reason }

func refuse(w http.ResponseWriter, v ProxyVerdict) {
	w.Header().Set("X-Guardsh-Rule", v.Rule)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "guardsh: denied [%s]: %s. %s\n", v.Rule, v.Reason, v.Hint)
}

// proxyUser is the user name of a Basic Proxy-Authorization header.
func proxyUser(h string) string {
	r := http.Request{Header: http.Header{"Authorization": {h}}}
	u, _, _ := r.BasicAuth()
	return u
}

// peekFirst returns what the client sent first: the bytes buffered with
// the CONNECT request, or one read from the connection (up to 16 KiB); a
// TLS record split over reads is read whole.
func peekFirst(br *bufio.Reader, c net.Conn) ([]byte, error) {
	var b []byte
	if n := br.Buffered(); n > 0 {
		b = make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, err
		}
	} else {
		b = make([]byte, 16<<10)
		n, err := c.Read(b)
		if n == 0 {
			return nil, err
		}
		b = b[:n]
	}
	// A handshake record: 5 bytes of header, then its length.
	for len(b) >= 1 && b[0] == 0x16 && len(b) < 16<<10 {
		if len(b) >= 5 && len(b) >= 5+(int(b[3])<<8|int(b[4])) {
			break
		}
		more := make([]byte, 16<<10)
		n, err := c.Read(more)
		b = append(b, more[:n]...)
		if err != nil {
			break
		}
	}
	return b, nil
}

// checkSNI says why first (a stream's first bytes) is not acceptable for a
// CONNECT to host, "" when it is: a TLS ClientHello must carry a server
// name equal to host (for a host name); anything that is not TLS passes.
func checkSNI(first []byte, host string) string {
	if len(first) == 0 || first[0] != 0x16 { // not a TLS handshake record
		return ""
	}
	name, ok := clientHelloServerName(first)
	if !ok {
		return "the TLS client's first message could not be read"
	}
	_, isIP := netip.ParseAddr(strings.Trim(host, "[]"))
	switch {
	case name == "" && isIP == nil:
		return ""
	case name == "":
		return fmt.Sprintf("the TLS client names no server (SNI) for %s: the proxy cannot tell where it goes", host)
	case !strings.EqualFold(strings.TrimSuffix(name, "."), strings.TrimSuffix(host, ".")):
		return fmt.Sprintf("the TLS client names %q, not the host it asked to connect to (%s)", name, host)
	}
	return ""
}

// clientHelloServerName reads the server name of a ClientHello with
// crypto/tls's own parser: a server handshake on the recorded bytes that
// stops as soon as the hello is read.
func clientHelloServerName(b []byte) (string, bool) {
	var name string
	var got bool
	errStop := errors.New("stop")
	c := tls.Server(&replayConn{r: bytes.NewReader(b)}, &tls.Config{
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			name, got = h.ServerName, true
			return nil, errStop
		},
	})
	c.Handshake()
	return name, got
}

// replayConn is a net.Conn that reads recorded bytes and drops writes.
type replayConn struct {
	net.Conn
	r io.Reader
}

func (c *replayConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *replayConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *replayConn) Close() error                     { return nil }
func (c *replayConn) SetDeadline(time.Time) error      { return nil }
func (c *replayConn) SetReadDeadline(time.Time) error  { return nil }
func (c *replayConn) SetWriteDeadline(time.Time) error { return nil }
func (c *replayConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *replayConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// countConn counts the bytes of a connection each way.
type countConn struct {
	net.Conn
	up, down *atomic.Int64
}

func (c *countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.down.Add(int64(n))
	return n, err
}

func (c *countConn) Write(p []byte) (int, error) {
	// Counted before the write: the server can answer (and the request
	// end) before this goroutine returns from the write.
	c.up.Add(int64(len(p)))
	n, err := c.Conn.Write(p)
	c.up.Add(int64(n - len(p)))
	return n, err
}

// ReadFrom keeps io.Copy (the transport's request body) counted.
func (c *countConn) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{c}, r)
}
