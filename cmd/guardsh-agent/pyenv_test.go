package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentPyenvShim: the bundled agent runs python3 -m unittest through a
// pyenv-style shim (a bash script in a HOME outside every writable root
// that execs "pyenv exec python3", itself a bash script) and finishes
// verified. The shim runs as the installed program it is, with the real
// shell, inside the session sandbox; interpreted, its inner "pyenv exec"
// would be judged as a package manager and refused.
func TestAgentPyenvShim(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandboxed session runs as root here (CI does); skipping as non-root")
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 needed")
	}
	python := strings.TrimSpace(string(out))
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cache, 0o755)
	base, err := os.MkdirTemp(cache, "guardsh-agent-pyenv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if strings.HasPrefix(base, "/tmp/") {
		t.Skipf("the cache directory %s is a temporary directory: no home outside the sandbox's writable roots", base)
	}
	home := filepath.Join(base, "home")
	files := map[string]string{
		".pyenv/shims/python3": "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\nexport PYENV_ROOT=\"$HOME/.pyenv\"\nexec \"$PYENV_ROOT/libexec/pyenv\" exec \"$program\" \"$@\"\n",
		".pyenv/libexec/pyenv": "#!/usr/bin/env bash\nset -e\n[ \"$1\" = exec ] || exit 1\nshift; prog=$1; shift\necho \"pyenv: $prog\" >&2\nexec " + python + " \"$@\"\n",
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "proj")
	os.MkdirAll(dir, 0o755)
	test := "import unittest\n\nclass T(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(sum([1, 2]), 3)\n"
	if err := os.WriteFile(filepath.Join(dir, "test_sum.py"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", filepath.Join(home, ".pyenv/shims")+":/usr/local/bin:/usr/bin:/bin")
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	t.Setenv("PYTHONDONTWRITEBYTECODE", "1")
	vars := map[string]string{"GUARDSH_MODEL": "tiny:1b", "XDG_CONFIG_HOME": filepath.Join(base, "config")}
	env := func(k string) string { return vars[k] }
	o, e := runAgentTurns(t, env, []string{"--workdir", dir, "--test-cmd", "python3 -m unittest", "--mode", "auto", "add a test"},
		`[{"function":{"name":"write_file","arguments":{"path":"test_more.py","content":"import unittest\n\nclass M(unittest.TestCase):\n    def test_mul(self):\n        self.assertEqual(2 * 3, 6)\n"}}}]`,
		`[{"function":{"name":"run_shell","arguments":{"command":"python3 -m unittest"}}}]`,
		`[{"function":{"name":"finish","arguments":{"summary":"the tests pass"}}}]`,
	)
	for _, want := range []string{"pyenv: python3", "Ran 2 tests", "== done: the tests pass", "verification: tests pass (python3 -m unittest"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s\nstderr:\n%s", want, o, e)
		}
	}
	if strings.Contains(o, "needs approval") || strings.Contains(o, "install.package") {
		t.Errorf("the shim's insides were judged:\n%s", o)
	}
}
