package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The env_scrubbed field: encoded as encoding/json does
// (omitted when nil, [] when empty), and only on the session's first
// decide record.
func TestAuditEnvScrubbed(t *testing.T) {
	for _, rec := range []Record{
		{EnvScrubbed: nil}, {EnvScrubbed: []string{}}, {EnvScrubbed: []string{"GH_TOKEN", "AWS_SECRET_ACCESS_KEY"}, Sandbox: "x"},
	} {
		want, _ := json.Marshal(&rec)
		if got := appendRecord(nil, &rec); string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
	var buf bytes.Buffer
	a := New(&buf, "s")
	a.SetEnvScrubbed([]string{"GH_TOKEN"})
	id := a.Decide(&Record{Argv: []string{"a"}})
	a.Exit(id, 0, time.Millisecond)
	a.Decide(&Record{Argv: []string{"b"}})
	a.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"env_scrubbed":["GH_TOKEN"]`) ||
		strings.Contains(lines[1], "env_scrubbed") || strings.Contains(lines[2], "env_scrubbed") {
		t.Errorf("log:\n%s", buf.String())
	}
	buf.Reset()
	b := New(&buf, "s")
	b.SetEnvScrubbed([]string{})
	b.Decide(&Record{Argv: []string{"a"}})
	if !strings.Contains(buf.String(), `"env_scrubbed":[]`) {
		t.Errorf("on, nothing removed: %s", buf.String())
	}
}
