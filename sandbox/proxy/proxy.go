// Package proxy is a sandboxed session's way out to the network: an HTTP
// proxy on the privileged side that decides every connection a command
// opens by its destination, and the confined side's relay to it.
//
// The proxy speaks CONNECT (TLS and any other stream) and absolute-URI
// HTTP/1.x requests (plain HTTP, one request a connection). It decides a
// destination first by the name and port the client asked for, then for
// every address it resolved the name to (names are resolved here: a
// confined command needs no resolver), and dials only an address it
// allowed. TLS is not intercepted: for a CONNECT the proxy reads the
// server name (SNI) in the client's first TLS record and refuses a client
// whose name is missing or differs from the host it asked for; what a
// client then sends to an allowed host is not seen.
//
// It is written on package net alone (no net/http, no crypto/tls): every
// guardsh process links this package, and those two cost every process
// start about a millisecond of package initialisation.
package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy decides and carries a session's connections. Decide is required;
// the other fields may be nil.
type Proxy struct {
	// Decide answers for a destination: by name (Addr invalid), then for
	// every address the name resolved to.
	Decide func(d Dest) Verdict
	// Ask settles an ask (the one approval point); nil or false: refused
	// at once.
	Ask func(d Dest, v Verdict) bool
	// Record is told of every connection when it ends (refused ones too).
	Record func(c Conn)
	// Refused is told of every refusal as it happens (the session says it
	// on stderr, where the command's user sees it whatever the client
	// prints).
	Refused func(d Dest, v Verdict)
	// Resolve resolves a host name (default: net.DefaultResolver).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial dials a decided address (default: net.Dialer, 30 s timeout).
	Dial func(ctx context.Context, addr netip.AddrPort) (net.Conn, error)

	mu     sync.Mutex
	ls     []net.Listener
	closed bool
	conns  map[net.Conn]struct{}
}

// Dest is a connection's destination; Client is who asked: the user name
// of the Proxy-Authorization the session gave its commands, "" if none.
type Dest struct {
	Host   string
	Port   int
	Addr   netip.Addr // invalid: the decision by name
	Client string
}

func (d Dest) String() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// Verdict is the answer for a destination; Decision is "allow", "ask" or
// "deny".
type Verdict struct {
	Decision string
	Rule     string
	Reason   string
	Hint     string
}

