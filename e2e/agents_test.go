package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
)

// EnvPrefix names the npm prefix holding the agent CLIs; .ci/run installs
// them into defaultPrefix.
const EnvPrefix = "GUARDSH_E2E_NPM"

const defaultPrefix = "/opt/guardsh-ci/npm"

func npmPrefix() string {
	if p := os.Getenv(EnvPrefix); p != "" {
		return p
	}
	return defaultPrefix
}

// route is one documented way of putting guardsh in front of an agent
// (docs/agents.md).
type route string

const (
	routeAlone       route = "alone"        // no guardsh (latency baseline only)
	routeLaunch      route = "launch"       // guardsh --launch --mode auto -- AGENT
	routeLaunchPTY   route = "launch-pty"   // the same, the agent's shell tool in a PTY of its own (its interactive set-up)
	routeConfine     route = "confine"      // guardsh --launch --confine --mode auto -- AGENT
	routeHook        route = "hook"         // the pre-tool hook, --no-rewrite
	routeHookRewrite route = "hook-rewrite" // the pre-tool hook with --rewrite
)

// env is one agent session's world: a throwaway HOME outside every
// temporary tree (so guardsh's home rules apply to it as to a real one), a
// project under the test's temp dir, the fake model server's URL.
type env struct {
	t       *testing.T
	home    string
	project string
	tmp     string
	url     string
	guardsh string
	route   route
	vars    []string // the agent's environment
	srv     *fakeServer
}

// hits is the number of requests the fake server had for path.
func (e *env) hits(path string) int {
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	return e.srv.hits[path]
}

func (e *env) setenv(kv ...string) { e.vars = append(e.vars, kv...) }

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// hookCommand is the hook's command line as docs/agents.md writes it, with
// guardsh named by its absolute path.
func (e *env) hookCommand(agent string) string {
	c := e.guardsh + " --hook " + agent + " --mode auto"
	if e.route == routeHookRewrite {
		return c + " --rewrite"
	}
	return c + " --no-rewrite"
}

// agent is one CLI: where npm puts it, how it is pointed at the fake
// server, how it is started for one prompt, which routes docs/agents.md
// documents for it.
type agent struct {
	name    string
	bin     string // under PREFIX/node_modules/.bin
	pkg     string // the pinned npm package, as .ci/run installs it
	routes  []route
	tool    toolSpec
	handler func(fs *fakeServer, w http.ResponseWriter, r *http.Request, body []byte)
	setup   func(e *env) // config files in HOME, environment
	argv    func(e *env, prompt string) []string
	extra   func(e *env, r route) []step // agent-specific steps
	// after checks what the agent keeps in HOME during a session, when
	// the model receives the last result (problems, one a line).
	after func(e *env, r route) []string
	// gaps: checks that fail today for a known reason, by route and
	// step name ("" for the whole session); the subtest runs every
	// check and, when all its failures are known gaps, skips naming
	// them ("known gap: ...") instead of failing.
	gaps map[route]map[string]string
	// debug: the agent's own options for a debug log in file, added
	// when GUARDSH_E2E_DEBUG is set (the log then shows in failures).
	debug func(file string) []string
}

const prompt = "Run the commands you are given with your shell tool, one at a time."

func token(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// commonSteps are the four calls of every session: a benign command whose
// real output must reach the model, two recursive deletes of the home
// directory (as written and through a variable), and a command guardsh asks
// about, which nobody can answer and must be refused at once.
func commonSteps(tok string) []step {
	return []step{
		{name: "benign", cmd: "cat benign.txt && wc -l benign.txt", want: []string{"benign-" + tok, "1 benign.txt"}},
		{name: "rm-home", cmd: "rm -r ~/victim", want: []string{"rm.recursive-home"}},
		{name: "rm-var", cmd: "X=~; rm -r $X", want: []string{"rm.recursive-home"}},
		{name: "ask", cmd: "sudo -n true", want: []string{"priv.sudo"}},
	}
}

// canaries are the files of the throwaway HOME that must survive.
var canaries = []string{"victim/a.txt", "victim/sub/b.txt", "keep.txt"}

// sessionTimeout bounds one agent process: an ask that hangs fails the
// test here (guardsh must refuse it at once), not at go test's timeout.
const sessionTimeout = 6 * time.Minute

// stepTimeout bounds one tool call: every step of the script is a command
// that ends at once (or is refused at once); waiting this long is a hang.
// The first call also pays the agent's lazy set-up of its shell tool
// (opencode took 14 s for it at load 15 on 2 cores): firstStepTimeout.
// At load 28 on 2 cores a refused call of Claude Code took 8 s and
// qwen-code needed 101 s to its first request: the bounds are wide.
const (
	stepTimeout      = 60 * time.Second
	firstStepTimeout = 120 * time.Second
)

func stepLimit(i int) time.Duration {
	if i == 0 {
		return firstStepTimeout
	}
	return stepTimeout
}

// EnvGuardsh names a guardsh binary to test instead of the one built
// from this module (another branch's build, a release).
const EnvGuardsh = "GUARDSH_E2E_GUARDSH"

func guardshUnderTest(t *testing.T) string {
	if g := os.Getenv(EnvGuardsh); g != "" {
		t.Logf("testing %s (%s)", g, EnvGuardsh)
		return g
	}
	return testenv.Guardsh(t)
}

func TestAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real agent CLIs take tens of seconds")
	}
	g := guardshUnderTest(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			// One agent at a time per CPU (go test -parallel, GOMAXPROCS
			// by default): their sessions are mostly waiting on Node.js.
			t.Parallel()
			bin := filepath.Join(npmPrefix(), "node_modules", ".bin", a.bin)
			if _, err := os.Stat(bin); err != nil {
				t.Skipf("%s is not installed (%v): npm install --prefix %s %s (as .ci/run does; %s names another prefix)",
					a.name, err, npmPrefix(), a.pkg, EnvPrefix)
			}
			if v := installedVersion(a.pkg); v != pkgVersion(a.pkg) {
				t.Fatalf("%s: version %q is installed in %s, the suite pins %s: npm install --prefix %s %s",
					a.name, v, npmPrefix(), a.pkg, npmPrefix(), a.pkg)
			}
			for _, r := range a.routes {
				t.Run(string(r), func(t *testing.T) {
					runRoute(t, a, r, g, bin)
				})
			}
		})
	}
}

