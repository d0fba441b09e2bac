package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardshByIdentity: a copy, hard link or rename of the guardsh binary
// is guardsh. Started from a session under another name, it must not run
// its commands in a laxer mode than the session's: the uncommitted change
// that git reset --hard would throw away (asked in auto mode, so refused
// without a human) survives, and the static checker gives the copy that
// exists guardsh's own verdict.
func TestGuardshByIdentity(t *testing.T) {
	bin := guardshTestBinary(t)
	binDir := filepath.Dir(bin)
	attacks := []string{
		`cp "$(command -v guardsh)" ./gs; ./gs --mode bypass -c 'git reset --hard'`,
		`ln "$(command -v guardsh)" ./gs; ./gs --mode bypass -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./git; ./git --mode bypass -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./gs; PATH=".:$PATH" gs --mode bypass -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./gs; env -i ./gs --mode bypass -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./gs; GUARDSH_MODE=bypass ./gs -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./gs; ./gs --no-sandbox -c 'git reset --hard'`,
		`cp "$(command -v guardsh)" ./gs; ./gs -c 'git reset --hard'`,
	}
	for _, src := range attacks {
		t.Run(src, func(t *testing.T) {
			proj := t.TempDir()
			home := t.TempDir()
			env := []string{"HOME=" + home, "PATH=" + binDir + ":/usr/local/bin:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1",
				"XDG_STATE_HOME=" + home + "/state", "XDG_CACHE_HOME=" + home + "/cache"}
			git := func(args ...string) {
				c := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
				c.Dir, c.Env = proj, env
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			git("init", "-q")
			os.WriteFile(filepath.Join(proj, "work.txt"), []byte("committed\n"), 0o644)
			git("add", "work.txt")
			git("commit", "-qm", "x")
			os.WriteFile(filepath.Join(proj, "work.txt"), []byte("uncommitted work\n"), 0o644)

			cmd := exec.Command(bin, "--mode", "auto", "--no-sandbox", "-c", src)
			cmd.Dir, cmd.Env = proj, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Run()
			if b, _ := os.ReadFile(filepath.Join(proj, "work.txt")); string(b) != "uncommitted work\n" {
				t.Errorf("the uncommitted change is gone: %q\noutput: %s", b, out.String())
			}
			if !strings.Contains(out.String(), "guardsh: denied") && !strings.Contains(out.String(), "guardsh: needs approval") {
				t.Errorf("no refusal:\n%s", out.String())
			}
			// the static checker, with the copy there: the copy's verdict is
			// guardsh's own
			check := strings.SplitN(src, "; ", 2)[1]
			verdict := func(line string) string {
				c := exec.Command(bin, "--check", "--mode", "auto", "-c", line)
				c.Dir, c.Env = proj, env
				out, _ := c.Output()
				first, _, _ := strings.Cut(string(out), "]")
				return first + "]"
			}
			asGuardsh := strings.NewReplacer("./gs ", "guardsh ", "./git ", "guardsh ", " gs ", " guardsh ").Replace(check)
			if strings.Contains(check, "PATH=") {
				// a name looked up on PATH: the checker does no lookup, it
				// asks (the runner knows the file when it starts it)
				if v := verdict(check); strings.HasPrefix(v, "allow") {
					t.Errorf("--check %s: %s", check, v)
				}
			} else if got, want := verdict(check), verdict(asGuardsh); got != want {
				t.Errorf("--check %s: %s; as guardsh (%s): %s", check, got, asGuardsh, want)
			}
			if strings.Contains(check, "bypass") && !strings.Contains(check, "PATH=") && !strings.HasPrefix(verdict(check), "deny") {
				t.Errorf("--check %s: %s, want denied", check, verdict(check))
			}
		})
	}
}