// Conn describes one connection through the proxy.
type Conn struct {
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

// maxHead bounds a request's line and headers; maxConns the connections
// a proxy carries at once (each holds descriptors of the privileged side).
const (
	maxHead  = 64 << 10
	maxConns = 512
)

// ServeConn serves one client connection (a stream the broker handed
// over) and closes it.
func (p *Proxy) ServeConn(c net.Conn) {
	ok, full := p.admit(c)
	if !ok {
		c.Close()
		return
	}
	if full {
		busy(c)
		return
	}
	p.serve(c)
}

// admit tracks c unless the proxy is closed (ok false) or carries
// maxConns connections already (full).
func (p *Proxy) admit(c net.Conn) (ok, full bool) {
	p.mu.Lock()
	n, closed := len(p.conns), p.closed
	p.mu.Unlock()
	if closed {
		return false, false
	}
	if n >= maxConns {
		return true, true
	}
	return p.track(c, true), false
}

// busy answers a connection past maxConns and closes it.
func busy(c net.Conn) {
	answer(c, 503, "net.proxy-busy", fmt.Sprintf("guardsh proxy: %d connections at once already; retry when some have ended", maxConns))
	c.Close()
}

func (p *Proxy) serve(c net.Conn) {
	defer p.track(c, false)
	defer c.Close()
	p.serveConn(c)
}

func (p *Proxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.closed {
			return false
		}
		if p.conns == nil {
			p.conns = map[net.Conn]struct{}{}
		}
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	return true
}

// Close stops the proxy and ends the connections under way.
func (p *Proxy) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, l := range p.ls {
		l.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	return nil
}

// request is a request's head as read.
type request struct {
	method, target, version string
	headers                 []string // "Name: value", in order
}

func (r *request) header(name string) string {
	for _, h := range r.headers {
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func readRequest(br *bufio.Reader) (*request, error) {
	var lines []string
	n := 0
	for {
		// ReadSlice, not ReadString: a line without an end is never held
		// past maxHead
		var buf []byte
		for {
			frag, err := br.ReadSlice('\n')
			n += len(frag)
			if n > maxHead {
				return nil, errors.New("request head too large")
			}
			buf = append(buf, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return nil, err
			}
			break
		}
		line := strings.TrimRight(string(buf), "\r\n")
		if line == "" {
			if len(lines) == 0 {
				continue // blank lines before a request are allowed
			}
			break
		}
		lines = append(lines, line)
	}
	parts := strings.Split(lines[0], " ")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") {
		return nil, fmt.Errorf("not an HTTP/1 request line: %.80q", lines[0])
	}
	return &request{method: parts[0], target: parts[1], version: parts[2], headers: lines[1:]}, nil
}

func (p *Proxy) serveConn(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReaderSize(c, 16<<10)
	req, err := readRequest(br)
	if err != nil {
		answer(c, 400, "", "guardsh proxy: "+err.Error())
		return
	}
	c.SetReadDeadline(time.Time{})
	client := proxyUser(req.header("Proxy-Authorization"))
	if req.method == "CONNECT" {
		p.connect(c, br, req, client)
		return
	}
	p.forward(c, br, req, client)
}

func (p *Proxy) connect(c net.Conn, br *bufio.Reader, req *request, client string) {
	host, ps, err := net.SplitHostPort(req.target)
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || port < 1 || port > 65535 || host == "" {
		answer(c, 400, "", "guardsh proxy: CONNECT needs host:port")
		return
	}
	d := Dest{Host: host, Port: port, Client: client}
	rec := Conn{Dest: d, Method: "CONNECT"}
	start := time.Now()
	defer func() { rec.Duration = time.Since(start); p.record(rec) }()
	upstream := p.openOrAnswer(c, d, &rec)
	if upstream == nil {
		return
	}
	defer upstream.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		rec.Err = err.Error()
		return
	}
	// Server to client at once (ssh and others speak first); client to
	// server after its first bytes are seen: a TLS ClientHello must name
	// the host the client asked to CONNECT to.
	var down atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, _ := io.Copy(c, upstream)
		down.Store(n)
		closeWrite(c)
	}()
	first, err := readFirst(br)
	if err == nil {
		if why := checkSNI(first, host); why != "" {
			v := Verdict{Decision: "deny", Rule: "net.tls-name", Reason: why, Hint: "connect to the host the TLS client names"}
			rec.Decision, rec.Rule, rec.Reason = v.Decision, v.Rule, v.Reason
			if p.Refused != nil {
				p.Refused(d, v)
			}
			upstream.Close()
			c.Close()
			<-done
			return
		}
		n, _ := io.Copy(upstream, io.MultiReader(bytes.NewReader(first), br))
		rec.Up = n
	}
	closeWrite(upstream)
	<-done
	rec.Down = down.Load()
}

// hopHeaders are the headers of one hop, never passed on.
var hopHeaders = []string{"Proxy-Authorization", "Proxy-Connection", "Connection", "Keep-Alive", "TE", "Trailer", "Upgrade", "Proxy-Authenticate"}

func (p *Proxy) forward(c net.Conn, br *bufio.Reader, req *request, client string) {
	u, err := url.Parse(req.target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		answer(c, 400, "", "guardsh proxy: only absolute http:// requests and CONNECT are proxied")
		return
	}
	port := 80
	if s := u.Port(); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			answer(c, 400, "", "guardsh proxy: bad port")
			return
		}
		port = n
	}
	d := Dest{Host: u.Hostname(), Port: port, Client: client}
	rec := Conn{Dest: d, Method: req.method}
	start := time.Now()
	defer func() { rec.Duration = time.Since(start); p.record(rec) }()
	upstream := p.openOrAnswer(c, d, &rec)
	if upstream == nil {
		return
	}
	defer upstream.Close()
	// The request in origin form, one request a connection.
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s %s\r\n", req.method, u.RequestURI(), req.version)
	for _, h := range req.headers {
		k, _, _ := strings.Cut(h, ":")
		k = strings.TrimSpace(k)
		hop := false
		for _, x := range hopHeaders {
			if strings.EqualFold(k, x) {
				hop = true
			}
		}
		if hop {
			continue
		}
		if strings.EqualFold(k, "Host") {
			// the decided host, whatever the client wrote (RFC 9112
			// 3.2.2): a server routes by it
			continue
		}
		head.WriteString(h + "\r\n")
	}
	head.WriteString("Host: " + u.Host + "\r\n")
	head.WriteString("Connection: close\r\n\r\n")
	var down atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, _ := io.Copy(c, upstream)
		down.Store(n)
		closeWrite(c)
	}()
	n, _ := io.Copy(upstream, io.MultiReader(&head, br))
	rec.Up = n
	closeWrite(upstream)
	<-done
	rec.Down = down.Load()
}

