package main

// The CI recipes (docker/ci/github-actions.yml, docker/ci/run-agent.sh) run
// as documented: the workflow's run: steps in order, as the runner runs
// them, and the generic script, both installing guardsh with the go install
// command they document, from a module proxy on disk that serves this
// source tree.

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/guardsh/guardsh/internal/testenv"
)

// localModuleProxy serves this source tree as github.com/guardsh/guardsh
// v0.1.0 (its only, so its latest, version) from a GOPROXY directory, with
// every other module from the machine's module cache (no network), into a
// module cache of the test's own. The checksum database is off: the test
// has no network, and the machine's cache was checked when it was filled. It returns the go command's environment.
func localModuleProxy(t *testing.T) []string {
	t.Helper()
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	machineCache := strings.TrimSpace(string(out))
	files, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("the source tree is not a git checkout (%v): cannot list the module's files", err)
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "proxy", "github.com", "guardsh", "guardsh", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const v = "v0.1.0"
	zf, err := os.Create(filepath.Join(dir, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	names := strings.Split(strings.TrimSpace(string(files)), "\n")
	// As the module proxy zips a module: without the directories of
	// nested modules (a go.mod below the root).
	var nested []string
	for _, name := range names {
		if filepath.Base(name) == "go.mod" && name != "go.mod" {
			nested = append(nested, filepath.Dir(name)+"/")
		}
	}
	for _, name := range names {
		if slices.ContainsFunc(nested, func(d string) bool { return strings.HasPrefix(name, d) }) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the working tree
		}
		w, err := zw.Create("github.com/guardsh/guardsh@" + v + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": v, "Time": time.Now().UTC()})
	for name, b := range map[string][]byte{"list": []byte(v + "\n"), v + ".mod": mod, v + ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(tmp, "modcache")
	env := []string{"GOPROXY=file://" + filepath.Join(tmp, "proxy") + ",file://" + filepath.Join(machineCache, "cache", "download"),
		"GOMODCACHE=" + cache, "GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}
	if c := os.Getenv("GOCACHE"); c != "" {
		env = append(env, "GOCACHE="+c) // the machine's build cache (testenv.Main keeps it)
	}
	t.Cleanup(func() {
		c := exec.Command("go", "clean", "-modcache") // its files are read-only
		c.Env = append(os.Environ(), env...)
		c.Run()
	})
	return env
}

// ciWorkflow is what the test reads of a GitHub Actions workflow.
type ciWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string
		Steps []struct {
			Name, Uses, Run, If string
			With                map[string]string
		}
	}
}

// ciFixture is what both recipes run against: a project (the checked-out
// repository), a fake agent that runs its task through its bash, and a
// sudo that records instead of changing the machine.
type ciFixture struct {
	*fixture
	agent, sudoLog, bin string
}

func newCIFixture(t *testing.T) *ciFixture {
	t.Helper()
	f := &ciFixture{fixture: newFixture(t)}
	f.agent = filepath.Join(f.base, "agent.py")
	os.WriteFile(f.agent, []byte("import subprocess, sys\nsys.exit(subprocess.run(['bash', '-c', sys.argv[-1]]).returncode)\n"), 0o644)
	f.bin = filepath.Join(f.base, "stub-bin")
	f.sudoLog = filepath.Join(f.base, "sudo.log")
	os.MkdirAll(f.bin, 0o755)
	os.WriteFile(filepath.Join(f.bin, "sudo"), []byte("#!/bin/sh\necho \"$*\" >>"+shQuote(f.sudoLog)+"\n"), 0o755)
	return f
}

// ciEnv is the environment a CI job gives the recipes: the fixture's
// (HOME, XDG directories, the machine's go) with guardsh's sandbox and
// project left to guardsh, the stub sudo first on PATH, and extra.
func (f *ciFixture) ciEnv(extra ...string) []string {
	var e []string
	for _, kv := range f.env("") {
		switch {
		case strings.HasPrefix(kv, "GUARDSH_SANDBOX="), strings.HasPrefix(kv, "GUARDSH_PROJECT="):
		case strings.HasPrefix(kv, "PATH="):
			e = append(e, "PATH="+f.bin+":"+strings.TrimPrefix(kv, "PATH="))
		default:
			e = append(e, kv)
		}
	}
	return append(e, extra...)
}

// ciTask is the agent's task: work in the project, then a command guardsh
// refuses.
const ciTask = `echo work > work.txt; echo "agent level: $GUARDSH_SANDBOX_RUN"; rm -rf ~; echo "rm status $?"`

// check checks what the agent did and what guardsh recorded.
func (f *ciFixture) check(t *testing.T, out, ciDir string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(f.project, "work.txt")); err != nil || string(b) != "work\n" {
		t.Errorf("the agent's work did not run: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`guardsh sandbox level: \S`).MatchString(out) || !strings.Contains(out, "agent level: ") || strings.Contains(out, "agent level: \n") {
		t.Errorf("the level is not said, or the agent's shell ran unconfined:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".bashrc")); err != nil {
		t.Fatalf("rm -rf ~ ran in the CI job: %v\n%s", err, out)
	}
	if !strings.Contains(out, "denied [") {
		t.Errorf("rm -rf ~ was not refused:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(ciDir, "audit.jsonl"))
	if err != nil || !strings.Contains(string(b), `"deny"`) {
		t.Errorf("the audit log the job keeps lacks the refusal: %v\n%.2000s", err, b)
	}
	if b, _ := os.ReadFile(f.sudoLog); len(b) > 0 {
		t.Logf("sudo (recorded, not run): %s", b)
	}
}

// TestCIRecipes runs both recipes, on one module proxy (the second build
// of guardsh is then the build cache's).
func TestCIRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guardsh with go install")
	}
	backendsUnderTest(t)
	goEnv := localModuleProxy(t)
	t.Run("github-actions", func(t *testing.T) { testCIWorkflow(t, goEnv) })
	t.Run("run-agent.sh", func(t *testing.T) { testCIRunAgent(t, goEnv) })
}

// testCIWorkflow runs docker/ci/github-actions.yml's steps in order as
// the runner would (bash --noprofile --norc -eo pipefail, the job's env,
// $GITHUB_PATH and $GITHUB_ENV carried between steps, if: always() after a
// failure), with the agent a program that runs its task through bash:
// guardsh is installed by the documented go install, the level is said,
// the task's work is done, its rm -rf ~ refused and in the audit log the
// artifact step keeps.
func testCIWorkflow(t *testing.T, goEnv []string) {
	f := newCIFixture(t)
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docker", "ci", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ciWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("want one job, have %d", len(wf.Jobs))
	}
	runnerTemp := filepath.Join(f.base, "runner-temp")
	os.MkdirAll(runnerTemp, 0o755)
	exprs := map[string]string{"runner.temp": runnerTemp, "inputs.task": ciTask}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			k := expr.FindStringSubmatch(m)[1]
			v, ok := exprs[k]
			if !ok && k != "always()" {
				t.Fatalf("expression ${{ %s }} not known to the test", k)
			}
			return v
		})
	}
	for _, job := range wf.Jobs {
		env := map[string]string{}
		for k, v := range job.Env {
			env[k] = subst(v)
		}
		env["AGENT"] = "python3 " + f.agent // the one substitution: the agent
		ghPath := filepath.Join(runnerTemp, "github_path")
		ghEnv := filepath.Join(runnerTemp, "github_env")
		var path []string // from $GITHUB_PATH
		var out strings.Builder
		failed := false
		for i, st := range job.Steps {
			if failed && !strings.Contains(st.If, "always()") {
				continue
			}
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"): // the fixture's project
			case strings.HasPrefix(st.Uses, "actions/setup-go@"): // the machine's go
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				if p := subst(st.With["path"]); p == "" {
					t.Errorf("step %d uploads no path", i)
				} else if _, err := os.Stat(p); err != nil {
					t.Errorf("step %d uploads %s: %v", i, p, err)
				}
			case st.Uses != "":
				t.Fatalf("step %d uses %s, not known to the test", i, st.Uses)
			default:
				os.WriteFile(ghPath, nil, 0o644)
				os.WriteFile(ghEnv, nil, 0o644)
				script := filepath.Join(runnerTemp, "step.sh")
				os.WriteFile(script, []byte(subst(st.Run)), 0o644)
				cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
				cmd.Dir = f.project
				e := f.ciEnv(goEnv...)
				for k, v := range env {
					e = append(e, k+"="+v)
				}
				for i, kv := range e {
					if strings.HasPrefix(kv, "PATH=") && len(path) > 0 {
						e[i] = "PATH=" + strings.Join(path, ":") + ":" + strings.TrimPrefix(kv, "PATH=")
					}
				}
				cmd.Env = append(e, "GITHUB_PATH="+ghPath, "GITHUB_ENV="+ghEnv, "GITHUB_WORKSPACE="+f.project, "RUNNER_TEMP="+runnerTemp)
				o, err := cmd.CombinedOutput()
				out.WriteString("== " + st.Name + "\n" + string(o))
				if err != nil {
					failed = true
					t.Errorf("step %q: %v\n%s", st.Name, err, o)
				}
				if b, _ := os.ReadFile(ghPath); len(b) > 0 {
					path = append(strings.Fields(string(b)), path...)
				}
				if b, _ := os.ReadFile(ghEnv); len(b) > 0 {
					for _, kv := range strings.Split(strings.TrimSpace(string(b)), "\n") {
						if k, v, ok := strings.Cut(kv, "="); ok {
							env[k] = v
						}
					}
				}
			}
		}
		if failed {
			t.FailNow()
		}
		f.check(t, out.String(), env["GUARDSH_CI"])
	}
}

