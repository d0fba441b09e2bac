package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/guardsh"
)

// TestStrictBeyondPathsAtRunTime: the real runner refuses what a listed
// command would read beyond its path arguments, also when the argument
// is only known after expansion (the checker's strict.dynamic does not
// apply there): jq's import of a data file outside the project, diff of a
// directory holding a symlink out of it, a path flag's value outside.
func TestStrictBeyondPathsAtRunTime(t *testing.T) {
	for _, prog := range []string{"jq", "diff", "realpath"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skip("needs " + prog)
		}
	}
	root := t.TempDir()
	proj, outside, home := filepath.Join(root, "proj"), filepath.Join(root, "outside"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(proj, "s1"), filepath.Join(proj, "s2"), outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		filepath.Join(outside, "data.json"):  `[{"k":"TOPSECRET"}]`,
		filepath.Join(outside, "secret.txt"): "TOPSECRET\n",
		filepath.Join(proj, "s2", "f"):       "other\n",
		filepath.Join(proj, "app.js"):        "x\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(proj, "s1", "f")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ src, rule string }{
		{`jq -nc 'import "../outside/data" as $d; $d'`, "strict.argument"},
		{`P='import "../outside/data" as $d; $d'; jq -nc "$P"`, "strict.argument"},
		{`diff s1 s2`, "strict.argument"},
		{`d=s1; diff $d s2`, "strict.argument"},
		{`X=` + outside + `; realpath --relative-to=$X app.js`, "strict.path"},
	}
	for _, tt := range tests {
		out, errb, st := strictRun(t, proj, home, tt.src)
		if strings.Contains(out+errb, "TOPSECRET") || strings.Contains(out, "../outside") {
			t.Errorf("%q leaked: %s %s", tt.src, out, errb)
		}
		if st == 0 || !strings.Contains(errb, "["+tt.rule+"]") {
			t.Errorf("%q: status %d, stderr %q, want a [%s] refusal", tt.src, st, errb, tt.rule)
		}
	}
	// the legitimate forms run
	out, errb, st := strictRun(t, proj, home, `diff --no-dereference s1 s2; jq -r '.import // "none"' app.js 2>/dev/null; realpath --relative-to=s2 app.js`)
	if strings.Contains(out+errb, "TOPSECRET") || !strings.Contains(out, "symbolic link") || !strings.Contains(out, "../app.js") {
		t.Errorf("legitimate forms: status %d, stdout %q, stderr %q", st, out, errb)
	}
}

