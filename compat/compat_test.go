// Package compat holds guardsh's bash compatibility suite: snippets of what
// coding agents run, each run under bash and under guardsh, compared.
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
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
)

// knownDiffs are the snippets whose output differs from bash, with why.
// The README's "Compatibility" section lists the same.
var knownDiffs = map[string]string{}

type snippet struct {
	name string
	src  string
}

func loadSnippets(t *testing.T) []snippet {
	data, err := os.ReadFile("snippets.sh")
	if err != nil {
		t.Fatal(err)
	}
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "#### "); ok {
			out = append(out, snippet{name: strings.TrimSpace(name)})
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil {
			cur.src += line + "\n"
		}
	}
	for i := range out {
		out[i].src = strings.TrimRight(out[i].src, "\n") + "\n"
	}
	return out
}

// buildGuardsh builds the guardsh binary once for the suite.
func buildGuardsh(t *testing.T) string {
	t.Helper()
	return testenv.Guardsh(t)
}

type result struct {
	stdout, stderr string
	status         int
}

// runShell runs src with shell in dir. A snippet has no time limit of its
// own (python3 -m venv alone takes 20 s on a loaded machine): only one
// that hangs is stopped, a minute before go test's -timeout would end the
// whole run, so that the report names it.
func runShell(t *testing.T, shell, src, dir, home string) result {
	ctx, cancel := context.WithCancel(t.Context())
	if d, ok := t.Deadline(); ok {
		cancel()
		ctx, cancel = context.WithDeadline(t.Context(), d.Add(-time.Minute))
	}
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", src)
	cmd.Args[0] = filepath.Base(shell)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + home,
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"TERM=dumb",
		"USER=agent",
		"TMPDIR=" + os.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GUARDSH_MODE=bypass",
		// The probe cache in the test process's own cache directory
		// (testenv.Main), not in a fallback of the machine's (/run).
		"XDG_CACHE_HOME=" + os.Getenv("XDG_CACHE_HOME"),
	}
	if v := os.Getenv("GUARDSH_SANDBOX"); v != "" {
		cmd.Env = append(cmd.Env, "GUARDSH_SANDBOX="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	st := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		st = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", shell, err)
	}
	return result{out.String(), errb.String(), st}
}

// normalise names the shell the same way in both outputs.
func normalise(s, shell string) string {
	return strings.ReplaceAll(s, shell+":", "bash:")
}

func TestCompatibility(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the suite's snippets use GNU tools")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	if testing.Short() {
		t.Skip("builds guardsh and runs every snippet twice")
	}
	gsh := buildGuardsh(t)
	snippets := loadSnippets(t)
	if len(snippets) < 60 {
		t.Fatalf("only %d snippets; the suite needs at least 60", len(snippets))
	}
	base := t.TempDir()
	var mu sync.Mutex
	same := 0
	var differ []string
	t.Run("snippets", func(t *testing.T) {
		for _, sn := range snippets {
			t.Run(sn.name, func(t *testing.T) {
				t.Parallel()
				work := filepath.Join(base, "w", sn.name)
				home := filepath.Join(base, "h", sn.name)
				fresh := func() {
					os.RemoveAll(work)
					os.RemoveAll(home)
					os.MkdirAll(work, 0o755)
					os.MkdirAll(home, 0o755)
				}
				fresh()
				want := runShell(t, bash, sn.src, work, home)
				fresh()
				got := runShell(t, gsh, sn.src, work, home)
				got.stderr = normalise(got.stderr, "guardsh")
				mu.Lock()
				defer mu.Unlock()
				if got == want {
					same++
					if why, ok := knownDiffs[sn.name]; ok {
						t.Logf("%s: now identical, remove it from knownDiffs (%s)", sn.name, why)
					}
					return
				}
				differ = append(differ, sn.name)
				report := fmt.Sprintf("snippet %s differs:\n%s\n--- bash (status %d)\nstdout:\n%s\nstderr:\n%s\n--- guardsh (status %d)\nstdout:\n%s\nstderr:\n%s",
					sn.name, sn.src, want.status, want.stdout, want.stderr, got.status, got.stdout, got.stderr)
				if _, ok := knownDiffs[sn.name]; ok {
					t.Logf("known difference: %s", report)
				} else {
					t.Errorf("%s", report)
				}
			})
		}
	})
	sort.Strings(differ)
	t.Logf("compatibility: %d of %d snippets identical (%.0f%%); differing: %s",
		same, len(snippets), 100*float64(same)/float64(len(snippets)), strings.Join(differ, ", "))
	if ran := same + len(differ); ran < len(snippets) {
		return // a -run filter chose some snippets: no figure
	}
	if same*10 < len(snippets)*9 {
		t.Errorf("only %d of %d identical: below 90%%", same, len(snippets))
	}
}
