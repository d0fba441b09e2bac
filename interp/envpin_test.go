package interp

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// TestEnvPin: a script cannot hand a laxer mode or another configuration
// file to a guardsh that one of its programs starts (the bash/sh shims
// under make, a script's shell): exported GUARDSH_MODE and GUARDSH_CONFIG
// are replaced by the session's in every child's environment, whether set
// with export, declare -x, a prefix assignment, or inside a nested shell.
// Tightening (a stricter mode) is kept. (Where the rules already see the
// assignment, as in a bash -c string, they refuse it: that passes too.)
func TestEnvPin(t *testing.T) {
	show := `/usr/bin/env | grep '^GUARDSH_' | sort`
	tests := []struct {
		name, src, want string
	}{
		{"export", "export GUARDSH_MODE=bypass GUARDSH_CONFIG=/p/evil.toml; " + show, "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=auto\n"},
		{"declare -x", "declare -x GUARDSH_MODE=bypass; " + show, "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=auto\n"},
		{"prefix", "GUARDSH_MODE=bypass GUARDSH_CONFIG=/p/evil.toml " + show, "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=auto\n"},
		{"unset", "unset GUARDSH_MODE GUARDSH_CONFIG; " + show, "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=auto\n"},
		{"nested shell", "bash -c 'export GUARDSH_MODE=bypass; " + show + "'", "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=auto\n"},
		{"tighten", "GUARDSH_MODE=plan " + show, "GUARDSH_CONFIG=/u/config.toml\nGUARDSH_MODE=plan\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var out, errb syncBuffer
			r, err := New(Config{
				Policy: guardsh.NewPolicy(guardsh.ModeAuto),
				Dir:    dir,
				Env:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GUARDSH_MODE=auto", "GUARDSH_CONFIG=/u/config.toml"},
				Stdout: &out,
				Stderr: &errb,
			})
			if err != nil {
				t.Fatal(err)
			}
			st := r.Run(context.Background(), strings.NewReader(tt.src), "guardsh")
			if st == 126 && strings.Contains(errb.String(), "[guardsh.self]") && out.String() == "" {
				return // refused outright by the rules: as good
			}
			if st != 0 || out.String() != tt.want {
				t.Errorf("status %d, stdout:\n%s\nwant:\n%s\nstderr: %s", st, out.String(), tt.want, errb.String())
			}
		})
	}
}

// TestUnsetInherited: a variable of the session's starting environment
// that the script unsets is gone from the programs it starts, as in bash
// (bash -c 'unset FOO; printenv FOO' prints nothing, status 1), at the top
// level and in a subshell; one it changes has its new value.
func TestUnsetInherited(t *testing.T) {
	tests := []struct{ src, want string }{
		{`unset FOO; /usr/bin/printenv FOO; echo "rc=$?"`, "rc=1\n"},
		{`( unset FOO; /usr/bin/printenv FOO; echo "rc=$?" )`, "rc=1\n"},
		{`unset https_proxy; /usr/bin/env | grep -c '^https_proxy='`, "0\n"},
		{`FOO=changed; /usr/bin/printenv FOO`, "changed\n"},
		{`export -n FOO; /usr/bin/printenv FOO; echo "rc=$?"`, "rc=1\n"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		var out, errb syncBuffer
		r, err := New(Config{
			Policy: guardsh.NewPolicy(guardsh.ModeAuto),
			Dir:    dir,
			Env:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "FOO=bar", "https_proxy=http://127.0.0.1:9"},
			Stdout: &out,
			Stderr: &errb,
		})
		if err != nil {
			t.Fatal(err)
		}
		r.Run(context.Background(), strings.NewReader(tt.src), "guardsh")
		if out.String() != tt.want {
			t.Errorf("%s: stdout %q, want %q (bash); stderr: %s", tt.src, out.String(), tt.want, errb.String())
		}
	}
}
