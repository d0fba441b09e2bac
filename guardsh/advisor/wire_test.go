package advisor

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
	"github.com/ollama/ollama/api"
)

// The fake server speaks the protocol of Ollama's own client: the official
// api.Client gets the same answer from it as guardsh's.
func TestFakeServerSpeaksOllamaProtocol(t *testing.T) {
	srv := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.Rating(42, "x") })
	u, _ := url.Parse(srv.URL)
	stream := false
	var got api.ChatResponse
	err := api.NewClient(u, http.DefaultClient).Chat(context.Background(), &api.ChatRequest{Model: "m", Stream: &stream,
		Messages: []api.Message{{Role: "user", Content: "argv: [\"ls\"]"}}}, func(r api.ChatResponse) error { got = r; return nil })
	if err != nil || got.Message.Content != `{"percent":42,"reason":"x"}` || got.EvalCount == 0 || got.PromptEvalCount == 0 || !got.Done {
		t.Fatalf("official client: %+v, %v", got, err)
	}
	ours, err := chat(context.Background(), u, &chatRequest{Model: "m", Messages: []chatMessage{{"user", "argv: [\"ls\"]"}}})
	if err != nil || ours.Message.Content != got.Message.Content || ours.EvalCount != got.EvalCount || ours.PromptEvalCount != got.PromptEvalCount {
		t.Fatalf("ours: %+v, %v", ours, err)
	}
	// And its 404 is what the official client reports as Ollama's.
	nf := advisortest.New(t, func([]string, *api.ChatRequest) advisortest.Reply { return advisortest.ModelNotFound("m") })
	u2, _ := url.Parse(nf.URL)
	err = api.NewClient(u2, http.DefaultClient).Chat(context.Background(), &api.ChatRequest{Model: "m", Stream: &stream}, func(api.ChatResponse) error { return nil })
	var se api.StatusError
	if !asStatus(err, &se) || se.StatusCode != 404 || se.ErrorMessage != `model "m" not found, try pulling it first` {
		t.Fatalf("official client on 404: %v", err)
	}
}

func asStatus(err error, se *api.StatusError) bool {
	s, ok := err.(api.StatusError)
	*se = s
	return ok
}

// rawServer answers every connection with resp, after reading the request.
func rawServer(t *testing.T, resp string) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				n := 0
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
						json.Unmarshal([]byte(strings.TrimSpace(v)), &n)
					}
					if line == "\r\n" {
						break
					}
				}
				io.CopyN(io.Discard, br, int64(n))
				io.WriteString(c, resp)
			}()
		}
	}()
	u, _ := url.Parse("http://" + l.Addr().String())
	return u
}

func TestChatWire(t *testing.T) {
	const ok = `{"model":"m","message":{"role":"assistant","content":"{\"percent\":7,\"reason\":\"r\"}"},"done":true,"prompt_eval_count":11,"eval_count":3}`
	tests := []struct {
		name, resp string
		want       string // content, or error substring after "ERR "
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + itoa(len(ok)) + "\r\n\r\n" + ok, `{"percent":7,"reason":"r"}`},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + hex(16) + "\r\n" + ok[:16] + "\r\n" + hex(len(ok)-16) + "\r\n" + ok[16:] + "\r\n0\r\n\r\n", `{"percent":7,"reason":"r"}`},
		{"until close", "HTTP/1.1 200 OK\r\n\r\n" + ok, `{"percent":7,"reason":"r"}`},
		{"streamed anyway", "HTTP/1.1 200 OK\r\n\r\n" +
			`{"model":"m","message":{"role":"assistant","content":"{\"percent\":"},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":"9,\"reason\":\"r\"}"},"done":false}` + "\n" +
			`{"model":"m","message":{"role":"assistant","content":""},"done":true,"eval_count":5}` + "\n", `{"percent":9,"reason":"r"}`},
		{"error line", "HTTP/1.1 200 OK\r\n\r\n{\"error\":\"out of memory\"}\n", "ERR out of memory"},
		{"proxy html", "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 11\r\n\r\n<html></ht>", "ERR 502: <html></ht>"},
		{"not http", "SSH-2.0-OpenSSH_9.6\r\n", "ERR not an HTTP answer"},
		{"cut", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{", "ERR cut short"},
		{"not json", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "ERR Ollama's answer is not JSON"},
		{"empty", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "ERR empty answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r, err := chat(ctx, rawServer(t, tt.resp), &chatRequest{Model: "m"})
			if e, isErr := strings.CutPrefix(tt.want, "ERR "); isErr {
				if err == nil || !strings.Contains(err.Error(), e) {
					t.Fatalf("chat = %+v, %v; want error %q", r, err, e)
				}
				return
			}
			if err != nil || r.Message.Content != tt.want {
				t.Fatalf("chat = %+v, %v; want content %q", r, err, tt.want)
			}
		})
	}
}

// The request is Ollama's: decoded with its own types, at a host's path
// prefix too.
func TestChatRequestWire(t *testing.T) {
	var got api.ChatRequest
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		json.NewDecoder(r.Body).Decode(&got)
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"x"},"done":true}`)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/ollama")
	_, err := chat(context.Background(), u, &chatRequest{Model: "m", Messages: []chatMessage{{"system", "s"}, {"user", "u"}},
		Format: schema, Options: map[string]any{"temperature": 0}})
	if err != nil || path != "/ollama/api/chat" || got.Model != "m" || got.Stream == nil || *got.Stream || len(got.Messages) != 2 ||
		got.Messages[1].Content != "u" || string(got.Format) != string(schema) || got.Options["temperature"] != float64(0) {
		t.Fatalf("request %+v at %s, %v", got, path, err)
	}
	if _, err := chat(context.Background(), &url.URL{Scheme: "https", Host: "x"}, &chatRequest{}); err == nil || !strings.Contains(err.Error(), "only http://") {
		t.Errorf("https: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func hex(n int) string { return strconv.FormatInt(int64(n), 16) }

// Whatever listens on the port cannot make the advisor read without
// bound: an endless header line or body ends with an error at once, not
// at the timeout after gigabytes of memory.
func TestChatBoundedAnswer(t *testing.T) {
	for _, start := range []string{"HTTP/1.1 200 OK\r\nX-Big: ", "HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			c.Write([]byte(start))
			buf := []byte(strings.Repeat("a", 64<<10))
			for i := 0; i < 1<<14; i++ { // up to 1 GiB
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t0 := time.Now()
		_, err = chat(ctx, &url.URL{Scheme: "http", Host: l.Addr().String()}, &chatRequest{Model: "m"})
		late := ctx.Err() != nil
		cancel()
		l.Close()
		if err == nil || late || time.Since(t0) > 5*time.Second || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%q: chat took %v, err %v; want a prompt error", start, time.Since(t0), err)
		}
	}
}
