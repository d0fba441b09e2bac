package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestShebangGuardshCopy: a script whose #! names a copy of guardsh (or
// guardsh itself) asking for bypass mode is not a way out of the session's
// rules: its commands are judged by the session's policy. The victim is
// an uncommitted change in a throwaway repository that git reset --hard
// would discard (denied in auto mode).
func TestShebangGuardshCopy(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bin := guardshTestBinary(t)
	for _, interp := range []string{"copy", "self"} {
		t.Run(interp, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			proj := filepath.Join(dir, "proj")
			os.MkdirAll(home, 0o755)
			gitc := func(args ...string) {
				c := exec.Command("git", append([]string{"-C", proj, "-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
				c.Env = append(os.Environ(), "HOME="+home)
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			os.MkdirAll(proj, 0o755)
			gitc("init", "-q")
			os.WriteFile(filepath.Join(proj, "f"), []byte("v1\n"), 0o644)
			gitc("add", "f")
			gitc("commit", "-qm", "i")
			os.WriteFile(filepath.Join(proj, "f"), []byte("uncommitted work\n"), 0o644)
			ip := bin
			if interp == "copy" {
				ip = filepath.Join(proj, "gs")
				b, err := os.ReadFile(bin)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(ip, b, 0o755)
			}
			os.WriteFile(filepath.Join(proj, "s.sh"), []byte("#!"+ip+" --mode=bypass\ngit reset --hard\n"), 0o755)
			cmd := exec.Command(bin, "--no-sandbox", "--mode", "auto", "-c", "./s.sh")
			cmd.Dir = proj
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")}
			out, _ := cmd.CombinedOutput()
			if b, _ := os.ReadFile(filepath.Join(proj, "f")); string(b) != "uncommitted work\n" {
				t.Errorf("#!%s --mode=bypass discarded the uncommitted change\noutput: %s", interp, out)
			}
		})
	}
}
