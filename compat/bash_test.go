package compat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The differential suite: cases written from bash's manual, one file per
// feature area under testdata/bash. Each case runs as
// `bash --norc --noprofile -c CASE` and as `guardsh --mode bypass -c CASE`,
// each in a fresh directory that is also its HOME; stdout, stderr (shell
// name normalised) and the exit status must be identical.
//
// File format: a line "#### NAME" starts a case, the lines up to the next
// such line are its source. A line "## differs: REASON" right after the name
// marks a case known to differ from bash, with the reason; the test fails
// when an unmarked case differs and when a marked one is identical (so the
// marks stay true). The figure "N of M identical" is logged.

// bashCase is one case of the differential table.
type bashCase struct {
	file, name, src string
	differs         string // why it is known to differ; "" when it must match
}

// id is how a case is named in test output and in the figure.
func (c bashCase) id() string { return strings.TrimSuffix(c.file, ".sh") + "/" + c.name }

// loadBashCases reads every table file.
func loadBashCases(t testing.TB) []bashCase {
	files, err := filepath.Glob(filepath.Join("testdata", "bash", "*.sh"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no table files in testdata/bash (%v)", err)
	}
	var out []bashCase
	seen := map[string]bool{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(path)
		var cur *bashCase
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if name, ok := strings.CutPrefix(line, "#### "); ok {
				out = append(out, bashCase{file: base, name: strings.TrimSpace(name)})
				cur = &out[len(out)-1]
				if seen[cur.id()] {
					t.Fatalf("%s: case %q twice", path, cur.name)
				}
				seen[cur.id()] = true
				continue
			}
			if cur == nil {
				continue // the file's header
			}
			if why, ok := strings.CutPrefix(line, "## differs: "); ok && cur.src == "" {
				cur.differs = strings.TrimSpace(why)
				continue
			}
			cur.src += line + "\n"
		}
	}
	for i := range out {
		out[i].src = strings.TrimRight(out[i].src, "\n") + "\n"
	}
	return out
}

// shells are the two programs compared, built or found once per test binary.
type shells struct {
	bash, guardsh string
}

var (
	shellsOnce sync.Once
	shellsVal  shells
	shellsErr  string
)

// needShells finds bash and builds guardsh, or skips the test with why.
func needShells(t *testing.T) shells {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the cases use GNU tools and /proc")
	}
	if testing.Short() {
		t.Skip("builds guardsh and runs every case under bash and guardsh")
	}
	shellsOnce.Do(func() {
		bash, err := exec.LookPath("bash")
		if err != nil {
			shellsErr = "bash not installed"
			return
		}
		if bin := os.Getenv("GUARDSH_COMPAT_BIN"); bin != "" {
			// another build to measure (an older commit's figure)
			shellsVal = shells{bash: bash, guardsh: bin}
			return
		}
		dir, err := os.MkdirTemp("", "guardsh-compat-bin")
		if err != nil {
			shellsErr = err.Error()
			return
		}
		bin := filepath.Join(dir, "guardsh")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/guardsh/guardsh/cmd/guardsh")
		if out, err := cmd.CombinedOutput(); err != nil {
			shellsErr = fmt.Sprintf("building guardsh: %v\n%s", err, out)
			return
		}
		shellsVal = shells{bash: bash, guardsh: bin}
	})
	if shellsErr == "bash not installed" {
		t.Skip(shellsErr)
	}
	if shellsErr != "" {
		t.Fatal(shellsErr)
	}
	return shellsVal
}

// outcome is what one shell did with one case.
type outcome struct {
	stdout, stderr string
	status         int
}

// runCase runs src under one shell in a fresh directory (also HOME) below
// base, and returns what it printed, with the shell's name and the
// directory normalised.
func runCase(t testing.TB, shell string, args []string, src, base string) outcome {
	os.RemoveAll(base)
	return runCaseKeep(t, shell, args, src, base)
}