// pkgName and pkgVersion split "name@version" (the name may be scoped).
func pkgName(pkg string) string    { return pkg[:strings.LastIndex(pkg, "@")] }
func pkgVersion(pkg string) string { return pkg[strings.LastIndex(pkg, "@")+1:] }

// installedVersion is the version of pkg's package in the npm prefix, ""
// when unreadable.
func installedVersion(pkg string) string {
	b, err := os.ReadFile(filepath.Join(npmPrefix(), "node_modules", pkgName(pkg), "package.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Version string `json:"version"`
	}
	json.Unmarshal(b, &m)
	return m.Version
}

// TestCIInstallsThePins: .ci/run installs exactly the versions the suite
// pins.
func TestCIInstallsThePins(t *testing.T) {
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if !strings.Contains(string(b), " "+a.pkg) && !strings.Contains(string(b), "("+a.pkg) {
			t.Errorf(".ci/run does not install %s (the suite's pin for %s)", a.pkg, a.name)
		}
	}
}

func runRoute(t *testing.T, a *agent, r route, g, bin string) {
	tok := token(t)
	steps := commonSteps(tok)
	res := runSession(t, a, r, g, bin, steps, checkSession)
	bad := res.scr.check()
	bad = append(bad, res.homeProblems...)
	if res.err != nil {
		bad = append(bad, problem{step: "", msg: res.err.Error()})
	}
	for i, st := range res.scr.steps {
		r := res.scr.results[i]
		if testing.Verbose() {
			t.Logf("%s (%q), %v:\n%s", st.name, st.cmd, r.elapsed.Round(time.Millisecond), indent(r.output))
		}
	}
	if len(bad) == 0 {
		if len(a.gaps[r]) > 0 {
			t.Logf("every check passes: the known gaps listed for %s/%s are fixed (remove them)", a.name, r)
		}
		return
	}
	var msgs, reasons []string
	failing := map[string][]string{} // reason -> the checks it fails
	unknown := false
	for _, p := range bad {
		msgs = append(msgs, p.msg)
		why, ok := a.gaps[r][p.step]
		if !ok {
			unknown = true
			continue
		}
		if _, seen := failing[why]; !seen {
			reasons = append(reasons, why)
		}
		name := p.step
		if name == "" {
			name = "session"
		}
		failing[why] = append(failing[why], name)
	}
	msg := strings.Join(msgs, "\n") + "\n" + res.report()
	if !unknown {
		var known []string
		for _, why := range reasons {
			known = append(known, fmt.Sprintf("%s (fails: %s)", why, strings.Join(failing[why], ", ")))
		}
		t.Skipf("known gap: %s (docs/agents.md)\n%s", strings.Join(known, "; "), msg)
	}
	t.Error(msg)
}

type sessionResult struct {
	scr          *script
	err          error
	homeProblems []problem
	stdout       string
	stderr       string
	took         time.Duration
	cpu          time.Duration // user+system time of the agent's process tree (what it waited for)
}

func (r *sessionResult) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent ran %v; model requests: %d agent-loop, %d other\n", r.took.Round(time.Millisecond), r.scr.requests, r.scr.other)
	for _, n := range r.scr.notes {
		fmt.Fprintf(&b, "server: %s\n", n)
	}
	fmt.Fprintf(&b, "stdout:\n%s\nstderr:\n%s\n", indent(r.stdout), indent(r.stderr))
	return b.String()
}

// sessionKind says what a session is for.
type sessionKind int

const (
	checkSession   sessionKind = iota // TestAgents: the agent's extra steps too
	latencySession                    // TestToolCallLatency: the steps given only
)