// testCIRunAgent runs the generic recipe, docker/ci/run-agent.sh, as its
// comment says, with guardsh not on PATH (the script installs it).
func testCIRunAgent(t *testing.T, goEnv []string) {
	f := newCIFixture(t)
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ciDir := filepath.Join(f.base, "ci")
	cmd := exec.Command(filepath.Join(root, "docker", "ci", "run-agent.sh"), "python3", f.agent, ciTask)
	cmd.Dir = f.project
	cmd.Env = f.ciEnv(append(goEnv, "GUARDSH_CI="+ciDir, "GUARDSH_MODE=auto")...)
	o, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run-agent.sh: %v\n%s", err, o)
	}
	f.check(t, string(o), ciDir)
}

// TestAttackCIDirInWritableRoot: run-agent.sh's own example puts
// $GUARDSH_CI in /tmp, which the sessions' sandbox keeps writable: a
// program the agent's shell starts (one the rules do not read) could
// write guardsh's binary there (bin/guardsh, first on PATH: the shells
// the agent starts next and the job's later steps run it), its config and
// the audit log the job keeps. The script refuses a $GUARDSH_CI inside
// any root guardsh --doctor says is writable, before the agent starts.
func TestAttackCIDirInWritableRoot(t *testing.T) {
	backendsUnderTest(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	f := newCIFixture(t)
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ciDir := filepath.Join(t.TempDir(), "guardsh") // under /tmp, as the script's example
	os.MkdirAll(filepath.Join(ciDir, "bin"), 0o755)
	b, err := os.ReadFile(f.fixture.bin)
	if err != nil {
		t.Fatal(err)
	}
	// guardsh already installed there: the script takes it from PATH
	os.WriteFile(filepath.Join(ciDir, "bin", "guardsh"), b, 0o755)
	if !underWritableRoot(t, f, ciDir) {
		t.Skip(ciDir + " is not inside a writable root here (GUARDSH_SANDBOX_TMP=0?)")
	}
	task := `python3 -c 'import os; open(os.environ["GUARDSH_CI"] + "/bin/planted", "w").write("x")'; echo "plant status $?"`
	cmd := exec.Command(filepath.Join(root, "docker", "ci", "run-agent.sh"), "python3", f.agent, task)
	cmd.Dir = f.project
	cmd.Env = f.ciEnv("GUARDSH_CI="+ciDir, "GUARDSH_MODE=auto")
	o, err := cmd.CombinedOutput()
	if _, serr := os.Stat(filepath.Join(ciDir, "bin", "planted")); serr == nil {
		t.Fatalf("a program in the agent's shell wrote into $GUARDSH_CI/bin (guardsh's binary is there):\n%s", o)
	}
	if err == nil || !strings.Contains(string(o), "which the commands guardsh confines can write") {
		t.Errorf("run-agent.sh did not refuse a $GUARDSH_CI the sandbox can write: %v\n%s", err, o)
	}
}

// underWritableRoot reports whether guardsh --doctor, run in the fixture's
// project, lists a writable root holding dir.
func underWritableRoot(t *testing.T, f *ciFixture, dir string) bool {
	t.Helper()
	cmd := exec.Command(f.fixture.bin, "--doctor")
	cmd.Dir = f.project
	cmd.Env = f.ciEnv()
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if w, ok := strings.CutPrefix(line, "  writable: "); ok {
			for _, r := range strings.Split(w, ", ") {
				if dir == r || strings.HasPrefix(dir, r+"/") {
					return true
				}
			}
		}
	}
	return false
}
