package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/audit"
	"github.com/guardsh/guardsh/sandbox"
)

// TestSessionProxy: in a sandboxed session with a network namespace of
// its own, commands reach the network through the privileged side's proxy
// and nothing else. A host service the configuration names (127.0.0.2) is
// reached by curl and by git's smart HTTP (git http-backend); one it does
// not name (127.0.0.3) is refused at once, without a human, with the rule
// on the command's stderr; curl told to bypass the proxy reaches nothing;
// the host's own 127.0.0.1 services stay unreachable; every connection is
// a connect record in the audit log.
func TestSessionProxy(t *testing.T) {
	backendsUnderTest(t) // root, a backend
	f := newFixture(t)
	out, _, _ := f.run(t, sandbox.BackendLandlock, `echo "$GUARDSH_SANDBOX_NET|${HTTPS_PROXY:-none}"`)
	if !strings.HasPrefix(out, "loopback|http://") {
		t.Skipf("this session has no network namespace of its own (%q): commands have no network, the proxy is not used", strings.TrimSpace(out))
	}
	listen := func(addr string) net.Listener {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	// A host service with a page and a git repository over smart HTTP.
	repos := filepath.Join(f.outside, "repos")
	bare := filepath.Join(repos, "lib.git")
	for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"-C", bare, "config", "http.receivepack", "false"}} {
		if b, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, b)
		}
	}
	seed := filepath.Join(f.outside, "seed")
	for _, args := range [][]string{{"init", "-q", seed}, {"-C", seed, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", seed, "push", "-q", bare, "HEAD:refs/heads/main"}, {"-C", bare, "symbolic-ref", "HEAD", "refs/heads/main"}} {
		if b, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, b)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello from the host") })
	mux.Handle("/git/", &cgi.Handler{Path: "/usr/lib/git-core/git-http-backend", Root: "/git",
		Env: []string{"GIT_PROJECT_ROOT=" + repos, "GIT_HTTP_EXPORT_ALL=1"}})
	allowed := listen("127.0.0.2:0")
	go http.Serve(allowed, mux)
	unlisted := listen("127.0.0.3:0")
	go http.Serve(unlisted, mux)
	local := listen("127.0.0.1:0")
	go http.Serve(local, mux)
	port := func(l net.Listener) int { return l.Addr().(*net.TCPAddr).Port }

	cfg := filepath.Join(f.base, "config")
	os.MkdirAll(filepath.Join(cfg, "guardsh"), 0o755)
	os.WriteFile(filepath.Join(cfg, "guardsh", "config.toml"), []byte(fmt.Sprintf("[[network.allow]]\nhost = \"127.0.0.2\"\nport = %d\n", port(allowed))), 0o644)
	script := fmt.Sprintf(`curl -sS http://127.0.0.2:%[1]d/page; echo " rc=$?"
curl -sS http://127.0.0.3:%[2]d/page; echo " rc2=$?"
curl -sS --noproxy '*' --max-time 5 http://127.0.0.2:%[1]d/page; echo " rc3=$?"
curl -sS --max-time 5 http://127.0.0.1:%[3]d/page; echo " rc4=$?"
git clone -q http://127.0.0.2:%[1]d/git/lib.git cloned && git -C cloned log --format=%%s; echo " rc5=$?"`, port(allowed), port(unlisted), port(local))
	stdout, stderr, _ := f.run(t, sandbox.BackendLandlock, script, "GUARDSH_MODE=auto", "XDG_CONFIG_HOME="+cfg)
	for _, want := range []string{"hello from the host rc=0", "first\n rc5=0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	for _, bad := range []string{" rc2=0", " rc3=0", " rc4=0"} {
		if strings.Contains(stdout, "hello from the host"+bad) {
			t.Errorf("reached what it must not (%s):\n%s", bad, stdout)
		}
	}
	if !strings.Contains(stdout, "denied [net.host-unlisted]") || !strings.Contains(stderr, "guardsh: denied [net.host-unlisted]") {
		t.Errorf("the unlisted host's refusal does not name its rule:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// Every connection through the proxy is in the audit log.
	log, err := os.Open(filepath.Join(f.base, "state", "guardsh", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	got := map[string]int{}
	sc := bufio.NewScanner(log)
	for sc.Scan() {
		var r audit.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event == audit.EventConnect && r.Connect != nil {
			got[fmt.Sprintf("%s %s", r.Decision, r.Connect.Host)]++
		}
	}
	if got["allow 127.0.0.2"] < 2 || got["deny 127.0.0.3"] < 1 {
		t.Errorf("connect records %v, want the page and git's requests allowed, 127.0.0.3 refused", got)
	}
}