// openOrAnswer is open for a client connection c: a refusal or a failure
// is answered on c (and nil returned).
func (p *Proxy) openOrAnswer(c net.Conn, d Dest, rec *Conn) net.Conn {
	upstream, v, err := p.open(context.Background(), d, rec)
	if err == nil {
		return upstream
	}
	if v.Decision != "allow" {
		refuse(c, v)
	} else {
		rec.Err = err.Error()
		answer(c, 502, "", "guardsh proxy: "+err.Error())
	}
	return nil
}

// open decides d by name, settles an ask, resolves, decides each address
// and dials the first one allowed. rec gets the decision.
func (p *Proxy) open(ctx context.Context, d Dest, rec *Conn) (net.Conn, Verdict, error) {
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
	var last Verdict
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
				dl := net.Dialer{Timeout: 30 * time.Second}
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
		last = Verdict{Decision: "deny", Rule: "net.host-unresolved", Reason: d.Host + " resolved to no address", Hint: "check the host name"}
	}
	last.Decision = "deny"
	rec.Decision, rec.Rule, rec.Reason = "deny", last.Rule, last.Reason
	if p.Refused != nil {
		p.Refused(d, last)
	}
	return nil, last, &refusal{last}
}

// settle turns an ask into allow or deny through Ask, and tells Refused
// of a refusal.
func (p *Proxy) settle(d Dest, v Verdict, rec *Conn) Verdict {
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
	}
	v.Decision = "deny"
	rec.Decision, rec.Rule, rec.Reason = v.Decision, v.Rule, v.Reason
	if p.Refused != nil {
		p.Refused(d, v)
	}
	return v
}

func (p *Proxy) record(c Conn) {
	if p.Record != nil {
		p.Record(c)
	}
}

type refusal struct{ v Verdict }

func (r *refusal) Error() string { return "refused [" + r.v.Rule + "]: " + r.v.Reason }

func refuse(c net.Conn, v Verdict) {
	answer(c, 403, v.Rule, fmt.Sprintf("guardsh: denied [%s]: %s. %s", v.Rule, v.Reason, v.Hint))
}

func answer(c net.Conn, code int, rule, body string) {
	status := map[int]string{400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable"}[code]
	body += "\n"
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", code, status)
	if rule != "" {
		fmt.Fprintf(&b, "X-Guardsh-Rule: %s\r\n", rule)
	}
	fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	io.WriteString(c, b.String())
}

// proxyUser is the user name of a Basic Proxy-Authorization value.
func proxyUser(h string) string {
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return ""
	}
	user, _, _ := strings.Cut(string(raw), ":")
	return user
}

// readFirst returns what the client sent first (up to 16 KiB); a TLS
// record split over reads is read whole.
func readFirst(br *bufio.Reader) ([]byte, error) {
	if _, err := br.Peek(1); err != nil {
		return nil, err
	}
	n := br.Buffered()
	if b, _ := br.Peek(1); b[0] == 0x16 {
		if h, err := br.Peek(5); err == nil {
			want := 5 + (int(h[3])<<8 | int(h[4]))
			if want > 16<<10 {
				want = 16 << 10
			}
			if b, err := br.Peek(want); err == nil || len(b) > n {
				n = len(b)
			}
		}
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return b, err
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
