package advisor

// Ollama's /api/chat over plain HTTP/1.1, by hand. guardsh links neither
// net/http nor github.com/ollama/ollama/api (which pull crypto/tls, x509,
// x/crypto/ssh, yaml...): their package initialisation cost every guardsh
// start ~0.8 ms for a feature that is off by default. The request and
// response are Ollama's wire format (the JSON of api.ChatRequest and
// api.ChatResponse; the tests decode and encode with those types), one
// request per connection ("Connection: close"), no proxy.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// chatRequest is the JSON of an /api/chat request (api.ChatRequest).
type chatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Stream   bool            `json:"stream"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  map[string]any  `json:"options,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatResponse is the part of an /api/chat answer the advisor reads
// (api.ChatResponse and its Metrics).
type chatResponse struct {
	Model           string      `json:"model"`
	Message         chatMessage `json:"message"`
	Done            bool        `json:"done"`
	PromptEvalCount int         `json:"prompt_eval_count"`
	EvalCount       int         `json:"eval_count"`
	Error           string      `json:"error"`
}

// statusError is a non-2xx answer: Ollama's {"error": "..."} message.
type statusError struct {
	Code int
	Msg  string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Msg) }

// maxBody bounds an answer's body, maxHeaders its status line and headers.
const (
	maxBody    = 1 << 20
	maxHeaders = 64 << 10
)

// chat sends req to host's /api/chat and returns the answer, the message
// contents of several NDJSON lines joined if the server streamed anyway.
func chat(ctx context.Context, host *url.URL, req *chatRequest) (*chatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if host.Scheme != "http" {
		return nil, fmt.Errorf("%s: only http:// hosts are supported (reach a remote Ollama through an SSH tunnel: ssh -L 11434:127.0.0.1:11434 HOST)", host)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host.Host)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	path := host.JoinPath("api", "chat").EscapedPath()
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: guardsh-advisor\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		path, host.Host, len(body))
	if _, err := conn.Write(append(head.Bytes(), body...)); err != nil {
		return nil, ctxErr(ctx, err)
	}
	// The whole answer is bounded, headers too: a server (or whatever
	// listens on the port) sending an endless header line must not grow
	// this process's memory until the timeout.
	code, data, err := readResponse(bufio.NewReader(&limitedReader{conn, maxBody + maxHeaders}))
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	if code < 200 || code > 299 {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return nil, &statusError{code, msg}
	}
	var out chatResponse
	dec := json.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var r chatResponse
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("Ollama's answer is not JSON: %q", clip(string(data), 80))
		}
		if r.Error != "" {
			return nil, errors.New(r.Error)
		}
		content := out.Message.Content + r.Message.Content
		out = r
		out.Message.Content = content
		n++
	}
	if n == 0 {
		return nil, errors.New("empty answer")
	}
	return &out, nil
}

// limitedReader reads at most n bytes from r, then fails with "answer too
// large" (io.LimitReader's end of file would read as a cut answer).
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("answer too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// readResponse reads an HTTP/1.1 response: its status code and body
// (Content-Length, chunked, or up to the end of the connection).
func readResponse(br *bufio.Reader) (int, []byte, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, nil, fmt.Errorf("no HTTP answer: %w", err)
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return 0, nil, fmt.Errorf("not an HTTP answer: %q", clip(strings.TrimSpace(line), 60))
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, nil, fmt.Errorf("not an HTTP answer: %q", clip(strings.TrimSpace(line), 60))
	}
	length, chunked := -1, false
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return 0, nil, fmt.Errorf("HTTP headers cut short: %w", err)
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if length, err = strconv.Atoi(v); err != nil || length < 0 {
				return 0, nil, fmt.Errorf("bad Content-Length %q", v)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(v, "chunked")
		}
	}
	var body []byte
	switch {
	case chunked:
		body, err = readChunked(br)
	case length >= 0:
		if length > maxBody {
			return 0, nil, fmt.Errorf("answer too large (%d bytes)", length)
		}
		body = make([]byte, length)
		_, err = io.ReadFull(br, body)
	default:
		body, err = io.ReadAll(io.LimitReader(br, maxBody+1))
		if err == nil && len(body) > maxBody {
			err = errors.New("answer too large")
		}
	}
	if err != nil {
		return 0, nil, fmt.Errorf("HTTP answer cut short: %w", err)
	}
	return code, body, nil
}

// readChunked reads a chunked body.
func readChunked(br *bufio.Reader) ([]byte, error) {
	var body []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		sz, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(sz, 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad chunk size %q", sz)
		}
		if n == 0 {
			return body, nil // trailers, if any, are not needed
		}
		if int64(len(body))+n > maxBody {
			return nil, errors.New("answer too large")
		}
		start := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, err
		}
		if _, err := br.Discard(2); err != nil { // CRLF
			return nil, err
		}
	}
}
