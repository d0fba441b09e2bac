package main

import (
	"strings"
	"testing"
)

// TestHookStrictRewrites: in strict mode the hook always has the agent
// run an allowed command under guardsh, --rewrite or not. The checker
// allows bash ./x.sh, export LD_PRELOAD=... and PATH=./bin:$PATH ls because
// guardsh's runner decides the script's commands one by one, resets the
// environment and looks programs up in the system directories; run by the
// agent's own shell, x.sh (which the model just wrote) would run unchecked.
func TestHookStrictRewrites(t *testing.T) {
	exe, _ := defaultExe()
	for _, src := range []string{
		`printf 'cat /etc/shadow\n' > x.sh; bash x.sh`,
		`export LD_PRELOAD=./x.so; ls`,
		`ls -la`,
	} {
		for _, tc := range []struct {
			args []string
			in   string
		}{
			{[]string{"claude", "--mode", "strict"}, claudeBash(src)},
			{[]string{"claude", "--no-rewrite", "--mode=strict"}, claudeBash(src)},
			{[]string{"codex", "--mode", "strict"}, codexBash(src)},
			{[]string{"gemini", "--mode", "strict"}, geminiShell(src)},
			{[]string{"claude"}, claudeBash(src)}, // GUARDSH_MODE below
		} {
			r := runHookTest(t, tc.args, tc.in, map[string]string{"GUARDSH_MODE": "strict"})
			if r.code != 0 || r.decision != "allow" {
				t.Errorf("%v %q: status %d, decision %q, stdout %s", tc.args, src, r.code, r.decision, r.stdout)
				continue
			}
			if !strings.HasPrefix(r.command, exe+" --mode=strict -c ") {
				t.Errorf("%v %q: the agent would run %q itself, not under guardsh (%s)", tc.args, src, r.command, r.stdout)
			}
		}
	}
	// other modes keep the agent's choice
	if r := runHookTest(t, []string{"claude", "--mode", "auto", "--no-rewrite"}, claudeBash("ls -la"), nil); r.command != "" {
		t.Errorf("auto mode with --no-rewrite rewrote: %q", r.command)
	}
}
