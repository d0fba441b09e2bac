//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The working day (docs/sandbox.md, "Installed programs"): a day of Go,
// Python, Node, make and git work runs under guardsh --mode auto, in its
// verified sandbox and without a terminal, with the same output and exit
// status as under bash. The HOME is a throwaway one outside the temporary
// directories (so outside every writable root of the sandbox), holding
// hand-made pyenv-, rbenv-, asdf- and nvm-style shims and version
// managers; guardsh's own bash and sh shims come first on PATH. No
// network: Go, pip and npm work offline.

// workdayFiles are the projects' files, written before each run.
var workdayFiles = map[string]string{
	"go/go.mod": "module example.com/day\n\ngo 1.21\n",
	"go/day.go": "package day\n\nimport (\"fmt\"; \"net/http\")\n\n// Hello greets.\nfunc Hello(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, \"hello \"+r.URL.Query().Get(\"n\")) }\n",
	"go/day_test.go": `package day

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(Hello))
	defer srv.Close()
	res, err := http.Get(srv.URL + "?n=day")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if string(b) != "hello day" {
		t.Fatalf("got %q", b)
	}
}
`,
	"py/test_sock.py": `import socket, socketserver, threading, unittest

class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(self.request.recv(64).upper())

class T(unittest.TestCase):
    def test_echo(self):
        with socketserver.TCPServer(("127.0.0.1", 0), Echo) as srv:
            threading.Thread(target=srv.handle_request, daemon=True).start()
            with socket.create_connection(srv.server_address, 5) as c:
                c.sendall(b"day")
                self.assertEqual(c.recv(64), b"DAY")
`,
	"py/lib.sh":         "greet() { echo \"hello $1\"; }\n",
	"node/package.json": "{\n  \"name\": \"day\",\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"scripts\": {\n    \"test\": \"node test.js\",\n    \"greet\": \"echo greet from npm\"\n  }\n}\n",
	"node/test.js": `const http = require("http");
const srv = http.createServer((q, r) => r.end("pong")).listen(0, "127.0.0.1", () => {
  http.get({host: "127.0.0.1", port: srv.address().port}, (res) => {
    let b = ""; res.on("data", (d) => b += d);
    res.on("end", () => { console.log("node test:", b); srv.close(); });
  });
});
`,
	"newrepo/.keep": "",
	"make/Makefile": "all: build test\nbuild:\n\t@echo building $(NAME)\n\t@mkdir -p out && echo bin > out/app\ntest:\n\t@test -f out/app && echo tests pass\nclean:\n\t@rm -rf out\n",
}

