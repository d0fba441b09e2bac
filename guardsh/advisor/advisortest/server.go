// Package advisortest is a fake Ollama server for tests of the advisor: it
// listens on 127.0.0.1 and speaks Ollama's real /api/chat wire protocol
// (a JSON object with message.content, prompt_eval_count and eval_count
// for a request with "stream": false; NDJSON lines when streaming; errors
// as {"error": "..."} with Ollama's statuses). No network, no model.
package advisortest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Reply is the server's answer to one request.
type Reply struct {
	// Content is the assistant message's content, e.g.
	// `{"percent": 85, "reason": "deletes the database"}`.
	Content string
	// Status, if not 0, is an HTTP error status sent with Body instead.
	Status int
	Body   string
	// Hold, if not nil, delays the answer until it is closed or the
	// client goes away.
	Hold <-chan struct{}
}

// Rating is a Reply with a well-formed rating.
func Rating(percent int, reason string) Reply {
	b, _ := json.Marshal(map[string]any{"percent": percent, "reason": reason})
	return Reply{Content: string(b)}
}

// ModelNotFound is Ollama's answer for a model that was not pulled.
func ModelNotFound(model string) Reply {
	b, _ := json.Marshal(map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", model)})
	return Reply{Status: http.StatusNotFound, Body: string(b)}
}

// Server is the fake Ollama server.
type Server struct {
	URL string
	srv *httptest.Server

	mu    sync.Mutex
	reqs  []*api.ChatRequest
	argvs [][]string
	reply func(argv []string, req *api.ChatRequest) Reply
	t     testing.TB
}

// New starts a server answering each request with reply(argv, req), where
// argv is the command the advisor's prompt carries.
func New(t testing.TB, reply func(argv []string, req *api.ChatRequest) Reply) *Server {
	s := &Server{t: t, reply: reply}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Hits is the number of /api/chat requests received.
func (s *Server) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*api.ChatRequest(nil), s.reqs...)
}

// Argvs returns the commands of the requests received so far.
func (s *Server) Argvs() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.argvs...)
}

// ArgvOf extracts the command from the advisor's user message ("argv: [...]"
// on its first line).
func ArgvOf(req *api.ChatRequest) []string {
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		first, _, _ := strings.Cut(m.Content, "\n")
		if js, ok := strings.CutPrefix(first, "argv: "); ok {
			var argv []string
			if json.Unmarshal([]byte(js), &argv) == nil {
				return argv
			}
		}
	}
	return nil
}

// UserText is the advisor's user message: the command, its statement as
// written, what it truncates, where it runs.
func UserText(req *api.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found")
		return
	}
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid character in request"}`)
		return
	}
	argv := ArgvOf(&req)
	s.mu.Lock()
	s.reqs = append(s.reqs, &req)
	s.argvs = append(s.argvs, argv)
	s.mu.Unlock()
	rep := s.reply(argv, &req)
	if rep.Hold != nil {
		select {
		case <-rep.Hold:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Status != 0 {
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
		return
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	done := map[string]any{
		"model": req.Model, "created_at": time.Now().UTC(),
		"message": map[string]any{"role": "assistant", "content": rep.Content},
		"done":    true, "done_reason": "stop",
		"total_duration": 123456789, "load_duration": 1000, "prompt_eval_count": prompt,
		"prompt_eval_duration": 1000, "eval_count": len(strings.Fields(rep.Content)) + 1, "eval_duration": 1000,
	}
	if req.Stream == nil || *req.Stream {
		w.Header().Set("Content-Type", "application/x-ndjson")
		msg := map[string]any{"model": req.Model, "created_at": time.Now().UTC(),
			"message": map[string]any{"role": "assistant", "content": rep.Content}, "done": false}
		b, _ := json.Marshal(msg)
		w.Write(append(b, '\n'))
		done["message"] = map[string]any{"role": "assistant", "content": ""}
	}
	b, _ := json.Marshal(done)
	w.Write(append(b, '\n'))
}
