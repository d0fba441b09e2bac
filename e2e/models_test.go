package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeServer is a model provider on 127.0.0.1 driving one script.
type fakeServer struct {
	url  string
	srv  *http.Server
	scr  *script
	tool toolSpec
	n    atomic.Int64 // replies sent, for message ids

	mu   sync.Mutex
	hits map[string]int // requests by path
}

// toolSpec says how the scripted model calls the agent's shell tool: the
// tool's name (the first of names the agent's request offers) and the
// arguments for a command.
type toolSpec struct {
	names []string
	args  func(tool, cmd string) map[string]any
}

// args is the tool input of step i's call.
func (fs *fakeServer) args(tool string, i int) map[string]any {
	if st := fs.scr.steps[i]; st.input != nil {
		return st.input(tool)
	}
	return fs.tool.args(tool, fs.scr.steps[i].cmd)
}

func (ts toolSpec) pick(offered []string) string {
	for _, n := range ts.names {
		for _, o := range offered {
			if o == n {
				return n
			}
		}
	}
	return ""
}

func startServer(t *testing.T, scr *script, tool toolSpec, h func(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{url: "http://" + ln.Addr().String(), scr: scr, tool: tool, hits: map[string]int{}}
	fs.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fs.mu.Lock()
		fs.hits[r.URL.Path]++
		fs.mu.Unlock()
		if r.URL.Path == "/typed-approval" {
			fmt.Fprintln(w, "APPROVED")
			return
		}
		h(fs, w, r, body)
	})}
	go fs.srv.Serve(ln)
	t.Cleanup(func() { fs.srv.Close() })
	return fs
}

// sse writes one server-sent event (event may be "").
func sse(w http.ResponseWriter, event string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// textOf flattens a tool result's content as providers carry it: a string,
// or a list of blocks with "text" (Anthropic, OpenAI content parts), or
// any JSON value (Gemini's functionResponse.response), to one string.
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, e := range x {
			b.WriteString(textOf(e))
			b.WriteString("\n")
		}
		return b.String()
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
		if c, ok := x["content"]; ok {
			return textOf(c)
		}
		if o, ok := x["output"]; ok {
			s := textOf(o)
			if e, ok := x["error"]; ok {
				s += "\n" + textOf(e)
			}
			return s
		}
		b, _ := json.Marshal(x)
		return string(b)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// ---- Anthropic Messages API (Claude Code) ----

// anthropicHandler speaks POST /v1/messages with "stream": true: the
// message_start, content_block_start/delta/stop, message_delta and
// message_stop events, a tool_use block for each step; the tool results
// come back as tool_result blocks in the next user message.
func anthropicHandler(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		fs.scr.countOther()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 100}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		fs.scr.note("anthropic: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		fs.scr.note("anthropic: bad request body: %v", err)
		http.Error(w, err.Error(), 400)
		return
	}
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
	}
	tool := fs.tool.pick(offered)
	results := map[int]string{}
	for _, m := range req.Messages {
		var blocks []map[string]any
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				id, _ := b["tool_use_id"].(string)
				results[stepOf(id)] = textOf(b["content"])
			}
		}
	}
	var blocks []map[string]any // content blocks of the reply
	stop := "end_turn"
	if tool == "" {
		fs.scr.countOther()
		blocks = append(blocks, map[string]any{"type": "text", "text": "ok"})
	} else if i := fs.scr.next(results); i < 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": finalText})
	} else {
		stop = "tool_use"
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": callID(i), "name": tool, "input": fs.args(tool, i)})
	}
	msgID := fmt.Sprintf("msg_e2e_%d", fs.n.Add(1))
	usage := map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		content := []map[string]any{}
		content = append(content, blocks...)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, mustJSON(map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage}))
		return
	}
	sseHeaders(w)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": msgID, "type": "message",
		"role": "assistant", "model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(b["input"])}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// ---- Gemini API (Gemini CLI) ----

// geminiHandler speaks POST /v1beta/models/M:streamGenerateContent?alt=sse
// (and :generateContent, :countTokens): each SSE event is a
// GenerateContentResponse whose candidate carries a functionCall part for
// each step; the results come back as functionResponse parts.
func geminiHandler(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte) {
	path := r.URL.Path
	if strings.HasSuffix(path, ":countTokens") {
		fs.scr.countOther()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens": 100}`)
		return
	}
	stream := strings.HasSuffix(path, ":streamGenerateContent")
	if !stream && !strings.HasSuffix(path, ":generateContent") {
		fs.scr.note("gemini: unexpected %s %s", r.Method, r.URL)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		fs.scr.note("gemini: bad request body: %v", err)
		http.Error(w, err.Error(), 400)
		return
	}
	var offered []string
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			offered = append(offered, f.Name)
		}
	}
	tool := fs.tool.pick(offered)
	results := map[int]string{}
	n := 0 // functionResponse parts in order, for those without an id
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			fr, ok := p["functionResponse"].(map[string]any)
			if !ok {
				continue
			}
			i := -1
			if id, ok := fr["id"].(string); ok {
				i = stepOf(id)
			}
			if i < 0 {
				i = n
			}
			n++
			results[i] = textOf(fr["response"])
		}
	}
	var parts []map[string]any
	if tool == "" {
		fs.scr.countOther()
		parts = []map[string]any{{"text": "ok"}}
	} else if i := fs.scr.next(results); i < 0 {
		parts = []map[string]any{{"text": finalText}}
	} else {
		parts = []map[string]any{{"functionCall": map[string]any{"id": callID(i), "name": tool, "args": fs.args(tool, i)}}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "gemini-2.5-flash",
		"responseId":    fmt.Sprintf("resp_e2e_%d", fs.n.Add(1)),
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, mustJSON(resp))
		return
	}
	sseHeaders(w)
	sse(w, "", resp)
}

