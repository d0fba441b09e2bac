package interp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
	shinterp "mvdan.cc/sh/v3/interp"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of
// pipeline members.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testHC(stderr *bytes.Buffer) shinterp.HandlerContext {
	return shinterp.HandlerContext{Stdout: stderr, Stderr: stderr}
}

// testPolicy allows what bypass mode allows and denies "forbidden-cmd"
// (which does not exist: a command that is not refused fails with 127).
func testPolicy() *guardsh.Policy {
	p := guardsh.NewPolicy(guardsh.ModeBypass)
	p.Rules = append(p.Rules, guardsh.Rule{
		ID: "test.forbidden", Decision: guardsh.Deny, Prefix: []string{"forbidden-cmd"},
		Reason: "it is forbidden", Hint: "do something else",
	})
	return p
}

// runScript runs src in a fresh runner in dir and returns stdout, stderr
// and the status.
func runScript(t *testing.T, dir, src string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	r, err := New(Config{
		Policy: testPolicy(),
		Dir:    dir,
		Env:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir},
		Stdout: &out,
		Stderr: &errb,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := r.Run(context.Background(), strings.NewReader(src), "guardsh")
	return out.String(), errb.String(), st
}

// TestDeniedCommand: a refused command prints guardsh's message, has
// status 126, and the script goes on, wherever the command is: directly,
// in a bash -c child, a shebang-less script, a #!/bin/bash script, a
// function, a pipeline, a command substitution.
func TestDeniedCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plain"), []byte("forbidden-cmd from-plain\necho after-in-plain $?\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "tool.sh"), []byte("#!/bin/bash\nforbidden-cmd from-shebang\necho after-in-shebang $?\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "envtool.sh"), []byte("#!/usr/bin/env bash\nforbidden-cmd from-env\n"), 0o755)
	tests := []struct {
		name, src, stdout string
		status            int
	}{
		{"direct", "forbidden-cmd x; echo after $?", "after 126\n", 0},
		{"last", "forbidden-cmd x", "", 126},
		{"bash -c", "bash -c 'forbidden-cmd y'; echo after $?", "after 126\n", 0},
		{"sh -c", "sh -c 'echo in; forbidden-cmd y; echo still'; echo after $?", "after 126\n", 0},
		{"env bash -c", "/usr/bin/env FOO=1 bash -c 'forbidden-cmd y'; echo after $?", "after 126\n", 0},
		{"shebang-less", "./plain; echo after $?", "after-in-plain 126\nafter 0\n", 0},
		{"bash shebang", "./tool.sh; echo after $?", "after-in-shebang 126\nafter 0\n", 0},
		{"env shebang", "./envtool.sh; echo after $?", "after 126\n", 0},
		{"bash script", "bash tool.sh; echo after $?", "after-in-shebang 126\nafter 0\n", 0},
		{"function", "f() { forbidden-cmd z; echo in-f $?; }; f", "in-f 126\n", 0},
		{"pipeline", "forbidden-cmd | cat; echo after ${PIPESTATUS[0]}", "after 126\n", 0},
		{"substitution", "x=$(forbidden-cmd); echo after $?", "after 126\n", 0},
		{"set -e", "set -e; forbidden-cmd; echo not reached", "", 126},
		{"eval", "eval 'forbidden-cmd'; echo after $?", "after 126\n", 0},
		{"function named like it", "forbidden-cmd() { echo mine; }; forbidden-cmd", "mine\n", 0},
		{"function defined elsewhere", "if false; then forbidden-cmd() { :; }; fi; forbidden-cmd; echo after $?", "after 126\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, st := runScript(t, dir, tc.src)
			if out != tc.stdout || st != tc.status {
				t.Errorf("stdout %q status %d, want %q %d (stderr %q)", out, st, tc.stdout, tc.status, errs)
			}
			if tc.stdout != "mine\n" && !strings.Contains(errs, "guardsh: denied [test.forbidden]: it is forbidden. do something else") {
				t.Errorf("stderr %q lacks the refusal", errs)
			}
		})
	}
}

// TestPrintf: guardsh's printf against what bash prints.
func TestPrintf(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"%q", "a b"}, `a\ b`},
		{[]string{"%q", "it's"}, `it\'s`},
		{[]string{"%q", ""}, `''`},
		{[]string{"%q", "a\nb"}, `$'a\nb'`},
		{[]string{"%q", "~a"}, `\~a`},
		{[]string{"%q", "a=b,c"}, `a=b\,c`},
		{[]string{"%5.2f|%-5s|%05d", "3.14159", "ab", "42"}, " 3.14|ab   |00042"},
		{[]string{"%x %X %o %e", "255", "255", "8", "1234.5"}, "ff FF 10 1.234500e+03"},
		{[]string{"%s=%d\n", "a", "1", "b", "2"}, "a=1\nb=2\n"},
		{[]string{"%*d|%-*s|", "5", "3", "4", "x"}, "    3|x   |"},
		{[]string{"%.3s", "abcdef"}, "abc"},
		{[]string{"%d", "'A"}, "65"},
		{[]string{`\101\x41\u00e9`}, "AAé"},
		{[]string{"%b", `a\tb\c never`}, "a\tb"},
		{[]string{"%d %d", "0x1F", "010"}, "31 8"},
		{[]string{"%%"}, "%"},
	}
	g := &Runner{name: "guardsh"}
	for _, tc := range tests {
		var errb bytes.Buffer
		hc := testHC(&errb)
		got, st := g.printf(hc, tc.args)
		if got != tc.want || st != 0 {
			t.Errorf("printf %q = %q (%d), want %q; stderr %q", tc.args, got, st, tc.want, errb.String())
		}
	}
}
