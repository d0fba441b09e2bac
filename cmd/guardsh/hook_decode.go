package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// The hook reads its event by exact keys. Go's encoding/json matches
// struct fields case-insensitively, so {"tool_input":...,"TOOL_INPUT":...}
// would be judged by whichever came last while the agent runs tool_input.
// Here an object is read key by key: a key given twice, or two keys that
// differ only in case, are an error (the hook then denies), and each field
// the hook relies on must have the type the protocol gives it.

// exactObject decodes one JSON object into its members, by exact key.
func exactObject(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	folded := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("key %q given twice", key)
		}
		f := foldKey(key)
		if other, dup := folded[f]; dup {
			return nil, fmt.Errorf("keys %q and %q differ only in case", other, key)
		}
		folded[f] = key
		out[key] = raw
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("unterminated JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return out, nil
}

// foldKey folds a key the way a case-insensitive matcher could: Unicode
// simple case folding (the Kelvin sign is k, the long s is s), which is
// what encoding/json and many agents' own decoders use.
func foldKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		// strings.EqualFold's folding, rune by rune: the smallest rune of
		// the orbit stands for all of it
		b.WriteRune(minFold(r))
	}
	return b.String()
}

func minFold(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// stringField returns a member that must be a JSON string when present
// (null counts as absent).
func stringField(obj map[string]json.RawMessage, key string) (string, bool, error) {
	raw, ok := obj[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("%s is not a string", key)
	}
	return s, true, nil
}