// ---- OpenAI chat completions (opencode, pi, qwen-code) ----

// chatHandler speaks POST /v1/chat/completions with "stream": true:
// chat.completion.chunk events whose delta carries tool_calls (id, type
// "function", function name and arguments), finish_reason "tool_calls",
// then "data: [DONE]"; the results come back as role "tool" messages with
// the tool_call_id.
func chatHandler(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		fs.scr.countOther()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "e2e-model", "object": "model", "owned_by": "e2e"}]}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		fs.scr.note("chat: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		fs.scr.note("chat: bad request body: %v", err)
		http.Error(w, err.Error(), 400)
		return
	}
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Function.Name)
	}
	tool := fs.tool.pick(offered)
	results := map[int]string{}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			results[stepOf(m.ToolCallID)] = textOf(m.Content)
		}
	}
	id := fmt.Sprintf("chatcmpl-e2e-%d", fs.n.Add(1))
	var delta map[string]any
	finish := "stop"
	if tool == "" {
		fs.scr.countOther()
		delta = map[string]any{"role": "assistant", "content": "ok"}
	} else if i := fs.scr.next(results); i < 0 {
		delta = map[string]any{"role": "assistant", "content": finalText}
	} else {
		finish = "tool_calls"
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": callID(i), "type": "function",
			"function": map[string]any{"name": tool, "arguments": mustJSON(fs.args(tool, i))}}}}
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !req.Stream {
		msg := map[string]any{}
		for k, v := range delta {
			msg[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, mustJSON(map[string]any{"id": id, "object": "chat.completion", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage}))
		return
	}
	chunk := func(d map[string]any, fin any, u any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": fin}}}
		if u != nil {
			c["usage"] = u
		}
		return c
	}
	sseHeaders(w)
	sse(w, "", chunk(delta, nil, nil))
	sse(w, "", chunk(map[string]any{}, finish, usage))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// ---- OpenAI Responses API (Codex CLI) ----

// responsesHandler speaks POST /v1/responses with "stream": true: the
// response.created, response.output_item.added/done and response.completed
// events, a function_call item (call_id, name, arguments) for each step;
// the results come back as function_call_output input items.
func responsesHandler(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		fs.scr.countOther()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "e2e-model", "object": "model", "owned_by": "e2e"}], "models": []}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		fs.scr.note("responses: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string           `json:"model"`
		Input []map[string]any `json:"input"`
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		fs.scr.note("responses: bad request body: %v", err)
		http.Error(w, err.Error(), 400)
		return
	}
	var offered []string
	custom := map[string]bool{} // freeform tools: called with custom_tool_call
	var collect func(ts []any)
	collect = func(ts []any) {
		for _, x := range ts {
			t, _ := x.(map[string]any)
			if t["type"] == "namespace" {
				sub, _ := t["tools"].([]any)
				collect(sub)
				continue
			}
			if n, ok := t["name"].(string); ok {
				offered = append(offered, n)
				if t["type"] == "custom" {
					custom[n] = true
				}
			}
		}
	}
	for _, t := range req.Tools {
		collect([]any{t})
	}
	// Codex's code mode: the tools come as an additional_tools input
	// item, the shell among the nested tools of the freeform "exec".
	for _, it := range req.Input {
		if it["type"] == "additional_tools" {
			ts, _ := it["tools"].([]any)
			collect(ts)
		}
	}
	tool := fs.tool.pick(offered)
	if os.Getenv("GUARDSH_E2E_DEBUG") != "" {
		for _, t := range req.Tools {
			if t["name"] == tool {
				fs.scr.note("responses: tools offered %v; %s is %s", offered, tool, mustJSON(t))
			}
		}
	}
	results := map[int]string{}
	for _, it := range req.Input {
		if it["type"] == "function_call_output" || it["type"] == "custom_tool_call_output" {
			id, _ := it["call_id"].(string)
			results[stepOf(id)] = textOf(it["output"])
		}
	}
	n := fs.n.Add(1)
	var item map[string]any
	if tool == "" {
		fs.scr.countOther()
		fs.scr.note("responses: no shell tool among %v", offered)
		if d := os.Getenv("GUARDSH_E2E_DUMP"); d != "" {
			os.WriteFile(d, body, 0o644)
		}
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_e2e_%d", n), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "ok", "annotations": []any{}}}}
	} else if i := fs.scr.next(results); i < 0 {
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_e2e_%d", n), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": finalText, "annotations": []any{}}}}
	} else {
		if custom[tool] {
			in, _ := fs.args(tool, i)["input"].(string)
			item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_e2e_%d", n), "call_id": callID(i), "name": tool,
				"input": in, "status": "completed"}
		} else {
			item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_e2e_%d", n), "call_id": callID(i), "name": tool,
				"arguments": mustJSON(fs.args(tool, i)), "status": "completed"}
		}
	}
	respID := fmt.Sprintf("resp_e2e_%d", n)
	sseHeaders(w)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "object": "response",
		"status": "in_progress", "model": req.Model, "output": []any{}}})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": respID, "object": "response",
		"status": "completed", "model": req.Model, "output": []any{item},
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}
