package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorAgents(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir() // the agents and a real-looking bash
	for _, name := range []string{"claude", "gemini", "aider", "bash"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim := t.TempDir()
	for _, name := range shimNames {
		if err := os.Symlink(self, filepath.Join(shim, name)); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"),
		[]byte(`{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"guardsh --hook gemini"}]}]}}`), 0o644)

	tests := []struct {
		name   string
		env    map[string]string
		ok     bool
		want   []string
		absent []string
	}{
		{
			name: "plain environment",
			env:  map[string]string{"PATH": bin, "SHELL": filepath.Join(bin, "bash"), "HOME": home},
			ok:   false,
			want: []string{
				"Claude Code", "shell: " + filepath.Join(bin, "bash") + " (SHELL): NOT guardsh", "fix:   guardsh --launch -- claude",
				"Gemini CLI", "(bash on PATH): NOT guardsh", "hook:  guardsh --hook gemini registered in " + filepath.Join(home, ".gemini", "settings.json"),
				"Aider",
			},
			absent: []string{"Codex CLI", "OpenHands", "fix:   guardsh --launch -- gemini"},
		},
		{
			name: "under guardsh --launch",
			env:  envMap(launchEnv([]string{"PATH=" + bin, "SHELL=/bin/bash", "HOME=" + home}, shim, "")),
			ok:   true,
			want: []string{
				"(CLAUDE_CODE_SHELL): guardsh", "(bash on PATH): guardsh", "(SHELL): guardsh", "running under guardsh --launch",
			},
			absent: []string{"NOT guardsh", "fix:"},
		},
		{
			name: "no agents",
			env:  map[string]string{"PATH": t.TempDir()},
			ok:   true,
			want: []string{"none of claude"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			ok := doctorAgentsEnv(&b, func(k string) string { return tc.env[k] })
			out := b.String()
			if ok != tc.ok {
				t.Errorf("doctorAgents = %v, want %v\n%s", ok, tc.ok, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(out, w) {
					t.Errorf("report has %q:\n%s", w, out)
				}
			}
		})
	}
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestIsGuardsh(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	link := filepath.Join(dir, "bash")
	os.Symlink(self, link)
	wrapper := filepath.Join(dir, "wrapper")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec /usr/local/bin/guardsh \"$@\"\n"), 0o755)
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("#!/bin/sh\necho guardsh is not exec'd here\n"), 0o755)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{link, true}, {self, true}, {wrapper, true}, {other, false}, {"", false}, {filepath.Join(dir, "missing"), false},
	} {
		if got := isGuardsh(tc.path, self); got != tc.want {
			t.Errorf("isGuardsh(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
