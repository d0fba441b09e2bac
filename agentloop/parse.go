package agentloop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// Call is one tool call, checked against the offered tools.
type Call struct {
	Name string
	Args map[string]any
}

// formatError is a reply the loop cannot act on; it is kept out of the
// history and the model is told how to write it.
type formatError struct{ msg string }

func (e *formatError) Error() string { return e.msg }

var (
	toolCallTag = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	fenced      = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\n(.*?)\n?```")
	// looksLikeCall spots text that tries to be a tool call.
	looksLikeCall = regexp.MustCompile(`(?s)<tool_call>|"(name|function|tool)"\s*:`)
	// brokenCall is the start of an object that means to be a call.
	brokenCall = regexp.MustCompile(`[\[{]\s*"(name|function|tool)"\s*:`)
	// specialTokens are template tokens some models leave in their text.
	specialTokens = regexp.MustCompile(`<\|[a-z_]+\|>|\[TOOL_CALLS\]`)
)

// extractCalls finds the tool calls of a reply: the native tool_calls, or,
// for models that write them as text, bare JSON in the content, JSON inside
// <tool_call> tags or a fenced block, with arguments as an object or as a
// JSON string. It returns the prose that is not a call. A reply with neither
// calls nor an attempt at one returns no calls and no error.
func extractCalls(msg api.Message, tools []toolSpec) (calls []Call, prose string, err error) {
	if len(msg.ToolCalls) > 0 {
		for _, tc := range msg.ToolCalls {
			args := tc.Function.Arguments.ToMap()
			if args == nil {
				args = map[string]any{}
			}
			// Some models nest the real arguments as a JSON string.
			if len(args) == 1 {
				for _, k := range []string{"arguments", "parameters", "args"} {
					if s, ok := args[k].(string); ok {
						var inner map[string]any
						if json.Unmarshal([]byte(s), &inner) == nil {
							args = inner
						}
					} else if m, ok := args[k].(map[string]any); ok {
						args = m
					}
				}
			}
			c, err := checkCall(tc.Function.Name, args, tools)
			if err != nil {
				return nil, "", err
			}
			calls = append(calls, c)
		}
		return calls, msg.Content, nil
	}
	content := msg.Content
	var blocks []string
	rest := content
	if m := toolCallTag.FindAllStringSubmatchIndex(content, -1); m != nil {
		for _, ix := range m {
			blocks = append(blocks, content[ix[2]:ix[3]])
		}
		rest = toolCallTag.ReplaceAllString(content, "")
	} else if m := fenced.FindAllStringSubmatchIndex(content, -1); m != nil {
		for _, ix := range m {
			body := strings.TrimSpace(content[ix[2]:ix[3]])
			if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") {
				blocks = append(blocks, body)
			}
		}
		if blocks != nil {
			rest = fenced.ReplaceAllStringFunc(content, func(s string) string {
				inner := strings.TrimSpace(fenced.FindStringSubmatch(s)[1])
				if strings.HasPrefix(inner, "{") || strings.HasPrefix(inner, "[") {
					return ""
				}
				return s
			})
		}
	} else if looksLikeCall.MatchString(content) {
		// Bare JSON, alone or among prose, one value or several
		// ("[TOOL_CALLS][...]", "<|python_tag|>{...}", two objects on two
		// lines).
		var b strings.Builder
		for i := 0; i < len(content); {
			c := content[i]
			if c == '{' || c == '[' {
				dec := json.NewDecoder(strings.NewReader(content[i:]))
				var raw json.RawMessage
				if dec.Decode(&raw) == nil && looksLikeCall.Match(raw) {
					blocks = append(blocks, string(raw))
					i += int(dec.InputOffset())
					continue
				}
			}
			b.WriteByte(c)
			i++
		}
		rest = specialTokens.ReplaceAllString(b.String(), "")
		if loc := brokenCall.FindStringIndex(content); len(blocks) == 0 && loc != nil {
			// It tries to be a call but is no valid JSON: say why.
			blocks = append(blocks, content[loc[0]:])
		}
	}
	if len(blocks) == 0 {
		return nil, content, nil
	}
	strict := strings.Contains(content, "<tool_call>")
	for _, b := range blocks {
		cs, err := parseTextCalls(b, tools, strict)
		if err != nil {
			return nil, "", err
		}
		calls = append(calls, cs...)
	}
	if len(calls) == 0 {
		return nil, content, nil
	}
	return calls, strings.TrimSpace(rest), nil
}

// parseTextCalls parses one JSON text: an object or an array of objects.
// Outside <tool_call> tags (strict), JSON that does not try to be a call
// (no tool name, no arguments) is the model showing data and is skipped.
func parseTextCalls(text string, tools []toolSpec, strict bool) ([]Call, error) {
	text = strings.TrimSpace(text)
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if !strict && !looksLikeCall.MatchString(text) {
			return nil, nil
		}
		return nil, &formatError{fmt.Sprintf("the tool call is not valid JSON (%v)", err)}
	}
	var objs []map[string]any
	switch t := v.(type) {
	case map[string]any:
		objs = append(objs, t)
	case []any:
		for _, x := range t {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, &formatError{"a tool call must be a JSON object"}
			}
			objs = append(objs, m)
		}
	default:
		return nil, &formatError{"a tool call must be a JSON object"}
	}
	var calls []Call
	for _, o := range objs {
		if f, ok := o["function"].(map[string]any); ok {
			o = f
		}
		name, _ := o["name"].(string)
		if name == "" {
			name, _ = o["tool"].(string)
		}
		var rawArgs any
		hasArgs := false
		for _, k := range []string{"arguments", "parameters", "args", "input"} {
			if a, ok := o[k]; ok {
				rawArgs, hasArgs = a, true
				break
			}
		}
		if !strict && !hasArgs && !offered(name, tools) {
			continue
		}
		args := map[string]any{}
		switch a := rawArgs.(type) {
		case nil:
		case map[string]any:
			args = a
		case string:
			d := json.NewDecoder(strings.NewReader(a))
			d.UseNumber()
			if strings.TrimSpace(a) != "" {
				if err := d.Decode(&args); err != nil {
					return nil, &formatError{fmt.Sprintf("the arguments of %s are a string that is not a JSON object (%v)", name, err)}
				}
			}
		default:
			return nil, &formatError{fmt.Sprintf("the arguments of %s must be a JSON object", name)}
		}
		c, err := checkCall(name, args, tools)
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	return calls, nil
}

func offered(name string, tools []toolSpec) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// checkCall validates a call against the offered tools and normalises its
// argument types (numbers given as strings, strings given as numbers).
func checkCall(name string, args map[string]any, tools []toolSpec) (Call, error) {
	var spec *toolSpec
	for i := range tools {
		if tools[i].Name == name {
			spec = &tools[i]
		}
	}
	if spec == nil {
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		if name == "" {
			return Call{}, &formatError{"the tool call has no tool name; the tools are: " + strings.Join(names, ", ")}
		}
		return Call{}, &formatError{fmt.Sprintf("there is no tool %q; the tools are: %s", name, strings.Join(names, ", "))}
	}
	out := map[string]any{}
	for _, p := range spec.Params {
		v, ok := args[p.Name]
		if !ok || v == nil {
			if p.Required {
				return Call{}, &formatError{fmt.Sprintf("%s needs the argument %q (%s); %s", name, p.Name, p.Type, spec.usage())}
			}
			continue
		}
		switch p.Type {
		case "string":
			switch t := v.(type) {
			case string:
				out[p.Name] = t
			case json.Number, float64, bool:
				out[p.Name] = fmt.Sprint(t)
			default:
				return Call{}, &formatError{fmt.Sprintf("%s: argument %q must be a string; %s", name, p.Name, spec.usage())}
			}
		case "array":
			l, err := toObjects(v, p.Fields)
			if err != nil {
				return Call{}, &formatError{fmt.Sprintf("%s: argument %q %v; %s", name, p.Name, err, spec.usage())}
			}
			out[p.Name] = l
		case "integer":
			n, err := toInt(v)
			if err != nil {
				return Call{}, &formatError{fmt.Sprintf("%s: argument %q must be an integer; %s", name, p.Name, spec.usage())}
			}
			out[p.Name] = n
		}
	}
	var unknown []string
	for k := range args {
		if spec.param(k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Call{}, &formatError{fmt.Sprintf("%s has no argument %s; %s", name, strings.Join(quoteAll(unknown), ", "), spec.usage())}
	}
	if spec.Check != nil {
		if why := spec.Check(out); why != "" {
			return Call{}, &formatError{fmt.Sprintf("%s %s; %s", name, why, spec.usage())}
		}
	}
	return Call{Name: name, Args: out}, nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

// toObjects checks an array of objects with the string fields fields (a
// JSON string holding the array is accepted: small models write one) and
// returns it as []any of map[string]any with string values.
func toObjects(v any, fields []string) ([]any, error) {
	if s, ok := v.(string); ok {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return nil, errors.New("must be a list of objects, not a string")
		}
		v = x
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, errors.New("must be a non-empty list of objects")
	}
	out := make([]any, 0, len(l))
	for i, x := range l {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("element %d is not an object", i+1)
		}
		o := map[string]any{}
		for k, val := range m {
			if !slices.Contains(fields, k) {
				return nil, fmt.Errorf("element %d has no field %q (fields: %s)", i+1, k, strings.Join(fields, ", "))
			}
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: %q must be a string", i+1, k)
			}
			o[k] = s
		}
		for _, f := range fields {
			if _, ok := o[f]; !ok {
				return nil, fmt.Errorf("element %d lacks %q", i+1, f)
			}
		}
		out = append(out, o)
	}
	return out, nil
}

func toInt(v any) (int, error) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return int(f), err
	case float64:
		return int(t), nil
	case int:
		return t, nil
	case int64:
		return int(t), nil
	case string:
		return strconv.Atoi(strings.TrimSpace(t))
	}
	return 0, errors.New("not a number")
}

// callsToAPI turns checked calls into the native form kept in the history.
func callsToAPI(calls []Call) []api.ToolCall {
	var out []api.ToolCall
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		keys := make([]string, 0, len(c.Args))
		for k := range c.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args.Set(k, c.Args[k])
		}
		out = append(out, api.ToolCall{Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}})
	}
	return out
}

// compactJSON renders v on one line for the transcript and the screen.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(buf.String())
}
