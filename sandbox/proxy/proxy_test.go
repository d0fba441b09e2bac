package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testProxy starts a Proxy on 127.0.0.1 whose names resolve through
// hosts, allowing the names in allow (a "~" before a name: allowed as by a
// pattern, so not to a loopback address), asking for the names in ask,
// denying everything else.
type testProxy struct {
	*Proxy
	url     *url.URL
	mu      sync.Mutex
	conns   []Conn
	refused []string
}

func newTestProxy(t *testing.T, hosts map[string]string, allow, ask []string, approve bool) *testProxy {
	t.Helper()
	tp := &testProxy{}
	in := func(list []string, h string) bool {
		for _, x := range list {
			if x == h {
				return true
			}
		}
		return false
	}
	tp.Proxy = &Proxy{
		Decide: func(d Dest) Verdict {
			if d.Addr.IsValid() && d.Addr.IsLoopback() && in(allow, "~"+d.Host) {
				return Verdict{"deny", "net.private-address", d.Host + " is loopback", "name it"}
			}
			if in(allow, "~"+d.Host) {
				return Verdict{"allow", "net.host-allowed", "allowed by a pattern", ""}
			}
			switch {
			case d.Addr.IsValid() && d.Addr.IsLoopback() && !in(allow, d.Host):
				return Verdict{"deny", "net.private-address", d.Host + " is loopback", "name it"}
			case in(allow, d.Host):
				return Verdict{"allow", "net.host-allowed", "allowed", ""}
			case in(ask, d.Host):
				return Verdict{"ask", "net.host-unlisted", "unlisted host " + d.String(), "approve"}
			}
			return Verdict{"deny", "net.host-denied", "denied host " + d.String(), "use another"}
		},
		Resolve: func(_ context.Context, h string) ([]netip.Addr, error) {
			if a, ok := hosts[h]; ok {
				return []netip.Addr{netip.MustParseAddr(a)}, nil
			}
			return nil, fmt.Errorf("no such host %s", h)
		},
		Record: func(c Conn) { tp.mu.Lock(); tp.conns = append(tp.conns, c); tp.mu.Unlock() },
		Refused: func(d Dest, v Verdict) {
			tp.mu.Lock()
			tp.refused = append(tp.refused, v.Rule+" "+d.String())
			tp.mu.Unlock()
		},
	}
	if approve {
		tp.Ask = func(Dest, Verdict) bool { return true }
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go tp.Serve(l)
	t.Cleanup(func() { tp.Close() })
	tp.url = &url.URL{Scheme: "http", Host: l.Addr().String(), User: url.User("cmd-7")}
	return tp
}

func (tp *testProxy) records() []Conn {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]Conn(nil), tp.conns...)
}

// waitRecords waits for n connection records (they are written when a
// connection ends, after the client saw its answer).
func (tp *testProxy) waitRecords(t *testing.T, n int) []Conn {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(tp.records()) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return tp.records()
}

func TestProxyHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			t.Error("Proxy-Authorization reached the server")
		}
		io.WriteString(w, "hello from "+r.Host)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tp := newTestProxy(t, map[string]string{"local.test": "127.0.0.1", "other.test": "127.0.0.1"}, []string{"local.test", "~other.test"}, nil, false)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(tp.url)}}

	resp, err := c.Get(fmt.Sprintf("http://local.test:%d/x", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "hello from local.test") {
		t.Fatalf("allowed host: %d %q", resp.StatusCode, body)
	}
	// A host nobody allowed: refused at once, with the rule.
	resp, err = c.Get(fmt.Sprintf("http://evil.test:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("X-Guardsh-Rule") != "net.host-denied" || !strings.Contains(string(body), "denied [net.host-denied]") {
		t.Fatalf("denied host: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	// A name that resolves to loopback without a rule naming it.
	resp, err = c.Get(fmt.Sprintf("http://other.test:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("other.test -> 127.0.0.1: %d", resp.StatusCode)
	}
	recs := tp.waitRecords(t, 3)
	by := map[string]Conn{}
	for _, r := range recs {
		by[r.Host] = r
	}
	if l := by["local.test"]; len(recs) != 3 || l.Decision != "allow" || l.Client != "cmd-7" || l.Down == 0 || l.Up == 0 ||
		l.Addr != netip.MustParseAddr("127.0.0.1") || by["evil.test"].Decision != "deny" || by["other.test"].Rule != "net.private-address" {
		for _, r := range recs {
			t.Errorf("record %s: %#v", r.Dest, r)
		}
	}
	if len(tp.refused) != 2 {
		t.Errorf("refusals told: %v", tp.refused)
	}
}

func TestProxyConnectTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure "+r.TLS.ServerName)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tp := newTestProxy(t, map[string]string{"api.test": "127.0.0.1", "ask.test": "127.0.0.1"}, []string{"api.test"}, []string{"ask.test"}, false)
	client := func(sni string) *http.Client {
		tr := &http.Transport{Proxy: http.ProxyURL(tp.url), TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: sni}}
		return &http.Client{Transport: tr, Timeout: 10 * time.Second}
	}
	good := client("api.test")
	resp, err := good.Get(fmt.Sprintf("https://api.test:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	good.CloseIdleConnections() // the tunnel ends: its record is written
	if string(body) != "secure api.test" {
		t.Fatalf("through CONNECT: %q", body)
	}
	// SNI that names another host than the CONNECT: refused.
	if _, err := client("evil.test").Get(fmt.Sprintf("https://api.test:%d/", port)); err == nil {
		t.Fatal("a TLS client naming another host went through")
	}
	// An ask without anybody to answer: refused at once.
	start := time.Now()
	_, err = client("ask.test").Get(fmt.Sprintf("https://ask.test:%d/", port))
	if err == nil || !strings.Contains(err.Error(), "Forbidden") || time.Since(start) > 5*time.Second {
		t.Fatalf("unanswered ask: %v after %v", err, time.Since(start))
	}
	recs := tp.waitRecords(t, 3)
	var rules []string
	for _, r := range recs {
		rules = append(rules, r.Decision+" "+r.Rule+" "+r.Gate)
	}
	sort.Strings(rules) // records are written as connections end
	want := "allow net.host-allowed |deny net.host-unlisted no-human|deny net.tls-name "
	if got := strings.Join(rules, "|"); got != want {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestProxyAsk: an ask answered yes goes through.
func TestProxyAsk(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tp := newTestProxy(t, map[string]string{"ask.test": "127.0.0.1"}, nil, []string{"ask.test"}, true)
	// The approved name still reaches loopback only if the policy's
	// address check allows it: in this test's policy it does not.
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(tp.url)}}
	resp, err := c.Get(fmt.Sprintf("http://ask.test:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("approved name to loopback: %d", resp.StatusCode)
	}
	recs := tp.waitRecords(t, 1)
	if len(recs) != 1 || recs[0].Rule != "net.private-address" {
		t.Errorf("records %+v", recs)
	}
}

// TestProxyServerFirst: a protocol whose server speaks first (ssh) works
// through CONNECT; the client's bytes flow after.
func TestProxyServerFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "SSH-2.0-test\r\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "echo "+line)
	}()
	tp := newTestProxy(t, map[string]string{"git.test": "127.0.0.1"}, []string{"git.test"}, nil, false)
	c, err := net.Dial("tcp", tp.url.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT git.test:%d HTTP/1.1\r\nHost: git.test\r\n\r\n", l.Addr().(*net.TCPAddr).Port)
	br := bufio.NewReader(c)
	status, _ := br.ReadString('\n')
	if !strings.Contains(status, " 200") {
		t.Fatalf("CONNECT: %q", status)
	}
	for {
		h, _ := br.ReadString('\n')
		if h == "\r\n" || h == "" {
			break
		}
	}
	banner, _ := br.ReadString('\n')
	if banner != "SSH-2.0-test\r\n" {
		t.Fatalf("banner %q", banner)
	}
	io.WriteString(c, "SSH-2.0-client\r\n")
	echo, _ := br.ReadString('\n')
	if echo != "echo SSH-2.0-client\r\n" {
		t.Fatalf("echo %q", echo)
	}
}

func TestCheckSNI(t *testing.T) {
	hello := func(name string) []byte {
		var rec recordingConn
		c := tls.Client(&rec, &tls.Config{ServerName: name, InsecureSkipVerify: true})
		go c.Handshake()
		deadline := time.Now().Add(5 * time.Second)
		for rec.len() == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		return rec.bytes()
	}
	if why := checkSNI(hello("a.test"), "a.test"); why != "" {
		t.Errorf("matching SNI refused: %s", why)
	}
	if why := checkSNI(hello("b.test"), "a.test"); why == "" {
		t.Error("mismatched SNI accepted")
	}
	if why := checkSNI(hello(""), "a.test"); why == "" {
		t.Error("missing SNI accepted for a name")
	}
	if why := checkSNI([]byte("SSH-2.0-x\r\n"), "a.test"); why != "" {
		t.Errorf("non-TLS refused: %s", why)
	}
	if why := checkSNI([]byte{0x16, 3, 1, 0, 5, 1, 2}, "a.test"); why == "" {
		t.Error("a garbled hello accepted")
	}
}

// recordingConn records what a TLS client writes and blocks its reads.
type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.buf = append(c.buf, p...)
	c.mu.Unlock()
	return len(p), nil
}
func (c *recordingConn) Read([]byte) (int, error)         { select {} }
func (c *recordingConn) Close() error                     { return nil }
func (c *recordingConn) SetDeadline(time.Time) error      { return nil }
func (c *recordingConn) SetReadDeadline(time.Time) error  { return nil }
func (c *recordingConn) SetWriteDeadline(time.Time) error { return nil }
func (c *recordingConn) len() int                         { c.mu.Lock(); defer c.mu.Unlock(); return len(c.buf) }
func (c *recordingConn) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf...)
}

// TestProxyRelayCurl: the confined side's relay hands curl's connections
// (configured by Env alone) to the proxy on its Unix socket: an
// allowed host is reached, over plain HTTP and through CONNECT; a refused
// one gets the proxy's answer with the rule ID.
func TestProxyRelayCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain "+r.Host) }))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure "+r.TLS.ServerName) }))
	defer secure.Close()
	tp := newTestProxy(t, map[string]string{"reg.test": "127.0.0.1"}, []string{"reg.test"}, nil, false)
	// Each relayed connection reaches the proxy over a socketpair, as the
	// broker's streams do (sandbox.Client.Open).
	dir := t.TempDir()
	relay, err := StartRelay(func() (net.Conn, error) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			return nil, err
		}
		conn := func(fd int) net.Conn {
			f := os.NewFile(uintptr(fd), "pair")
			defer f.Close()
			c, err := net.FileConn(f)
			if err != nil {
				t.Error(err)
			}
			return c
		}
		go tp.ServeConn(conn(fds[1]))
		return conn(fds[0]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, Env(relay.Addr(), "cmd-9")...)
	run := func(args ...string) (string, error) {
		cmd := exec.Command(curl, append([]string{"-sS", "--max-time", "10"}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	p := func(s *httptest.Server) int { return s.Listener.Addr().(*net.TCPAddr).Port }
	if out, err := run(fmt.Sprintf("http://reg.test:%d/a", p(plain))); err != nil || out != fmt.Sprintf("plain reg.test:%d", p(plain)) {
		t.Errorf("plain http through the relay: %v %q", err, out)
	}
	if out, err := run("-k", fmt.Sprintf("https://reg.test:%d/a", p(secure))); err != nil || out != "secure reg.test" {
		t.Errorf("https through the relay: %v %q", err, out)
	}
	out, err := run("-k", fmt.Sprintf("https://evil.test:%d/", p(secure)))
	if err == nil || !strings.Contains(out, "403") {
		t.Errorf("refused https: %v %q", err, out)
	}
	out, _ = run(fmt.Sprintf("http://evil.test:%d/", p(plain)))
	if !strings.Contains(out, "denied [net.host-denied]") {
		t.Errorf("refused plain http: %q", out)
	}
	recs := tp.waitRecords(t, 4)
	if len(recs) < 4 || recs[0].Client != "cmd-9" {
		t.Errorf("records %d, first client %q", len(recs), recs[0].Client)
	}
}

// FuzzClientHello: the ClientHello reader never panics, and a name it
// returns lies within the input.
func FuzzClientHello(f *testing.F) {
	f.Add([]byte{0x16, 3, 1, 0, 5, 1, 0, 0, 1, 0})
	f.Add([]byte("SSH-2.0-x\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, _, ok := clientHelloServerName(b)
		if ok && name != "" && !strings.Contains(string(b), name) {
			t.Fatalf("name %q not in the input", name)
		}
		checkSNI(b, "a.test")
	})
}