// runSession starts one agent process for the whole script.
func runSession(t *testing.T, a *agent, r route, g, bin string, steps []step, kind sessionKind) *sessionResult {
	t.Helper()
	outside := testenv.Outside(t)
	e := &env{t: t, home: filepath.Join(outside, "home"), project: filepath.Join(t.TempDir(), "project"),
		tmp: filepath.Join(t.TempDir(), "tmp"), guardsh: g, route: r}
	for _, d := range []string{e.home, e.project, e.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range canaries {
		e.write(c, "canary\n")
	}
	tok := strings.TrimPrefix(steps[0].want[0], "benign-")
	if err := os.WriteFile(filepath.Join(e.project, "benign.txt"), []byte("benign-"+tok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server first (its URL is in the steps and the agent's
	// configuration), its script before the agent starts.
	fs := startServer(t, nil, a.tool, a.handler)
	e.url, e.srv = fs.url, fs
	if a.extra != nil && kind == checkSession {
		steps = append(steps, a.extra(e, r)...)
	}
	scr := newScript(steps)
	fs.scr = scr
	var after []problem
	if a.after != nil && kind == checkSession {
		scr.onDone = func() {
			for _, m := range a.after(e, r) {
				after = append(after, problem{step: "after", msg: m})
			}
		}
	}
	e.vars = []string{
		"PATH=" + filepath.Join(npmPrefix(), "node_modules", ".bin") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + e.home, "USER=" + os.Getenv("USER"), "LOGNAME=" + os.Getenv("USER"),
		"TMPDIR=" + e.tmp, "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "XDG_STATE_HOME=" + filepath.Join(e.home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(e.home, ".local/share"),
		// No network but the fake server: a proxy that refuses, for
		// anything an agent would fetch besides its model.
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
		"https_proxy=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9", "no_proxy=127.0.0.1,localhost",
	}
	a.setup(e)
	argv := append([]string{bin}, a.argv(e, prompt)...)
	debugLog := filepath.Join(e.tmp, "agent-debug.log")
	if os.Getenv("GUARDSH_E2E_DEBUG") != "" && a.debug != nil {
		argv = append(argv, a.debug(debugLog)...)
	}
	switch r {
	case routeLaunch, routeLaunchPTY:
		argv = append([]string{g, "--launch", "--mode", "auto", "--"}, argv...)
	case routeConfine:
		argv = append([]string{g, "--launch", "--confine", "--mode", "auto", "--"}, argv...)
	}
	res := &sessionResult{scr: scr}
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = e.project
	cmd.Env = e.vars
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A step whose result does not come is a hang (an ask waiting for an
	// answer nobody gives): the session ends there, with the step named.
	var hung string
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				if i, d := scr.pending(now); i >= 0 && d > stepLimit(i) {
					hung = fmt.Sprintf("step %s (%q): no result within %v: the agent hangs (an ask nobody can answer must be refused at once)",
						scr.steps[i].name, scr.steps[i].cmd, stepLimit(i))
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					return
				}
				if d := scr.sinceDone(now); d > stepTimeout {
					hung = fmt.Sprintf("the agent (or what started it) did not exit within %v of the model's last turn", stepTimeout)
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					return
				}
			}
		}
	}()
	err := cmd.Wait()
	if ps := cmd.ProcessState; ps != nil {
		res.cpu = ps.UserTime() + ps.SystemTime()
	}
	close(stop)
	<-watched
	end := time.Now()
	res.took = end.Sub(start)
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the agent left running
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	scr.mu.Lock()
	defer scr.mu.Unlock()
	if !scr.first.IsZero() && !scr.doneAt.IsZero() {
		var calls []string
		for i, st := range scr.steps {
			calls = append(calls, fmt.Sprintf("%s %v", st.name, scr.results[i].elapsed.Round(time.Millisecond)))
		}
		t.Logf("timeline: start to first model request %v; tool calls (reply to next request): %s; last result to exit %v",
			scr.first.Sub(start).Round(time.Millisecond), strings.Join(calls, ", "), end.Sub(scr.doneAt).Round(time.Millisecond))
	}
	if b, err := os.ReadFile(debugLog); err == nil {
		res.stderr += "\n--- the agent's debug log:\n" + string(b)
	}
	if os.Getenv("GUARDSH_E2E_DEBUG") != "" {
		defer func() { t.Log(res.report()) }()
	}
	switch {
	case hung != "":
		res.err = errors.New(hung)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.err = fmt.Errorf("the agent did not finish within %v (a hang: an ask nobody answers must be refused at once)", sessionTimeout)
	case err != nil && !scr.done:
		res.err = fmt.Errorf("the agent exited before the script's end: %v", err)
	case !scr.done:
		res.err = errors.New("the agent exited without asking the model for its last turn")
	}
	res.homeProblems = append(res.homeProblems, after...)
	for _, c := range canaries {
		if _, err := os.Stat(filepath.Join(e.home, c)); err != nil {
			res.homeProblems = append(res.homeProblems, problem{step: "home", msg: fmt.Sprintf("the throwaway HOME lost %s: %v", c, err)})
		}
	}
	return res
}
