package interp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// The env_scrubbed field: encoded as encoding/json does
// (omitted when nil, [] when empty), and only on the session's first
// decide record.
func TestAuditEnvScrubbed(t *testing.T) {
	for _, rec := range []guardsh.AuditRecord{
		{EnvScrubbed: nil}, {EnvScrubbed: []string{}}, {EnvScrubbed: []string{"GH_TOKEN", "AWS_SECRET_ACCESS_KEY"}, Sandbox: "x"},
	} {
		want, _ := json.Marshal(&rec)
		if got := appendRecord(nil, &rec); string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
	var buf bytes.Buffer
	a := NewAuditLog(&buf, "s")
	a.SetEnvScrubbed([]string{"GH_TOKEN"})
	id := a.Decide(&guardsh.AuditRecord{Argv: []string{"a"}})
	a.Exit(id, 0, time.Millisecond)
	a.Decide(&guardsh.AuditRecord{Argv: []string{"b"}})
	a.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"env_scrubbed":["GH_TOKEN"]`) ||
		strings.Contains(lines[1], "env_scrubbed") || strings.Contains(lines[2], "env_scrubbed") {
		t.Errorf("log:\n%s", buf.String())
	}
	buf.Reset()
	b := NewAuditLog(&buf, "s")
	b.SetEnvScrubbed([]string{})
	b.Decide(&guardsh.AuditRecord{Argv: []string{"a"}})
	if !strings.Contains(buf.String(), `"env_scrubbed":[]`) {
		t.Errorf("on, nothing removed: %s", buf.String())
	}
}
