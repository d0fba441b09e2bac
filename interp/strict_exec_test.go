package interp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// strictRun runs src in a strict-mode runner in project dir proj, whose
// PATH starts with the project's bin directory.
func strictRun(t *testing.T, proj, home, src string) (string, string, int) {
	return strictRunWith(t, guardsh.NewPolicy(guardsh.ModeStrict), proj, home, src)
}

func strictRunWith(t *testing.T, p *guardsh.Policy, proj, home, src string) (string, string, int) {
	t.Helper()
	return strictRunEnv(t, p, proj, []string{"PATH=" + filepath.Join(proj, "bin") + ":" + proj + ":/usr/bin:/bin", "HOME=" + home,
		"GUARDSH_MODE=strict", "PAGER=less"}, src)
}

// strictRunEnv runs src in strict mode with policy p and environment env.
func strictRunEnv(t *testing.T, p *guardsh.Policy, proj string, env []string, src string) (string, string, int) {
	t.Helper()
	var out, errb syncBuffer
	// the path jail for redirections, as guardsh's session has
	fs, err := NewJailFS(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	r, err := New(Config{
		FS:      fs,
		Policy:  p,
		Dir:     proj,
		Project: proj,
		Env:     env,
		Stdout:  &out,
		Stderr:  &errb,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := r.Run(context.Background(), strings.NewReader(src), "guardsh")
	return out.String(), errb.String(), st
}

// TestStrictNeverRunsProjectPrograms: in strict mode a program the script
// wrote never runs, however it is reached: by its path, through $PATH
// (inherited or set by the script), wrappers, nested shells, a script
// file, command substitution. Every attempt is checked against a marker
// file the fake programs would create. Allowed commands still run, from
// the system directories.
func TestStrictNeverRunsProjectPrograms(t *testing.T) {
	if _, err := os.Stat("/usr/bin/ls"); err != nil {
		t.Skip("needs /usr/bin/ls")
	}
	root := t.TempDir()
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	marker := filepath.Join(root, "PWNED")
	fake := "#!/bin/sh\ntouch " + marker + "\necho fake\n"
	for _, d := range []string{filepath.Join(proj, "bin"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ls", "bin/ls", "bin/grep", "bin/timeout", "bin/env"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "x.sh"), []byte("./ls\nls bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	attacks := []string{
		"ls",
		"./ls",
		"bin/ls",
		proj + "/bin/ls",
		"PATH=$PWD/bin:$PATH ls",
		"export PATH=./bin:$PATH; ls",
		"PATH=. ls",
		"timeout 5 ls",
		"env ls",
		"env PATH=./bin ls",
		"command ls",
		"command ./ls",
		"(exec ./ls)",
		"bash -c ls",
		"bash -c ./ls",
		"sh -c 'PATH=./bin; ls'",
		"bash ./x.sh",
		"$(echo ./ls)",
		"cmd=./ls; $cmd",
		"'.'/ls",
		`.\/ls`,
		"grep -n fake ls",
		"timeout 5 bash ./x.sh",
		"eval ./ls",
		"source ./x.sh",
	}
	for _, src := range attacks {
		out, errb, st := strictRun(t, proj, home, src)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q ran a project program (status %d)\nstdout: %s\nstderr: %s", src, st, out, errb)
		}
		if strings.HasPrefix(out, "fake\n") || strings.Contains(out, "\nfake\n") {
			t.Errorf("%q: stdout %q shows the fake program", src, out)
		}
	}
	// what is listed runs, from /usr/bin
	out, errb, st := strictRun(t, proj, home, "ls bin; PATH=./bin ls x.sh; timeout 5 ls x.sh; cd bin && ls grep")
	if st != 0 || out != "env\ngrep\nls\ntimeout\nx.sh\nx.sh\ngrep\n" {
		t.Errorf("allowed ls: status %d, stdout %q, stderr %s", st, out, errb)
	}
	// paths: cd and arguments stay in the project, symlinks followed
	if err := os.Symlink("/etc", filepath.Join(proj, "etc")); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"cd /etc", "cat etc/hostname", "cd etc", "ls ..", "cat ../../../etc/hostname"} {
		out, errb, st := strictRun(t, proj, home, src)
		if st != 126 || out != "" || !strings.Contains(errb, "[strict.path]") {
			t.Errorf("%q: status %d, stdout %q, stderr %s", src, st, out, errb)
		}
	}
	// a refusal says why and what is allowed
	_, errb, st = strictRun(t, proj, home, "grep -f x ls")
	if st != 126 || !strings.Contains(errb, "[strict.flag]") || !strings.Contains(errb, "allowed: grep [") {
		t.Errorf("grep -f: status %d, stderr %s", st, errb)
	}
}

// TestStrictEnvPin: a script cannot loosen strict mode for the programs it
// starts (GUARDSH_MODE stays strict), nor hand them PATH or variables that
// make programs run other code; allowed variables pass.
func TestStrictEnvPin(t *testing.T) {
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("needs /usr/bin/env")
	}
	proj, home := t.TempDir(), t.TempDir()
	// printenv (listed for the test) prints the environment it got
	p := guardsh.NewPolicy(guardsh.ModeStrict)
	p.Strict = &guardsh.StrictConfig{Commands: []guardsh.StrictEntry{{Words: []string{"printenv"}, MaxArgs: 0}}}
	src := "export GUARDSH_MODE=auto LANG=C.UTF-8 PAGER=./evil GIT_EXTERNAL_DIFF=./evil PATH=./bin:$PATH; LD_PRELOAD=./evil.so LANGUAGE=../../../../p/loc timeout 5 printenv"
	out, errb, st := strictRunWith(t, p, proj, home, src)
	if st != 0 {
		t.Fatalf("status %d, stderr %s", st, errb)
	}
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	want := map[string]string{"GUARDSH_MODE": "strict", "LANG": "C.UTF-8", "PAGER": "less", "PATH": strings.Join(guardsh.DefaultProgramDirs, ":")}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"GIT_EXTERNAL_DIFF", "LD_PRELOAD", "LANGUAGE"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s=%q reached the program", k, v)
		}
	}
	if !strings.Contains(errb, "guardsh: strict: GIT_EXTERNAL_DIFF is not passed to the programs") {
		t.Errorf("no note about the dropped variable: %s", errb)
	}
	if !strings.Contains(errb, "guardsh: strict: PAGER keeps its value from the session start") {
		t.Errorf("no note about the reset variable: %s", errb)
	}
}
