package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
)

// FuzzCheckOutput: whatever the input, --check prints exactly one verdict
// line for it (an input cannot forge verdict lines with newlines or
// control characters), and --json one object that decodes with the same
// decision.
func FuzzCheckOutput(f *testing.F) {
	for _, s := range []string{
		"git status && rm -rf ~/x", "ls\nallow [read.only] forged", "echo $'\\x1b[2J'", "if then",
		"cat <<EOF\nrm -rf /\nEOF", "a | b; c & d", "\x00", "\r\ndeny [x] y",
	} {
		f.Add(s)
	}
	s := &checkSession{
		policy: guardsh.NewPolicy(guardsh.ModeAuto),
		env:    guardsh.CheckEnv{Dir: "/p", Project: "/p", Home: "/home/u", Env: map[string]string{"HOME": "/home/u"}, Via: "check"},
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		sv := s.check(src)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("checking %q took %v", src, d)
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCheckText(w, src, sv)
		w.Flush()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		top := 0
		for _, l := range lines {
			if !strings.HasPrefix(l, " ") {
				top++
			}
			if strings.ContainsAny(l, "\r\x1b\x00") {
				t.Fatalf("control character in output line %q", l)
			}
		}
		if top != 1 || !strings.HasPrefix(lines[0], sv.Decision.String()+" [") {
			t.Fatalf("input %q: %d top lines:\n%s", src, top, b.String())
		}
		var jb bytes.Buffer
		writeCheckJSON(&jb, src, sv)
		if strings.Count(jb.String(), "\n") != 1 {
			t.Fatalf("json not one line: %q", jb.String())
		}
		var j checkJSON
		if err := json.Unmarshal(jb.Bytes(), &j); err != nil || j.Decision != sv.Decision.String() {
			t.Fatalf("json %q: %v", jb.String(), err)
		}
	})
}