// runCaseKeep is runCase in a directory whose w/ may hold files already.
func runCaseKeep(t testing.TB, shell string, args []string, src, base string) outcome {
	work := filepath.Join(base, "w")
	for _, d := range []string{work, filepath.Join(base, "state"), filepath.Join(base, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	// $0 is "bash" in both shells, the name their messages start with.
	argv := append(append([]string{}, args...), "-c", src, "bash")
	cmd := exec.CommandContext(ctx, shell, argv...)
	cmd.Args[0] = filepath.Base(shell)
	cmd.Dir = work
	cmd.Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + work,
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"TERM=dumb",
		"USER=agent",
		"TMPDIR=" + filepath.Join(base, "tmp"),
		"XDG_STATE_HOME=" + filepath.Join(base, "state"),
		"GUARDSH_MODE=bypass",
	}
	if v := os.Getenv("GUARDSH_SANDBOX"); v != "" {
		cmd.Env = append(cmd.Env, "GUARDSH_SANDBOX="+v)
	}
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	st := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		st = ee.ExitCode()
	} else if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("%s: %v", shell, err)
	}
	if ctx.Err() != nil {
		st = -1 // timed out: never equal to a real status
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, base, "$BASE")
		return shellName.ReplaceAllString(s, "${1}SHELL:")
	}
	os.RemoveAll(base)
	return outcome{norm(out.String()), norm(errb.String()), st}
}

// shellName matches the shell's name where it prefixes a message: at the
// start of a line, or after "+ " or "line N: " (nested shells).
var shellName = regexp.MustCompile(`(?m)(^|^\++ )(?:bash|guardsh):`)

// bashArgs and guardshArgs are the options each shell runs a case with.
var (
	bashArgs    = []string{"--norc", "--noprofile"}
	guardshArgs = []string{"--mode", "bypass"}
)

// compare runs src under both shells and returns both outcomes.
func compare(t testing.TB, sh shells, src, base string) (want, got outcome) {
	want = runCase(t, sh.bash, bashArgs, src, filepath.Join(base, "b"))
	got = runCase(t, sh.guardsh, guardshArgs, src, filepath.Join(base, "g"))
	return want, got
}

// diffReport shows both outcomes of a case side by side.
func diffReport(src string, want, got outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", src)
	if want.status != got.status {
		fmt.Fprintf(&b, "status: bash %d, guardsh %d\n", want.status, got.status)
	}
	if want.stdout != got.stdout {
		fmt.Fprintf(&b, "stdout bash:\n%s\nstdout guardsh:\n%s\n", want.stdout, got.stdout)
	}
	if want.stderr != got.stderr {
		fmt.Fprintf(&b, "stderr bash:\n%s\nstderr guardsh:\n%s\n", want.stderr, got.stderr)
	}
	return b.String()
}

// TestBash runs the differential table; the "N of M identical" line is the
// figure docs/compatibility.md reports
// (go test -count=1 -v -run 'TestBash$' ./compat/ | grep identical).
// GUARDSH_COMPAT_BIN=/path/to/guardsh measures another build instead of
// the one built from this tree (its marks then fail where it differs).
func TestBash(t *testing.T) {
	sh := needShells(t)
	cases := loadBashCases(t)
	if len(cases) < 300 {
		t.Fatalf("only %d cases; the table needs hundreds", len(cases))
	}
	base := t.TempDir()
	var mu sync.Mutex
	same, ran := 0, 0
	var differ []string
	t.Run("case", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.id(), func(t *testing.T) {
				t.Parallel()
				want, got := compare(t, sh, c.src, filepath.Join(base, fmt.Sprint(i)))
				mu.Lock()
				defer mu.Unlock()
				ran++
				if want == got {
					same++
					if c.differs != "" {
						t.Errorf("%s is marked as differing (%s) but is now identical: remove the mark", c.id(), c.differs)
					}
					return
				}
				differ = append(differ, c.id())
				if c.differs == "" {
					t.Errorf("%s differs from bash:\n%s", c.id(), diffReport(c.src, want, got))
				} else {
					t.Logf("known difference (%s): %s", c.differs, diffReport(c.src, want, got))
				}
			})
		}
	})
	sort.Strings(differ)
	t.Logf("bash differential table: %d of %d identical (%.1f%%); differing: %s",
		same, ran, 100*float64(same)/float64(max(ran, 1)), strings.Join(differ, " "))
}
