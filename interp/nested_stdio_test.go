package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestNestedShellJobKeepsRedirection: a background job of a nested shell
// writes to the file its starting statement redirected to, after that
// statement ended, like bash: builtins, external programs, a function
// job, stdout and stderr sharing the file. (The file used to be closed
// under the job: the builtin's output was lost, the external program's
// failed with "Bad file descriptor"; -race reported the close.)
func TestNestedShellJobKeepsRedirection(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, tt := range []struct{ name, src string }{
		{"subshell job", `sh -c '(sleep 0.2; echo builtin; /bin/echo external; touch done) &' > out.txt`},
		{"function job", `bash -c 'f() { sleep 0.2; echo fn; /bin/echo ext; touch done; }; f &' > out.txt`},
		{"stdout and stderr", `sh -c '(sleep 0.2; echo o; /bin/echo e >&2; touch done) &' > out.txt 2>&1`},
		{"nested twice", `sh -c 'sh -c "(sleep 0.2; echo deep; touch done) &"' > out.txt`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := filepath.Join(t.TempDir(), "bash")
			got := filepath.Join(t.TempDir(), "guardsh")
			os.MkdirAll(want, 0o755)
			os.MkdirAll(got, 0o755)
			cmd := exec.Command(bash, "-c", tt.src)
			cmd.Dir = want
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("bash: %v %s", err, out)
			}
			if _, errs, st := runScript(t, got, tt.src); st != 0 {
				t.Fatalf("guardsh: status %d: %s", st, errs)
			}
			for _, d := range []string{want, got} {
				for i := 0; i < 600; i++ { // the jobs end; a minute on a loaded machine at most
					if _, err := os.Stat(filepath.Join(d, "done")); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			w, _ := os.ReadFile(filepath.Join(want, "out.txt"))
			g, _ := os.ReadFile(filepath.Join(got, "out.txt"))
			if len(w) == 0 || string(g) != string(w) {
				t.Errorf("out.txt: guardsh %q, bash %q", g, w)
			}
		})
	}
}

// TestNestedShellNoJobsNoWait: a nested shell that starts no background
// job closes its copies of the pipe at once, so the reader sees the end
// (a pipeline into sed or cat ends), and one whose job ended does too.
func TestNestedShellNoJobsNoWait(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	out, errs, st := runScript(t, dir, `./t.sh | sed s/hi/HI/; sh -c 'echo a' | cat; bash -c 'true &' | cat; echo end`)
	if st != 0 || out != "HI\na\nend\n" {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errs)
	}
}
