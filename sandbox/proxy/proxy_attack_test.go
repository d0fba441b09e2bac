package proxy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProxyHeadBounded: a request line or header without an end is not
// read into memory past maxHead: the proxy answers and closes while the
// client is still sending.
func TestProxyHeadBounded(t *testing.T) {
	tp := newTestProxy(t, nil, nil, nil, false)
	for _, start := range []string{"", "GET http://x.test/ HTTP/1.1\r\nX-A: "} {
		c, err := net.Dial("tcp", tp.url.Host)
		if err != nil {
			t.Fatal(err)
		}
		var sent atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			io.WriteString(c, start)
			chunk := []byte(strings.Repeat("a", 64<<10))
			for sent.Load() < 64<<20 {
				c.SetWriteDeadline(time.Now().Add(10 * time.Second))
				n, err := c.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		}()
		<-done
		c.Close()
		if n := sent.Load(); n >= 64<<20 {
			t.Errorf("head %q: the proxy read %d bytes of one line without answering", start, n)
		}
	}
}

// TestProxyHostHeader: a plain HTTP request's Host header is the host the
// proxy decided (RFC 9112 3.2.2: a proxy replaces it), not another one the
// client wrote, which a virtual-hosting or fronting server would route by.
func TestProxyHostHeader(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tp := newTestProxy(t, map[string]string{"allowed.test": "127.0.0.1"}, []string{"allowed.test"}, nil, false)
	for _, extra := range []string{"Host: 169.254.169.254\r\n", "host:metadata.internal\r\nHost: x\r\n", " Host: evil.test\r\n"} {
		c, err := net.Dial("tcp", tp.url.Host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET http://allowed.test:%d/ HTTP/1.1\r\n%s\r\n", port, extra)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	want := fmt.Sprintf("allowed.test:%d", port)
	for _, h := range hosts {
		if h != want {
			t.Errorf("the server saw Host %q, the proxy decided %q", h, want)
		}
	}
}

// TestProxyPipelined: a second request on a plain HTTP connection goes to
// the host the first was decided for, never to the host it names.
func TestProxyPipelined(t *testing.T) {
	var other atomic.Int32
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { other.Add(1) }))
	defer srvB.Close()
	srvA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a") }))
	defer srvA.Close()
	pa := srvA.Listener.Addr().(*net.TCPAddr).Port
	pb := srvB.Listener.Addr().(*net.TCPAddr).Port
	tp := newTestProxy(t, map[string]string{"a.test": "127.0.0.1"}, []string{"a.test"}, nil, false)
	c, err := net.Dial("tcp", tp.url.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET http://a.test:%d/ HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", pa, pb, pb)
	io.Copy(io.Discard, c)
	c.Close()
	if other.Load() != 0 {
		t.Errorf("a pipelined request reached the other server")
	}
}

// clientHello builds a TLS record holding a ClientHello that names sni
// (none when ""), with extra extensions (type, data).
func clientHello(sni string, extra ...[]byte) []byte {
	var exts []byte
	if sni != "" {
		name := []byte(sni)
		list := append([]byte{0}, byte(len(name)>>8), byte(len(name)))
		list = append(list, name...)
		data := append([]byte{byte(len(list) >> 8), byte(len(list))}, list...)
		exts = append(exts, 0, 0, byte(len(data)>>8), byte(len(data)))
		exts = append(exts, data...)
	}
	for _, e := range extra {
		exts = append(exts, e...)
	}
	body := []byte{3, 3}
	body = append(body, make([]byte, 32)...)
	body = append(body, 0)             // session id
	body = append(body, 0, 2, 0x13, 1) // one cipher suite
	body = append(body, 1, 0)          // compression
	body = binary.BigEndian.AppendUint16(body, uint16(len(exts)))
	body = append(body, exts...)
	hs := append([]byte{1, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{0x16, 3, 1, byte(len(hs) >> 8), byte(len(hs))}, hs...)
}

func ext(typ uint16, data []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, typ)
	b = binary.BigEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

// TestProxySNIAttacks: the first TLS record must name the CONNECT host,
// and a hello that hides the name it really goes to (Encrypted Client
// Hello: the outer name is a cover) is refused.
func TestProxySNIAttacks(t *testing.T) {
	tests := []struct {
		name  string
		host  string
		first []byte
		ok    bool
	}{
		{"same name", "api.test", clientHello("api.test"), true},
		{"trailing dot, case", "api.test", clientHello("API.test."), true},
		{"other name", "api.test", clientHello("evil.test"), false},
		{"no name for a name", "api.test", clientHello(""), false},
		{"no name for an address", "127.0.0.1", clientHello(""), true},
		{"encrypted client hello", "api.test", clientHello("api.test", ext(0xfe0d, []byte{0, 0, 1, 0, 1, 0, 0, 0, 0})), false},
		{"hello split across records", "api.test", clientHello("api.test")[:40], false},
		{"name with a NUL", "api.test", clientHello("api.test\x00.evil.test"), false},
	}
	for _, tt := range tests {
		why := checkSNI(tt.first, tt.host)
		if (why == "") != tt.ok {
			t.Errorf("%s: checkSNI = %q, want ok=%v", tt.name, why, tt.ok)
		}
	}
}

// TestProxyConnCap: a command cannot hold the privileged side's
// descriptors without bound: past MaxConns connections at once, a new one
// is answered 503 and closed at once.
func TestProxyConnCap(t *testing.T) {
	tp := newTestProxy(t, nil, nil, nil, false)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range maxConns + 10 {
		c, err := net.Dial("tcp", tp.url.Host)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	last := held[len(held)-1]
	last.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(last), nil)
	if err != nil || resp.StatusCode != 503 {
		t.Errorf("connection %d of %d held at once: %v %v", len(held), maxConns, resp, err)
	}
}
