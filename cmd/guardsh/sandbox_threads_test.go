//go:build linux

package main

// Attacks on how the confined interpreter is started: every thread of the
// interpreter, the ones its goroutines start after confinement included,
// must be confined; nothing the privileged side holds open may reach it.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/sandbox"
)

// threadLevel is one way of starting the confined interpreter.
type threadLevel struct {
	name, backend string
	env           []string
}

// threadLevels are the levels whose interpreter these tests start: the
// backends of backendsUnderTest, the container level (Landlock and seccomp
// alone), and the full level through the stage process instead of the
// privileged side's confined thread (GUARDSH_SANDBOX_STAGE_ALWAYS=1, the
// way a user without CAP_SYS_ADMIN gets it).
func threadLevels(t *testing.T) []threadLevel {
	var levels []threadLevel
	for _, b := range backendsUnderTest(t) {
		levels = append(levels, threadLevel{b, b, nil})
	}
	if sandbox.LandlockABI() >= 2 {
		levels = append(levels, threadLevel{sandbox.BackendContainer, sandbox.BackendContainer, nil},
			threadLevel{"landlock-stage", sandbox.BackendLandlock, []string{"GUARDSH_SANDBOX_STAGE_ALWAYS=1"}})
	}
	return levels
}

// TestInterpreterThreadsConfined: after a goroutine-heavy start (a
// pipeline, background jobs, externals waited on concurrently, so the Go
// runtime has started threads after confinement), every thread of the
// interpreter has no_new_privs, a seccomp filter and no capability, and
// writes outside from background subshells (run on whichever thread their
// goroutine lands on, threads started late included) all fail.
func TestInterpreterThreadsConfined(t *testing.T) {
	for _, lv := range threadLevels(t) {
		t.Run(lv.name, func(t *testing.T) {
			f := newFixture(t)
			script := `
yes | head -n 5000 >/dev/null
for i in 1 2 3 4 5 6 7 8; do { sleep 0.2; echo x > "$OUT/late$i"; } 2>/dev/null & done
for i in 1 2 3 4; do { echo x > "$OUT/early$i"; } 2>/dev/null & done
sleep 0.1
n=0
for s in /proc/$$/task/*/status; do
	n=$((n+1))
	while read -r k v; do
		case $k in NoNewPrivs:|Seccomp:|CapEff:|CapPrm:|CapBnd:) printf '%s%s ' "$k" "$v";; esac
	done < "$s"
	echo
done
wait
echo "threads=$n"
`
			out, stderr, code := f.run(t, lv.backend, script, lv.env...)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, stderr)
			}
			lines := 0
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "threads=") || l == "" {
					continue
				}
				lines++
				for _, want := range []string{"NoNewPrivs:1", "Seccomp:2", "CapEff:0000000000000000", "CapPrm:0000000000000000"} {
					if !strings.Contains(l, want) {
						t.Errorf("an interpreter thread without %s: %s", want, l)
					}
				}
			}
			if lines < 2 {
				t.Errorf("saw %d threads of the interpreter (want the Go runtime's several): %s %s", lines, out, stderr)
			}
			ents, _ := os.ReadDir(f.outside)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "late") || strings.HasPrefix(e.Name(), "early") {
					t.Errorf("a background subshell wrote outside: %s", filepath.Join(f.outside, e.Name()))
				}
			}
		})
	}
}

// TestInterpreterGetsNoStrayFD: a descriptor the privileged side holds
// without close-on-exec (inherited from whoever started guardsh: here a
// file outside every writable root, opened read-write, as fd 30, above
// the ones passed on purpose, which overwrite 3, 4, ...) must not
// be open in the confined interpreter, whose Landlock rules do not govern
// descriptors already open. The interpreter looks at its own descriptors
// (a glob and test -ef run in its process, not in a child).
func TestInterpreterGetsNoStrayFD(t *testing.T) {
	for _, lv := range threadLevels(t) {
		t.Run(lv.name, func(t *testing.T) {
			f := newFixture(t)
			planted := filepath.Join(f.outside, "planted")
			pf, err := os.OpenFile(planted, os.O_CREATE|os.O_RDWR, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			script := `for fd in /proc/self/fd/*; do [ "$fd" -ef "$OUT/planted" ] && echo "LEAK $fd"; done; echo checked`
			extra := make([]*os.File, 28)
			extra[27] = pf
			out, stderr, code := f.runFiles(t, f.env(lv.backend, lv.env...), extra, "-c", script)
			if code != 0 || !strings.Contains(out, "checked") {
				t.Fatalf("exit %d: %s %s", code, out, stderr)
			}
			if strings.Contains(out, "LEAK") {
				t.Errorf("the privileged side's stray descriptor reached the confined interpreter: %s", out)
			}
		})
	}
}

// runFiles is runArgs with extra descriptors (fd 3, 4, ...) open in guardsh.
func (f *fixture) runFiles(t *testing.T, env []string, extra []*os.File, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(f.bin, args...)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = f.project, env, extra
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}