// workdaySteps are the day's command lines, run one by one in the
// project named by dir.
var workdaySteps = []struct{ dir, cmd string }{
	// version managers: pyenv, rbenv, asdf shims; nvm's functions
	{"py", "python3 --version"},
	{"py", "python3 -c 'print(6*7)'"},
	{"py", "rbtool hello from rbenv"},
	{"go", "go version | cut -d' ' -f1-2"},
	{"node", "source $HOME/.nvm/nvm.sh && nvm use 20 && node --version && type nvm | head -1"},
	// lookups and versions
	{"py", "command -v kubectl; echo $?; type -t python3; ssh -V 2>&1 | cut -c1-7; openssl version | cut -d' ' -f1"},
	// Go: a module with an httptest test (loopback inside the sandbox)
	{"go", "go test -count=1 ./... 2>&1 | sed 's/\t[0-9.]*s$//'"},
	// Python: a venv, pip inside it (bare, after activate), a unittest with a socket server
	{"py", "python3 -m venv .venv && .venv/bin/pip --version | cut -d' ' -f1-2"},
	{"py", "source .venv/bin/activate && pip --version | cut -d' ' -f1 && pip install --no-index --quiet nosuchpkg 2>&1 | tail -1; pip list --format=freeze 2>/dev/null | grep -c '^pip=='; deactivate; echo ${VIRTUAL_ENV:-none}"},
	{"py", "python3 -m unittest -q test_sock 2>&1 | tail -1"},
	{"py", "source ./lib.sh; greet day; eval 'twice() { greet \"$1\"; greet \"$1\"; }'; twice eval"},
	{"py", "find . -name '*.pyc' -delete; find . -name __pycache__ -type d -exec rm -r {} +; ls"},
	// Node: npm scripts and npx
	{"node", "npm test --silent && npm run --silent greet"},
	{"node", "npx --version >/dev/null && echo npx ok; npm pkg set description=day && npm pkg get description"},
	// make
	{"make", "make -s NAME=app && make -s clean && ls"},
	// jobs, temp dirs
	{"make", "sleep 30 & kill $!; wait $! 2>/dev/null; echo killed=$?; d=$(mktemp -d /tmp/day.XXXXXX) && mkdir -p $d/sub && rm -r $d && echo tmp gone"},
	// git: init/add/commit in a new repository; branch/stash/config and a
	// hook that calls git in one its human prepared
	{"newrepo", "git init -q . && echo a > a.txt && git add -A && git commit -q -m first && git log --format=%s && git branch --show-current"},
	{"git", "git add -A && git commit -q -m first && git log --format=%s && cat hook-saw.txt"},
	{"git", "git branch feature && git switch -q feature && echo change >> notes.txt && git stash -q && git stash list | wc -l && git stash pop -q && git status --short"},
	{"git", "git add notes.txt && git commit -q -m second && cat hook-saw.txt && git config --get user.name"},
	// config writes the human approved (workdayRules): .git/config is
	// read-only in the sandbox, the privileged side makes them
	{"git", "git config user.name Alice && git config --local user.email alice@example.com && git config --get user.name && " +
		"git remote add origin https://example.com/day.git && git remote -v && git update-ref refs/remotes/origin/main HEAD && " +
		"git branch --set-upstream-to=origin/main && git status -sb | head -1 && git config --unset user.name; git config --get user.name; " +
		"git config --list --local | grep -v '^core'"},
}

// workdayRules are the human's approvals in the day's guardsh
// configuration: the git config writes of the last step.
const workdayRules = `[[rule]]
id = "user.git-name"
decision = "allow"
prefix = ["git", "config", "user.name", "*"]

[[rule]]
id = "user.git-unset-name"
decision = "allow"
prefix = ["git", "config", "--unset", "user.name", "$"]

[[rule]]
id = "user.git-email"
decision = "allow"
prefix = ["git", "config", "--local", "user.email", "*"]

[[rule]]
id = "user.git-remote"
decision = "allow"
prefix = ["git", "remote", "add", "origin", "*"]

[[rule]]
id = "user.git-ref"
decision = "allow"
prefix = ["git", "update-ref", "refs/remotes/origin/main", "HEAD"]

[[rule]]
id = "user.git-upstream"
decision = "allow"
prefix = ["git", "branch", "--set-upstream-to=origin/main"]
`

