package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackCleanEnvRealHomeWrites: the clean environment hands the
// commands paths in the user's real home (GOMODCACHE, RUSTUP_HOME,
// GUARDSH_CONFIG). In the sandbox a program the rules let run (a project
// script, whose code guardsh does not read) must not be able to write
// there: a file planted in the module cache or the toolchain directory is
// code the user's own builds run later, outside the sandbox.
func TestAttackCleanEnvRealHomeWrites(t *testing.T) {
	// The interpreter itself, not a version manager's shim (pyenv's is
	// judged as an installer).
	py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	python := strings.TrimSpace(string(py))
	// The test's fake home lives in /tmp, which the sandbox shares by
	// default: take that away so the home is as unwritable as a real one.
	t.Setenv("GUARDSH_SANDBOX_TMP", "0")
	const script = `import os
for k in ("GOMODCACHE", "RUSTUP_HOME", "GUARDSH_CONFIG"):
    p = os.environ.get(k, "")
    if not p:
        print("unset", k)
        continue
    t = os.path.join(p, "planted") if k != "GUARDSH_CONFIG" else p
    try:
        with open(t, "a") as f:
            f.write("planted\n")
        print("WROTE", k, t)
    except OSError as e:
        print("refused", k, e.errno)
`
	home := ""
	out, errs, _ := agentRunWith(t, func(h, config string) {
		home = h
		os.MkdirAll(filepath.Join(h, "go", "pkg", "mod"), 0o755)
		os.MkdirAll(filepath.Join(h, ".rustup"), 0o755)
		os.MkdirAll(filepath.Join(config, "guardsh"), 0o755)
		os.WriteFile(filepath.Join(config, "guardsh", "config.toml"), []byte("mode = \"auto\"\n"), 0o644)
	}, []string{shellTurn("cat > planter.py <<'EOF'\n"+script+"EOF\n"+python+" planter.py", 0)}, "--clean-env", "--mode", "auto")
	if !strings.Contains(out, "\nrefused GOMODCACHE") && !strings.Contains(out, "WROTE") {
		t.Fatalf("the script did not run:\n%s\n%s", out, errs)
	}
	t.Logf("script output:\n%s", out)
	if strings.Contains(out, "WROTE") {
		t.Errorf("a sandboxed program wrote the user's real home through the clean environment's paths:\n%s", out)
	}
	for _, p := range []string{filepath.Join(home, "go", "pkg", "mod", "planted"), filepath.Join(home, ".rustup", "planted")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
}