// TestStrictGitJoinedValues: git reads -U, --unified and --format without
// a joined value as flags without one, so the next word is an argument of
// its own. At run time, also when the words come from expansions, git diff
// -U NEXT is refused: NEXT=--output=FILE would make git write FILE outside
// the project, NEXT=../x would diff a file outside (git diff's implicit
// --no-index).
func TestStrictGitJoinedValues(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := t.TempDir()
	proj, outside, home := filepath.Join(root, "proj"), filepath.Join(root, "outside"), filepath.Join(root, "home")
	for _, d := range []string{proj, outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	run := func(src string) (string, string, int) {
		return strictRunEnv(t, guardsh.NewPolicy(guardsh.ModeStrict), proj, []string{"PATH=/usr/bin:/bin", "HOME=" + home, "GUARDSH_MODE=strict",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, src)
	}
	for _, src := range []string{
		`git diff -U ../outside/secret.txt a.txt`,
		`U=-U; git diff $U ../outside/secret.txt a.txt`,
		`git diff -U --output=../outside/pwn`,
		`git diff --unified --output=../outside/pwn`,
		`F=--format; git log $F --output=../outside/pwn`,
		`git show -U --output=../outside/pwn`,
	} {
		out, errb, st := run(src)
		if strings.Contains(out+errb, "TOPSECRET") {
			t.Errorf("%q leaked: %s %s", src, out, errb)
		}
		if _, err := os.Stat(filepath.Join(outside, "pwn")); err == nil {
			t.Fatalf("%q wrote outside the project", src)
		}
		if st == 0 || !strings.Contains(errb, "[strict.value-flag]") {
			t.Errorf("%q: status %d, stderr %q, want a [strict.value-flag] refusal", src, st, errb)
		}
	}
	out, errb, st := run(`git diff -U5 --no-color a.txt ; git diff --unified=1 a.txt; echo ok`)
	if st != 0 || !strings.Contains(out, "ok") || strings.Contains(errb, "denied") {
		t.Errorf("joined forms: status %d, stdout %q, stderr %q", st, out, errb)
	}
}

// TestStrictEmbeddedGitDir: a bare repository inside the project (files a
// repository can ship: HEAD, objects/info/alternates, info/attributes,
// config) makes git show run its diff textconv through /bin/sh, outside
// the interpreter. Strict mode refuses git in it, whether reached by cd,
// git -C or a nested shell.
func TestStrictEmbeddedGitDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := t.TempDir()
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	marker := filepath.Join(root, "TEXTCONV-RAN")
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", proj, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, d := range []string{proj, home, filepath.Join(proj, "evil/objects/info"), filepath.Join(proj, "evil/refs/heads"), filepath.Join(proj, "evil/info")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "a.txt")
	git("commit", "-qm", "init")
	head := git("rev-parse", "HEAD")
	for name, body := range map[string]string{
		"evil/HEAD":                    "ref: refs/heads/main\n",
		"evil/refs/heads/main":         head + "\n",
		"evil/objects/info/alternates": "../../.git/objects\n",
		"evil/info/attributes":         "* diff=x\n",
		"evil/config":                  "[core]\n\tbare = true\n[diff \"x\"]\n\ttextconv = \"touch " + marker + "; cat\"\n",
	} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(src string) (string, string, int) {
		return strictRunEnv(t, guardsh.NewPolicy(guardsh.ModeStrict), proj, []string{"PATH=/usr/bin:/bin", "HOME=" + home, "GUARDSH_MODE=strict",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, src)
	}
	for _, src := range []string{
		`cd evil && git show HEAD`,
		`git -C evil log -p`,
		`d=evil; git -C $d show`,
		`bash -c 'cd evil/info; git show'`,
	} {
		_, errb, st := run(src)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q ran the embedded repository's textconv", src)
		}
		if st == 0 || !strings.Contains(errb, "[strict.argument]") {
			t.Errorf("%q: status %d, stderr %q, want a [strict.argument] refusal", src, st, errb)
		}
	}
	if out, errb, st := run(`git show HEAD`); st != 0 || !strings.Contains(out, "hello") {
		t.Errorf("git show in the project: status %d, stdout %q, stderr %q", st, out, errb)
	}
}

// TestStrictRedirectOutside: redirections read and write only inside the
// project in strict mode, also in the shared temp dirs (t.TempDir usually
// lies in /tmp, which auto mode lets scripts use); process substitution
// still works.
func TestStrictRedirectOutside(t *testing.T) {
	root := t.TempDir()
	proj, outside, home := filepath.Join(root, "proj"), filepath.Join(root, "outside"), filepath.Join(root, "home")
	for _, d := range []string{proj, outside, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`cat < ` + secret,
		`exec 3< ` + secret + `; cat <&3`,
		`echo "$(< ` + secret + `)"`,
		`d=` + outside + `; read -r x < $d/secret.txt; echo "$x"`,
		`echo pwned > ` + filepath.Join(outside, "w"),
	} {
		out, errb, st := strictRun(t, proj, home, src)
		if strings.Contains(out+errb, "TOPSECRET") {
			t.Errorf("%q leaked: %s %s", src, out, errb)
		}
		if st == 0 && !strings.Contains(errb, "outside-project") {
			t.Errorf("%q: status %d, stderr %q, want a refusal", src, st, errb)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "w")); err == nil {
		t.Error("a redirection wrote outside the project")
	}
	if out, errb, st := strictRun(t, proj, home, `while read -r l; do echo "got $l"; done < <(echo hi)`); st != 0 || out != "got hi\n" {
		t.Errorf("process substitution: status %d, stdout %q, stderr %q", st, out, errb)
	}
}

// TestStrictGitDirWrites: a script writes nothing inside .git in strict
// mode: .git/commondir (or objects/info/alternates) would make git show
// another repository of the machine (here: one outside the project).
func TestStrictGitDirWrites(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := t.TempDir()
	proj, other, home := filepath.Join(root, "proj"), filepath.Join(root, "other"), filepath.Join(root, "home")
	for _, d := range []string{proj, other, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for dir, body := range map[string]string{proj: "hello\n", other: "OTHERSECRET\n"} {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"commit", "-qm", "x"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	for _, src := range []string{
		`echo ` + other + `/.git > .git/commondir; git log -p --all`,
		`d=.git; echo ` + other + `/.git > $d/commondir; git log -p --all`,
		`uniq a.txt .git/commondir; git log -p --all`,
		`echo ` + other + `/.git/objects > .git/objects/info/alternates; git log -p --all`,
	} {
		out, errb, _ := strictRunEnv(t, guardsh.NewPolicy(guardsh.ModeStrict), proj, []string{"PATH=/usr/bin:/bin", "HOME=" + home, "GUARDSH_MODE=strict",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, src)
		if strings.Contains(out, "OTHERSECRET") || !strings.Contains(errb, "[write.protected]") {
			t.Errorf("%q: stdout %q, stderr %q, want a [write.protected] refusal and no other repository", src, out, errb)
		}
		os.Remove(filepath.Join(proj, ".git/commondir"))
	}
}