// workdayShims writes the version managers into home and returns the PATH
// directories they add. python is the real interpreter's path, node and
// goBin the real ones.
func workdayShims(t *testing.T, home, python, node, goBin string) []string {
	t.Helper()
	files := map[string]string{
		// pyenv: a bash shim that execs "pyenv exec NAME", a bash pyenv
		".pyenv/shims/python3": "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\nprogram=\"${0##*/}\"\nexport PYENV_ROOT=\"$HOME/.pyenv\"\nexec \"$PYENV_ROOT/libexec/pyenv\" exec \"$program\" \"$@\"\n",
		".pyenv/libexec/pyenv": "#!/usr/bin/env bash\nset -e\n[ \"$1\" = exec ] || { echo \"pyenv: no such command '$1'\" >&2; exit 1; }\nshift; prog=$1; shift\ncase $prog in python3) exec " + python + " \"$@\";; esac\necho \"pyenv: $prog: command not found\" >&2; exit 127\n",
		// rbenv: the same shape, for a program of its own
		".rbenv/shims/rbtool":            "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\nexport RBENV_ROOT=\"$HOME/.rbenv\"\nexec \"$RBENV_ROOT/libexec/rbenv\" exec \"$program\" \"$@\"\n",
		".rbenv/libexec/rbenv":           "#!/bin/bash\nshift; prog=$1; shift\nexec \"$RBENV_ROOT/versions/1.0/bin/$prog\" \"$@\"\n",
		".rbenv/versions/1.0/bin/rbtool": "#!/bin/sh\necho \"rbtool: $*\"\n",
		// asdf: a shim that runs "asdf exec go"
		".asdf/shims/go": "#!/usr/bin/env bash\n# asdf-plugin: golang 1.22\nexec " + "\"$HOME/.asdf/bin/asdf\"" + " exec \"go\" \"$@\"\n",
		".asdf/bin/asdf": "#!/usr/bin/env bash\n[ \"$1\" = exec ] && shift && shift && exec " + goBin + " \"$@\"\nexit 1\n",
		// nvm: functions in a sourced file that put a version's bin on PATH
		".nvm/nvm.sh": "nvm_dir=\"$HOME/.nvm\"\nnvm_ls() { ls \"$nvm_dir/versions/node\"; }\nnvm() {\n  case $1 in\n    use) PATH=\"$nvm_dir/versions/node/v$2/bin:$PATH\"; export PATH; echo \"Now using node v$2\";;\n    ls) nvm_ls;;\n  esac\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nodeBin := filepath.Join(home, ".nvm/versions/node/v20/bin")
	os.MkdirAll(nodeBin, 0o755)
	for _, n := range []string{"node", "npm", "npx"} {
		real, err := exec.LookPath(n)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := filepath.EvalSymlinks(real); err == nil && n == "node" {
			real = r
		}
		if err := os.Symlink(real, filepath.Join(nodeBin, n)); err != nil {
			t.Fatal(err)
		}
	}
	return []string{filepath.Join(home, ".pyenv/shims"), filepath.Join(home, ".rbenv/shims"), filepath.Join(home, ".asdf/shims")}
}

func TestWorkingDay(t *testing.T) {
	if testing.Short() {
		t.Skip("a day of work: builds and runs real toolchains")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the sandboxed shell as root (CI does); skipping as non-root")
	}
	for _, tool := range []string{"bash", "go", "python3", "node", "npm", "npx", "make", "git", "openssl", "ssh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s needed for the working day", tool)
		}
	}
	bin := guardshTestBinary(t)
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cache, 0o755)
	base, err := os.MkdirTemp(cache, "guardsh-workday-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if strings.HasPrefix(base, "/tmp/") || strings.HasPrefix(base, os.TempDir()+"/") {
		t.Skipf("the cache directory %s is a temporary directory: no home outside the sandbox's writable roots", base)
	}
	home := filepath.Join(base, "home")
	shared := t.TempDir() // Go's build cache and npm's cache: writable in the sandbox (/tmp)
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	python := strings.TrimSpace(string(out))
	goBin, _ := exec.LookPath("go")
	goBin, _ = filepath.EvalSymlinks(goBin)
	node, _ := exec.LookPath("node")
	dirs := workdayShims(t, home, python, node, goBin)
	// guardsh's bash and sh shims, first on PATH, as install.sh makes them
	shims := filepath.Join(base, "guardsh-shims")
	os.MkdirAll(shims, 0o755)
	for _, n := range []string{"bash", "sh"} {
		if err := os.Symlink(bin, filepath.Join(shims, n)); err != nil {
			t.Fatal(err)
		}
	}
	path := strings.Join(append(append([]string{shims}, dirs...), "/usr/local/bin", "/usr/bin", "/bin"), ":")
	bashPath := strings.Join(append(dirs, "/usr/local/bin", "/usr/bin", "/bin"), ":") // bash's day: no guardsh on PATH
	proj := filepath.Join(t.TempDir(), "work")
	env := []string{"HOME=" + home, "LANG=C", "LC_ALL=C", "USER=day", "TERM=dumb",
		"GOCACHE=" + filepath.Join(shared, "gocache"), "GOPATH=" + filepath.Join(shared, "gopath"), "GOTOOLCHAIN=local",
		"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTELEMETRY=off",
		"npm_config_cache=" + filepath.Join(shared, "npm"), "npm_config_update_notifier=false", "npm_config_fund=false",
		"npm_config_audit=false", "npm_config_offline=true", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONDONTWRITEBYTECODE=",
		"GIT_AUTHOR_NAME=Day", "GIT_AUTHOR_EMAIL=day@example.com", "GIT_COMMITTER_NAME=Day",
		"GIT_COMMITTER_EMAIL=day@example.com", "GIT_AUTHOR_DATE=2026-12-01T09:00:00Z", "GIT_COMMITTER_DATE=2026-12-01T09:00:00Z",
		"GIT_CONFIG_NOSYSTEM=1",
		"XDG_CACHE_HOME=" + filepath.Join(base, "xdgcache"), "XDG_STATE_HOME=" + filepath.Join(base, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GUARDSH_SANDBOX_NOCACHE=1"}
	setup := func() {
		os.RemoveAll(proj)
		for name, body := range workdayFiles {
			p := filepath.Join(proj, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// the git project, prepared by its human: a user name in
		// ~/.gitconfig, a post-commit hook that calls git
		g := filepath.Join(proj, "git")
		os.MkdirAll(filepath.Join(g, ".git", "hooks"), 0o755)
		os.WriteFile(filepath.Join(g, "notes.txt"), []byte("notes\n"), 0o644)
		os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Day\n[init]\n\tdefaultBranch = main\n"), 0o644)
		os.MkdirAll(filepath.Join(home, ".config", "guardsh"), 0o755)
		if err := os.WriteFile(filepath.Join(home, ".config", "guardsh", "config.toml"), []byte(workdayRules), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "init", "-q", "-b", "main", g)
		cmd.Env = append(env, "PATH="+bashPath)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, b)
		}
		hook := "#!/usr/bin/env sh\ngit log -1 --format='hook saw: %s' > hook-saw.txt\n"
		if err := os.WriteFile(filepath.Join(g, ".git", "hooks", "post-commit"), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		out    string
		status int
	}
	run := func(shell []string, dir, line string, path string) result {
		cmd := exec.Command(shell[0], append(shell[1:], "-c", line)...)
		cmd.Dir = filepath.Join(proj, dir)
		cmd.Env = append(append([]string{}, env...), "GUARDSH_PROJECT="+filepath.Join(proj, dir), "PATH="+path)
		cmd.Stdin = nil
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		st := 0
		if ee, ok := err.(*exec.ExitError); ok {
			st = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, l := range strings.SplitAfter(strings.ReplaceAll(o.String(), proj, "PROJ"), "\n") {
			// guardsh's own report of protected files the session
			// created (git init made .git/hooks and .git/config): said
			// on purpose, bash has nothing to say
			if strings.HasPrefix(l, "guardsh: warning: ") && strings.Contains(l, "was created during this sandboxed session") ||
				strings.HasPrefix(l, "guardsh: protected paths changed during the session were restored") {
				continue
			}
			keep = append(keep, l)
		}
		return result{strings.Join(keep, ""), st}
	}
	realBash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	setup()
	var want []result
	for _, s := range workdaySteps {
		want = append(want, run([]string{realBash, "--norc"}, s.dir, s.cmd, bashPath))
	}
	setup()
	for i, s := range workdaySteps {
		got := run([]string{bin, "--mode", "auto"}, s.dir, s.cmd, path)
		if got != want[i] {
			t.Errorf("%s$ %s\nguardsh (status %d):\n%s\nbash (status %d):\n%s", s.dir, s.cmd, got.status, got.out, want[i].status, want[i].out)
		} else {
			t.Logf("%s$ %s -> status %d, %d bytes, as bash", s.dir, s.cmd, got.status, len(got.out))
		}
	}
}
