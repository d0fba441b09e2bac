package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentAdminFlag: --admin-device enters the admin context, stated at
// the start and on every audit record of the agent and of its sandboxed
// session.
func TestAgentAdminFlag(t *testing.T) {
	img := filepath.Join(t.TempDir(), "loop.img")
	os.WriteFile(img, make([]byte, 1<<20), 0o644)
	for _, noSandbox := range []bool{false, true} {
		args := []string{"--admin-device", img}
		if noSandbox {
			args = append(args, "--no-sandbox")
		}
		out, errs, audit := agentRun(t, "", []string{shellTurn("true; ls", 0)}, args...)
		if !strings.Contains(out, "admin context (--admin-device "+img+")") {
			t.Errorf("noSandbox=%v: the start does not state the admin context:\n%s\n%s", noSandbox, out, errs)
		}
		lines := strings.Split(strings.TrimSpace(audit), "\n")
		if len(lines) < 2 {
			t.Fatalf("noSandbox=%v: audit log:\n%s", noSandbox, audit)
		}
		for _, l := range lines {
			if !strings.Contains(l, `"admin":"admin context (--admin-device `) {
				t.Errorf("noSandbox=%v: audit record without the admin context: %s", noSandbox, l)
			}
		}
	}
}

// TestAgentAdminNotFromInside: the admin context cannot be entered by a
// guardsh-agent started inside a session (its markers, or no_new_privs);
// there is no variable or config key for it; a device must exist.
func TestAgentAdminNotFromInside(t *testing.T) {
	dir, env := setup(t)
	inside := func(k string) string {
		if k == "GUARDSH_AGENT" {
			return "1"
		}
		return env(k)
	}
	for _, tt := range []struct {
		getenv func(string) string
		args   []string
		want   string
	}{
		{inside, []string{"--admin"}, "cannot be entered from inside a guardsh session"},
		{func(k string) string {
			if k == "GUARDSH_SANDBOX_RUN" {
				return "landlock"
			}
			return env(k)
		}, []string{"--admin-device", "/dev/null"}, "cannot be entered from inside"},
		{env, []string{"--admin-device", "relative.img"}, "give an absolute path"},
		{env, []string{"--admin-device", filepath.Join(dir, "missing.img")}, "no such file"},
	} {
		var o, e bytes.Buffer
		code := run(context.Background(), append(tt.args, "--workdir", dir, "task"), &o, &e, tt.getenv)
		if code != 2 || !strings.Contains(e.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, e.String(), tt.want)
		}
	}
	// agent.toml has no admin key.
	os.MkdirAll(filepath.Join(env("XDG_CONFIG_HOME"), "guardsh"), 0o755)
	os.WriteFile(filepath.Join(env("XDG_CONFIG_HOME"), "guardsh", "agent.toml"), []byte("admin = true\n"), 0o644)
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"--workdir", dir, "task"}, &o, &e, env); code != 2 || !strings.Contains(e.String(), `unknown key "admin"`) {
		t.Errorf("agent.toml admin: exit %d, %s", code, e.String())
	}
}
