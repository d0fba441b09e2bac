package guardsh

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// strictTestProject makes a project with files and symlinks for the strict
// tests: etc -> /etc, up -> .., ssh -> /etc/ssh (for ssh/../passwd),
// sub/ and an executable ./ls.
func strictTestProject(t *testing.T) (proj, home string) {
	t.Helper()
	root := t.TempDir()
	proj = filepath.Join(root, "proj")
	home = filepath.Join(root, "home")
	for _, d := range []string{proj, home, filepath.Join(proj, "sub"), filepath.Join(proj, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"app.js": "x\n", "sub/a.go": "package a\n", "x.sh": "ls\n"} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{"ls", "bin/ls", "bin/grep"} {
		if err := os.WriteFile(filepath.Join(proj, exe), []byte("#!/bin/sh\ntouch PWNED\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"etc": "/etc", "up": "..", "ssh": "/etc/ssh", "inside": "sub"} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	return proj, home
}

// strictPolicies returns the strict policy of a user config file holding
// conf (written in home) and the built-in strict policy.
func strictPolicies(t *testing.T, proj, home, conf string) (configured, builtin *Policy) {
	t.Helper()
	cfgFile := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfgFile, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(home, proj, func(k string) string {
		if k == "GUARDSH_CONFIG" {
			return cfgFile
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Policy(ModeStrict), NewPolicy(ModeStrict)
}

// wantStrictVerdict fails t unless the checker's verdict sv on src allows
// (rule "") or denies naming rule, with msg in its message if msg is set.
func wantStrictVerdict(t *testing.T, sv ScriptVerdict, src string, conf bool, rule, msg string) {
	t.Helper()
	m := sv.Message()
	switch {
	case rule == "":
		if sv.Decision != Allow {
			t.Errorf("%q (conf %v): %s, want allow", src, conf, m)
		}
	case sv.Decision != Deny || !mentions(sv, rule):
		t.Errorf("%q (conf %v): %s, want deny [%s]", src, conf, m, rule)
	case msg != "" && !strings.Contains(m, msg):
		t.Errorf("%q (conf %v): %s\nwant it to contain %q", src, conf, m, msg)
	}
}

// strictConfigTOML lists ls with -l only and grep with a few flags.
const strictConfigTOML = `
[[strict.command]]
name = "ls"
flags = ["-l"]

[[strict.command]]
name = "grep"
flags = ["-n", "-i", "-r", "-l"]
value_flags = ["-e", "--max-count"]
paths = true
`

// TestStrictProfile: strict mode (checker and Classify alike) refuses
// what the allowlist does not list, with the rule, why and the allowed
// form; wrappers, nested shells, quoting and symlinks do not get around it.
func TestStrictProfile(t *testing.T) {
	proj, home := strictTestProject(t)
	configured, builtin := strictPolicies(t, proj, home, strictConfigTOML)
	env := CheckEnv{Dir: proj, Project: proj, Home: home}
	tests := []struct {
		src     string
		conf    bool   // with strictConfigTOML (else the built-in profile)
		rule    string // "" means allowed (unless anyDeny)
		msg     string // in the message, if set
		anyDeny bool   // denied, whatever the rule
	}{
		// the four
		{src: "grep -f x app.js", rule: idStrictFlag.String(), msg: "-f is not listed"},
		{src: "grep -f x app.js", conf: true, rule: idStrictFlag.String(), msg: `allowed: grep [-n -i -r -l] [-e VALUE] [--max-count VALUE] PATHS...`},
		{src: "ls -la", conf: true, rule: idStrictFlag.String(), msg: "-a (in -la)"},
		{src: "./ls", rule: idStrictProgram.String()},
		{src: "cat /etc/passwd", rule: idStrictPath.String()},
		// allowed forms
		{src: "ls -l", conf: true},
		{src: "ls -la"},
		{src: "grep -n foo app.js", conf: true},
		{src: "grep -ni -e foo --max-count 3 app.js sub", conf: true},
		{src: "grep --max-count=3 foo app.js", conf: true},
		{src: "grep -nefoo app.js", conf: true},
		{src: "grep -- -n app.js", conf: true},
		{src: "cat app.js sub/a.go inside/a.go sub/../app.js"},
		{src: "git status"},
		{src: "git log -n 5 --oneline"},
		{src: "go test ./..."},
		{src: "go test -run=TestX -count=1 -v ./sub/..."},
		{src: "go vet ./..."},
		{src: "find . -name '*.go' -type f"},
		{src: "head -n 5 app.js | wc -l"},
		{src: "head -20 app.js; tail -5 app.js; ls -1"},
		{src: "head -2x app.js", rule: idStrictValue.String()},
		{src: "echo hi; printf '%s\\n' x; test -f app.js; true; pwd"},
		{src: "cd sub && ls"},
		{src: "timeout 5 go test ./..."},
		{src: "command ls -l"},
		{src: "command -v curl jq >/dev/null"},
		{src: "command -v ./ls", rule: idStrictProgram.String()},
		{src: "/usr/bin/ls -l"},
		{src: "bash -c 'ls -l'"},
		{src: "bash ./x.sh"},
		{src: ". ./x.sh"},
		{src: "env LANG=C sort app.js"},
		{src: "diff -u app.js sub/a.go"},
		// flags
		{src: "grep -rf x .", conf: true, rule: idStrictFlag.String(), msg: "-f (in -rf)"},
		{src: "grep --file=x app.js", conf: true, rule: idStrictValue.String(), msg: "--file"},
		{src: "grep --include=*.env x .", rule: idStrictValue.String(), msg: "--include"},
		{src: "grep --include '*.env' x .", rule: idStrictFlag.String(), msg: "--include"},
		{src: "grep -A", rule: idStrictValue.String(), msg: "needs a value"},
		{src: "grep --color=always x app.js", rule: idStrictValue.String()},
		{src: "git diff --ext-diff", rule: idStrictFlag.String()},
		{src: "git -c core.pager=sh log", rule: idStrictUnlisted.String()},
		{src: "git --no-pager log -n 3; git -C sub status; git -P -C sub diff -- a.go"},
		{src: "git -C .. status", rule: idStrictPath.String()},
		{src: "git -C etc log", rule: idStrictPath.String()},
		{src: "git -C sub log -- ../../x", rule: idStrictPath.String()},
		{src: "git --no-pager push", rule: idStrictUnlisted.String()},
		{src: "git push", rule: idStrictUnlisted.String(), msg: "git push is not on the strict allowlist"},
		{src: "go test -exec ./x ./...", rule: idStrictFlag.String(), msg: "-exec"},
		{src: "go test -toolexec=./x ./...", rule: idStrictValue.String(), msg: "-toolexec"},
		{src: "find . -exec cat {} ';'", rule: idStrictFlag.String(), msg: "-exec"},
		{src: "find . -fprint x", rule: idStrictFlag.String(), msg: "-fprint"},
		{src: "find . -name x -delete", anyDeny: true},
		{src: "sort -o out app.js", rule: idStrictFlag.String()},
		{src: `grep "-n foo$" app.js`, rule: idStrictWord.String(), msg: `pass arguments as separate words: grep -n 'foo$' app.js`},
		{src: `"grep -n" foo app.js`, rule: idStrictWord.String()},
		// paths
		{src: "cat ../x", rule: idStrictPath.String()},
		{src: "cat sub/../../x", rule: idStrictPath.String()},
		{src: "cat etc/passwd", rule: idStrictPath.String(), msg: "resolves to /etc/passwd"},
		{src: "cat ssh/../passwd", rule: idStrictPath.String(), msg: "resolves to /etc/passwd"},
		{src: "cat up/proj/app.js up/x", rule: idStrictPath.String()},
		{src: "cat ~/.bashrc", rule: idStrictPath.String()},
		{src: "grep -rn foo /", conf: true, rule: idStrictPath.String()},
		{src: "cd /etc", rule: idStrictPath.String()},
		{src: "cd", rule: idStrictPath.String()},
		{src: "pushd -n /etc", rule: idStrictPath.String()},
		{src: "cd -P etc", rule: idStrictPath.String()},
		{src: "cd -P inside && cd - && pushd sub"},
		{src: "source /etc/profile", rule: idStrictPath.String()},
		{src: "bash /tmp/x.sh", rule: idStrictPath.String()},
		{src: "git log -- ../other", rule: idStrictPath.String()},
		{src: "jq . /etc/passwd", rule: idStrictPath.String()},
		{src: "jq . etc/passwd", rule: idStrictPath.String()},
		{src: "jq .a app.js; date +%s; tr a-z A-Z"},
		// programs
		{src: "./bin/ls", rule: idStrictProgram.String()},
		{src: "bin/grep foo", rule: idStrictProgram.String()},
		{src: "/tmp/ls", rule: idStrictProgram.String()},
		{src: "/usr/bin/../../tmp/ls", rule: idStrictProgram.String()},
		{src: "command ./ls", rule: idStrictProgram.String()},
		{src: "curl https://example.com", rule: idStrictUnlisted.String()},
		{src: "python3 x.py", rule: idStrictUnlisted.String()},
		{src: "rm -rf build", rule: idStrictUnlisted.String()},
		{src: "make test", rule: idStrictUnlisted.String()},
		{src: "zsh -c ls", rule: idStrictUnlisted.String()},
		// wrappers and nested shells
		{src: "env grep -f x app.js", rule: idStrictFlag.String()},
		{src: "command grep -f x app.js", rule: idStrictFlag.String()},
		{src: "exec grep -f x app.js", rule: idStrictFlag.String()},
		{src: "nice -n 5 grep -f x app.js", rule: idStrictFlag.String()},
		{src: "timeout 5 grep -f x app.js", rule: idStrictFlag.String()},
		{src: "nohup ./ls", rule: idStrictProgram.String()},
		{src: "env -C /etc ls", rule: idStrictFlag.String()},
		{src: "env -S 'grep -f x' app.js", rule: idStrictFlag.String()},
		{src: "env LD_PRELOAD=./x.so ls", rule: idStrictEnv.String()},
		{src: "env GIT_EXTERNAL_DIFF=./x git diff", rule: idStrictEnv.String()},
		{src: "env PATH=./bin ls", rule: idStrictEnv.String()},
		// K5: gettext looks LANGUAGE up as a path below /usr/share/locale:
		// LANGUAGE=../../../proj/loc loads a message catalog the script
		// wrote, whose translations are printf formats of listed programs
		{src: "LANGUAGE=../../../../tmp/p/loc basename x"}, // the runner resets it
		{src: "env LANGUAGE=de basename x", rule: idStrictEnv.String()},
		{src: "export LANGUAGE=de"}, // allowed: the runner does not pass it on
		{src: "env", rule: idStrictUnlisted.String()},
		{src: "timeout 5 bash ./x.sh", rule: idStrictUnlisted.String(), msg: "outside guardsh's interpreter"},
		{src: "nohup sh -c ls", rule: idStrictUnlisted.String()},
		{src: "nice env bash ./x.sh", rule: idStrictUnlisted.String()},
		{src: "env timeout 5 bash ./x.sh", rule: idStrictUnlisted.String()},
		{src: "env LANG=C bash ./x.sh"},
		{src: "command bash ./x.sh"},
		{src: "xargs grep x", rule: idStrictInput.String()},
		{src: "echo a | xargs grep x", rule: idStrictUnlisted.String()},
		{src: "sudo grep x app.js", anyDeny: true},
		{src: "bash -c 'grep -f x app.js'", rule: idStrictFlag.String()},
		{src: "sh -c 'cat /etc/passwd'", rule: idStrictPath.String()},
		{src: `bash -c 'bash -c "./ls"'`, rule: idStrictProgram.String()},
		{src: "bash -i", rule: idStrictFlag.String()},
		{src: "bash --rcfile x", rule: idStrictFlag.String()},
		{src: "eval 'cat /etc/passwd'", rule: idStrictPath.String()},
		{src: "set -a", rule: idStrictEnv.String()},
		// quoting
		{src: "'gr'ep -f x app.js", rule: idStrictFlag.String()},
		{src: `g\rep -rf x .`, rule: idStrictFlag.String()},
		{src: `"grep" --file=x app.js`, rule: idStrictValue.String()},
		{src: `$(echo grep) -f x app.js`, anyDeny: true},
		// asks are refused
		{src: "echo hi > /etc/x", rule: idWriteOutside.String(), msg: "strict mode refuses what would need approval"},
	}
	for _, tt := range tests {
		p := builtin
		if tt.conf {
			p = configured
		}
		sv, _ := p.CheckScript(tt.src, env)
		switch {
		case tt.anyDeny:
			if sv.Decision != Deny {
				t.Errorf("%q (conf %v): %s [%s] %s, want deny", tt.src, tt.conf, sv.Decision, sv.Rule, sv.Reason)
			}
		default:
			wantStrictVerdict(t, sv, tt.src, tt.conf, tt.rule, tt.msg)
		}
	}
}

// TestStrictClassify: Classify (what the runner asks, argv expanded) puts
// the allowlist on every command and refuses in strict what auto asks.
func TestStrictClassify(t *testing.T) {
	proj, home := strictTestProject(t)
	p := NewPolicy(ModeStrict)
	tests := []struct {
		args []string
		dir  string
		rule string
	}{
		{[]string{"grep", "-n", "x", "app.js"}, proj, ""},
		{[]string{"grep", "-f", "x", "app.js"}, proj, idStrictFlag.String()},
		{[]string{"ls"}, "/etc", idStrictPath.String()},                     // working directory outside
		{[]string{"ls"}, filepath.Join(proj, "etc"), idStrictPath.String()}, // a symlink out of the project
		{[]string{"echo", "x"}, "/etc", ""},                                 // builtins do not read
		{[]string{"./ls"}, proj, idStrictProgram.String()},
		{[]string{proj + "/bin/ls"}, proj, idStrictProgram.String()},
		{[]string{"/bin/ls"}, proj, ""},
		{[]string{"pip", "install", "x"}, proj, idStrictUnlisted.String()},
	}
	for _, tt := range tests {
		v := p.Classify(Command{Args: tt.args, Dir: tt.dir, Project: proj, Home: home, Via: "shell"})
		if tt.rule == "" {
			if v.Decision != Allow {
				t.Errorf("%q in %s: %s, want allow", tt.args, tt.dir, v.Message())
			}
			continue
		}
		if v.Decision != Deny || v.Rule != tt.rule {
			t.Errorf("%q in %s: %s, want deny [%s]", tt.args, tt.dir, v.Message(), tt.rule)
		}
	}
	// xargs: arguments from standard input are never checked
	v := p.classifyArgs(&Command{Dir: proj, Project: proj, Home: home}, []string{"grep", "-n", "x"}, 1, true)
	if v.Decision != Deny || v.Rule != idStrictInput.String() {
		t.Errorf("argv from input: %s, want [%s]", v.Message(), idStrictInput.String())
	}
	// an access outside the project that auto mode would ask about
	a := p.ClassifyAccess(Access{Path: "/srv/data", Dir: proj, Project: proj, Home: home, Via: "redirect"})
	if a.Decision != Deny {
		t.Errorf("read of /srv/data in strict mode: %s, want deny", a.Message())
	}
}

// TestStrictModeOrder: strict is the strictest mode, for config files and
// ParseMode.
func TestStrictModeOrder(t *testing.T) {
	if m, err := ParseMode(" Strict "); err != nil || m != ModeStrict {
		t.Fatalf("ParseMode(strict) = %q, %v", m, err)
	}
	for _, m := range []Mode{ModeBypass, ModeAuto, ModeDefault, ModePlan} {
		if modeStrictness(ModeStrict) <= modeStrictness(m) {
			t.Errorf("strict is not stricter than %s", m)
		}
	}
	p := NewPolicy(ModeStrict)
	if d := p.StrictProgramDirs(); len(d) == 0 || d[0] != "/usr/bin" {
		t.Errorf("program dirs %q", d)
	}
	if NewPolicy(ModeAuto).StrictProgramDirs() != nil {
		t.Error("auto mode has strict program dirs")
	}
	for name, want := range map[string]bool{"LANG": true, "LC_ALL": true, "LANGUAGE": false, "LD_PRELOAD": false, "GIT_PAGER": false, "HOME": false, "GOFLAGS": false, "PAGER": false} {
		if p.StrictEnvAllowed(name) != want {
			t.Errorf("StrictEnvAllowed(%s) != %v", name, want)
		}
	}
}

// TestStrictConfig: the [strict] section, its errors with file:line:col,
// and an untrusted project that may not change the allowlist.
func TestStrictConfig(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	user := filepath.Join(home, "config.toml")
	load := func(userSrc, projSrc string) (*Config, error) {
		os.WriteFile(user, []byte(userSrc), 0o644)
		os.Remove(filepath.Join(proj, ProjectConfigFile))
		if projSrc != "" {
			os.WriteFile(filepath.Join(proj, ProjectConfigFile), []byte(projSrc), 0o644)
		}
		return LoadConfig(home, proj, func(k string) string {
			if k == "GUARDSH_CONFIG" {
				return user
			}
			return ""
		})
	}
	errs := []struct{ src, want string }{
		{"[[strict.command]]\nflags = [\"-n\"]\n", ":1:1: strict.command 1 (no id): missing name"},
		{"[[strict.command]]\nname = \"grep\"\nflags = [\"n\"]\n", `:3:1: strict.command 1 (grep): "n" is not a flag`},
		{"[[strict.command]]\nname = \"grep\"\nvalue_flags = [\"--file=x\"]\n", `:3:1: strict.command 1 (grep): "--file=x" is not a flag`},
		{"[[strict.command]]\nname = \"grep\"\nflags = [\"-e\"]\nvalue_flags = [\"-e\"]\n", `:4:1: strict.command 1 (grep): "-e" is listed twice`},
		{"[[strict.command]]\nname = \"sort\"\npath_flags = [\"o\"]\n", `:3:1: strict.command 1 (sort): "o" is not a flag`},
		{"[[strict.command]]\nname = \"sort\"\nflags = [\"-o\"]\npath_flags = [\"-o\"]\n", `:4:1: strict.command 1 (sort): "-o" is listed twice`},
		{"[[strict.command]]\nname = \"./bin/grep\"\n", `:2:1: strict.command 1 (./bin/grep): "./bin/grep": name a command by its plain name`},
		{"[[strict.command]]\nname = \"ls\"\n\n[[strict.command]]\nname = \"cat\"\nmax_args = -1\n", `:6:1: strict.command 2 (cat): max_args must be 0 or more`},
		{"[strict]\nprogram_dirs = [\"bin\"]\n", `:2:1: strict.program_dirs: "bin" is not an absolute path`},
		{"[strict]\nenv = [\"A=B\"]\n", `:2:1: strict.env: "A=B"`},
		{"[strict]\nbogus = 1\n", `unknown key "strict.bogus"`},
		{"[[strict.command]]\nname = \"ls\"\n\n[[strict.command]]\nname = \"cat\"\n  nmae = 1\n", `:6:3: unknown key "strict.command.nmae"`},
	}
	for _, tt := range errs {
		_, err := load(tt.src, "")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("config %q: error %v, want %q", tt.src, err, tt.want)
		}
	}
	// a path flag may also be listed as a value flag
	if _, err := load("[[strict.command]]\nname = \"sort\"\nvalue_flags = [\"-o\"]\npath_flags = [\"-o\"]\n", ""); err != nil {
		t.Errorf("path flag also in value_flags: %v", err)
	}
	// defaults = false leaves only the configured entries
	cfg, err := load("[strict]\ndefaults = false\nprogram_dirs = [\"/opt/tools/bin\"]\nenv = [\"MY_*\"]\n[[strict.command]]\nname = \"go test\"\nflags = [\"-v\"]\npaths = false\nmax_args = 1\n", "")
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Policy(ModeStrict)
	env := CheckEnv{Dir: proj, Project: proj, Home: home}
	for src, want := range map[string]Decision{"ls": Deny, "go test -v ./x": Allow, "go test ./x ./y": Deny, "go vet ./x": Deny, "env MY_FLAG=1 go test ./x": Allow} {
		if sv, _ := p.CheckScript(src, env); sv.Decision != want {
			t.Errorf("defaults = false: %q: %s, want %s", src, sv.Message(), want)
		}
	}
	if d := p.StrictProgramDirs(); d[len(d)-1] != "/opt/tools/bin" {
		t.Errorf("program dirs %q", d)
	}
	// an untrusted project's [strict] is ignored with a warning
	cfg, err = load("", "[[strict.command]]\nname = \"curl\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Strict.Commands) != 0 || len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], ".guardsh.toml:1:1: [strict] ignored") {
		t.Errorf("untrusted project: commands %v, warnings %q", cfg.Strict.Commands, cfg.Warnings)
	}
	// a trusted one applies, except program_dirs
	cfg, err = load("trusted_projects = [\""+proj+"\"]\n", "[strict]\nprogram_dirs = [\"/x\"]\n[[strict.command]]\nname = \"make test\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Strict.Commands) != 1 || len(cfg.Strict.ProgramDirs) != 0 || len(cfg.Warnings) != 1 {
		t.Errorf("trusted project: commands %v, dirs %v, warnings %q", cfg.Strict.Commands, cfg.Strict.ProgramDirs, cfg.Warnings)
	}
}

// TestResolveLinks: links are followed before the .. after them, as the
// kernel does, and loops end.
func TestResolveLinks(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("/etc/ssh", filepath.Join(dir, "ssh"))
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	real, _ := filepath.EvalSymlinks(dir)
	for in, want := range map[string]string{
		dir + "/ssh/../passwd": "/etc/passwd",
		dir + "/missing/../a":  real + "/a",
		dir + "/./x/y/":        real + "/x/y",
		dir + "/loop1/x":       "",
		"/":                    "/",
	} {
		if got := ResolveLinks(in); got != want {
			t.Errorf("ResolveLinks(%q) = %q, want %q", in, got, want)
		}
	}
}

func init() {
	catalogueTests = append(catalogueTests,
		catTest{id: idStrictUnlisted, mode: ModeStrict, match: []string{"curl https://x", "git push"}, notMatch: []string{"git status", "ls"}},
		catTest{id: idStrictFlag, mode: ModeStrict, match: []string{"grep -f x y", "ls -Z"}, notMatch: []string{"grep -n x y"}},
		catTest{id: idStrictValue, mode: ModeStrict, match: []string{"grep --file=x y"}, notMatch: []string{"grep --max-count=1 x y"}},
		catTest{id: idStrictPath, mode: ModeStrict, match: []string{"cat /etc/passwd", "cat ../x"}, notMatch: []string{"cat x"}},
		catTest{id: idStrictProgram, mode: ModeStrict, match: []string{"./ls", "/tmp/ls"}, notMatch: []string{"/usr/bin/ls"}},
		catTest{id: idStrictWord, mode: ModeStrict, match: []string{`grep "-n x" y`}, notMatch: []string{`grep -n "x y" z`}},
		catTest{id: idStrictDynamic, mode: ModeStrict, match: []string{`grep "$1" y`}, notMatch: []string{`grep x y`}},
		catTest{id: idStrictInput, mode: ModeStrict, match: []string{`xargs grep x`}, notMatch: []string{`grep x y`}},
		catTest{id: idStrictArg, mode: ModeStrict, match: []string{`jq -n 'import "x" as $d; $d'`, "date 0101"}, notMatch: []string{"jq .import x.json", "date +%s"}},
		catTest{id: idStrictEnv, mode: ModeStrict, match: []string{`env LD_PRELOAD=x ls`, "set -a"}, notMatch: []string{`env LANG=C ls`}},
	)
}

// strictProfile returns the built-in strict profile in the order of
// strictDefs.
func strictProfile() []StrictEntry {
	var out []StrictEntry
	for _, d := range strictDefs {
		w := strings.Fields(strings.NewReplacer("?ARGS", "", "!", "").Replace(strings.Split(d, "|")[0]))
		for _, e := range defaultProfile()[w[0]] {
			if strings.Join(e.Words, " ") == strings.Join(w, " ") {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// strictProfileMarkdown is the built-in strict profile as docs/rules.md
// shows it.
func strictProfileMarkdown() string {
	var b strings.Builder
	b.WriteString("| command | flags | flags with a value | flags with a path inside the project | positional arguments |\n|---|---|---|---|---|\n")
	code := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return "`" + strings.Join(l, "` `") + "`"
	}
	for _, e := range strictProfile() {
		args := "paths inside the project"
		switch {
		case e.MaxArgs == 0:
			args = "none"
		case !e.Paths:
			args = "any (path-like ones inside the project)"
		}
		b.WriteString("| `" + strings.Join(e.Words, " ") + "` | " + code(e.Flags) + " | " + code(append(slices.Clone(e.ValueFlags), joinedForms(e.JoinedFlags)...)) + " | " + code(e.PathFlags) + " | " + args + " |\n")
	}
	return b.String()
}

// joinedForms shows flags that take their value only joined: -UN,
// --unified=N.
func joinedForms(fs []string) []string {
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f, "--") {
			out = append(out, f+"=N")
		} else {
			out = append(out, f+"N")
		}
	}
	return out
}

// BenchmarkStrictClassify measures Classify of a listed command with two
// path arguments in strict mode (symlink resolution included) against
// auto mode.
func BenchmarkStrictClassify(b *testing.B) {
	proj := b.TempDir()
	os.WriteFile(filepath.Join(proj, "app.js"), nil, 0o644)
	c := Command{Args: []string{"grep", "-n", "-e", "foo", "app.js", "sub/a.go"}, Dir: proj, Project: proj, Home: "/home/u"}
	for _, m := range []Mode{ModeAuto, ModeStrict} {
		p := NewPolicy(m)
		b.Run(string(m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if v := p.Classify(c); v.Decision != Allow {
					b.Fatal(v.Message())
				}
			}
		})
	}
}

// TestStrictBeyondPaths: what a listed command can do beyond its path
// arguments. jq's import/include read files the path check never sees,
// date with an operand sets the clock, diff of directories follows the
// symlinks in them, value flags name files (-coverprofile=/x, -o/x),
// grep -R, diff -r and md5sum -c follow links or read file lists.
func TestStrictBeyondPaths(t *testing.T) {
	root := t.TempDir()
	proj, outside, home := filepath.Join(root, "proj"), filepath.Join(root, "outside"), filepath.Join(root, "home")
	for _, d := range []string{proj, outside, home, filepath.Join(proj, "s1"), filepath.Join(proj, "s2"), filepath.Join(proj, "sub"), filepath.Join(proj, ".git/hooks"),
		filepath.Join(proj, "evil/objects"), filepath.Join(proj, "evil/refs/x"), filepath.Join(proj, "nested/.git"), filepath.Join(proj, ".git/modules/m/refs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"app.js": "x\n", "s2/f": "other\n", ".git/HEAD": "ref: refs/heads/main\n", "evil/HEAD": "ref: refs/heads/main\n", ".git/modules/m/HEAD": "ref: refs/heads/main\n", "outside/data.json": `[{"k":"SECRET"}]`, "outside/secret.txt": "SECRET\n"} {
		dir := proj
		if strings.HasPrefix(name, "outside/") {
			dir = root
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"linked": outside, "s1/f": filepath.Join(outside, "secret.txt"), "s1/leak.go": filepath.Join(outside, "s.go"), "sub/in.go": "../app.js"} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	const conf = `
[[strict.command]]
name = "sort"
flags = ["-n"]
path_flags = ["-o", "--output"]

[[strict.command]]
name = "jq"
flags = ["-n"]
value_flags = ["-f", "-L", "--from-file"]

[[strict.command]]
name = "go test"
value_flags = ["-run"]
path_flags = ["-coverprofile", "-o"]
`
	configured, builtin := strictPolicies(t, proj, home, conf)
	env := CheckEnv{Dir: proj, Project: proj, Home: home}
	tests := []struct {
		src  string
		conf bool
		rule string // "" means allowed
		msg  string
	}{
		// S5: jq modules
		{src: `jq -n 'import "../outside/data" as $d; $d'`, rule: idStrictArg.String(), msg: "import"},
		{src: `jq -nc 'import "linked/data" as $d; $d'`, rule: idStrictArg.String()},
		{src: `jq -n 'include "x"; 1'`, rule: idStrictArg.String(), msg: "include"},
		{src: `jq -n 'include"x"; 1'`, rule: idStrictArg.String()},
		{src: "jq -n 'import # c\n \"x\" as $d; $d'", rule: idStrictArg.String()},
		{src: `jq -n '"x" | modulemeta'`, rule: idStrictArg.String()},
		{src: `jq -n '"\(import "x" as $d; $d)"'`, rule: idStrictArg.String()},
		{src: `bash -c "jq -n 'import \"../outside/data\" as \$d; \$d'"`, rule: idStrictArg.String()},
		{src: `jq '.import, .include' app.js`},
		{src: `jq -n '{"import": 1, "include": "x"} | .import'`},
		{src: `jq -r '"import \"x\""' app.js`},
		{src: `jq -n -f prog.jq`, conf: true, rule: idStrictArg.String(), msg: "-f"},
		{src: `jq -n -L linked '1'`, conf: true, rule: idStrictArg.String(), msg: "-L"},
		{src: `jq -n --from-file=prog.jq`, conf: true, rule: idStrictArg.String()},
		{src: `jq -n 1`, conf: true},
		// date with an operand sets the clock
		{src: "date 010100002030", rule: idStrictArg.String(), msg: "clock"},
		{src: "date -u -- 0101", rule: idStrictArg.String()},
		{src: "date +%s; date -u -d yesterday +%F; date"},
		// diff of directories follows the symlinks in them
		{src: "diff s1 s2", rule: idStrictArg.String(), msg: "--no-dereference"},
		{src: "diff -u app.js s1", rule: idStrictArg.String()},
		{src: "diff --no-dereference s1 s2; diff -u --no-dereference app.js s2"},
		{src: "diff -u app.js s2/f"},
		// gofmt reads the symlinked .go files of the directories it walks
		{src: "gofmt -l .", rule: idStrictArg.String(), msg: "leak.go"},
		{src: "gofmt -d s1", rule: idStrictArg.String()},
		{src: "gofmt -l sub s2; gofmt -l app.js"},
		// S1, S2, S6: left out of the profile
		{src: "grep -R SECRET .", rule: idStrictFlag.String(), msg: "-R"},
		{src: "grep -rR SECRET .", rule: idStrictFlag.String()},
		{src: "grep --dereference-recursive SECRET .", rule: idStrictFlag.String()},
		{src: "diff -r s1 s2", rule: idStrictFlag.String()},
		{src: "diff -rN s1 s2", rule: idStrictFlag.String()},
		{src: "diff --recursive --no-dereference s1 s2", rule: idStrictFlag.String()},
		{src: "md5sum -c l", rule: idStrictFlag.String()},
		{src: "sha256sum --check l", rule: idStrictFlag.String()},
		{src: "sha1sum -bc l", rule: idStrictFlag.String()},
		// S4: value flags that name files
		{src: "go test -coverprofile=/tmp/x/cover.out ./...", rule: idStrictPath.String(), msg: "-coverprofile"},
		{src: "go test -coverprofile /tmp/x ./...", rule: idStrictPath.String()},
		{src: "go test -coverprofile=linked/c.out ./...", rule: idStrictPath.String()},
		{src: "go test -coverprofile=cover.out ./... && go test -coverprofile sub/c.out ./..."},
		{src: "go test -o /tmp/x.test ./...", conf: true, rule: idStrictPath.String()},
		{src: "go test -o=../x.test ./...", conf: true, rule: idStrictPath.String()},
		{src: "go test -o x.test -run X ./...", conf: true},
		{src: "realpath --relative-to=/etc app.js", rule: idStrictPath.String()},
		{src: "realpath --relative-to ../outside app.js", rule: idStrictPath.String()},
		{src: "realpath --relative-to=sub app.js"},
		{src: "sort -o /tmp/x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort -o/tmp/x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort -no../x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort -no linked/x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort --output=/tmp/x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort --output /tmp/x app.js", conf: true, rule: idStrictPath.String()},
		{src: "sort -no out app.js; sort --output=sub/out -n app.js; sort -oout app.js", conf: true},
		{src: "go test -coverprofile=.git/config ./...", rule: idWriteProtected.String()},
		{src: "go test -o .git/hooks/pre-commit ./...", conf: true, rule: idWriteProtected.String()},
		{src: "sort -o.git/config app.js", conf: true, rule: idWriteProtected.String()},
		{src: "cd .git/hooks && go build ../../cmd/pre-commit", rule: idWriteProtected.String()},
		{src: "cd .git && go build ../cmd/config", rule: idWriteProtected.String()},
		{src: "cd sub && go build ../cmd/x", rule: ""},
		{src: "git --git-dir=/tmp/x status", rule: idStrictUnlisted.String()},
		{src: "git --work-tree /tmp status", rule: idStrictUnlisted.String()},
		// K1: git takes -U, --unified and log/show --format's value only
		// joined (-U5, --unified=5, --format=%h): git diff -U NEXT reads
		// NEXT as an argument (a path outside: git diff --no-index; or
		// --output=FILE, which git writes)
		{src: "git diff -U ../outside/secret.txt app.js", rule: idStrictValue.String(), msg: "-U5"},
		{src: "git diff -U --output=../outside/pwn", rule: idStrictValue.String()},
		{src: "git diff --unified --output=../outside/pwn HEAD", rule: idStrictValue.String()},
		{src: "git log -p -U --output=/tmp/pwn", rule: idStrictValue.String()},
		{src: "git show -U ../outside/secret.txt", rule: idStrictValue.String()},
		{src: "git log --format --output=../outside/pwn", rule: idStrictValue.String(), msg: "--format="},
		{src: "git show --format --output=../outside/pwn", rule: idStrictValue.String()},
		{src: "git diff -U5 app.js; git diff --unified=3 app.js; git log -U1 -p --format=%h -n 3; git show --format=%s HEAD"},
		// K3: a git directory inside the project other than its .git (an
		// embedded bare repository shipped by the repository, whose config
		// and info/attributes the model can write): its diff textconv,
		// core.fsmonitor ... run programs
		{src: "cd evil && git show HEAD", rule: idStrictArg.String(), msg: "evil"},
		{src: "git -C evil log -p", rule: idStrictArg.String()},
		{src: "git -C evil/refs/x status", rule: idStrictArg.String()},
		{src: "cd nested && git diff", rule: idStrictArg.String(), msg: "nested"},
		{src: "cd .git/modules/m && git log -p", rule: idStrictArg.String()},
		{src: "cd .git && git log -p; cd .git/hooks && git status; git -C sub status; cd sub && git diff"},
		// K4: a submodule's git directory has a config of its own, which
		// git status in the project reads (core.fsmonitor runs)
		{src: `printf '[core]\n\tfsmonitor = x\n' >> .git/modules/m/config`, rule: idWriteProtected.String()},
		{src: "echo x > .git/modules/m/hooks/post-checkout", rule: idWriteProtected.String()},
		{src: "echo x > .git/worktrees/w/config.worktree", rule: idWriteProtected.String()},
		{src: "echo x > .git/config.worktree", rule: idWriteProtected.String()},
		{src: "echo x > sub/config"},
		// K2: redirections in the shared temp dirs: outside the project
		// like cat /tmp/x (other users' and sessions' files)
		{src: "cat < /tmp/guardsh-k2/x", rule: idReadOutside.String()},
		{src: "exec 3< /tmp/guardsh-k2/x", rule: idReadOutside.String()},
		{src: "x=$(< /var/tmp/x)", rule: idReadOutside.String()},
		{src: "echo x > /tmp/guardsh-k2/x", rule: idWriteOutside.String()},
		{src: "echo x >> /dev/shm/x", rule: idWriteOutside.String()},
		{src: "while read l; do echo l; done < <(echo hi); echo x 2>/dev/null >/dev/null"},
		// bash's source takes -- before the file
		{src: "source -- ../outside/secret.txt", rule: idStrictPath.String()},
		{src: ". -- /etc/hostname", rule: idStrictPath.String()},
		// K8: .git/commondir (or objects/info/alternates) written by the
		// script sends git to another repository: another project's
		// history, or a config the script wrote (core.fsmonitor). Strict
		// mode writes nothing inside a .git directory: git does.
		{src: "echo /home/u/other/.git > .git/commondir", rule: idWriteProtected.String(), msg: ".git"},
		{src: "echo /home/u/other/.git/objects >> .git/objects/info/alternates", rule: idWriteProtected.String()},
		{src: "uniq app.js .git/commondir", rule: idWriteProtected.String()},
		{src: "go test -coverprofile=.git/commondir ./...", rule: idWriteProtected.String()},
		{src: "cd .git && echo x > commondir", rule: idWriteProtected.String()},
		{src: "cat .git/HEAD; echo x > s2/y; uniq app.js s2/z"},
		// env named by its path: the same checks, the right reason
		{src: "/usr/bin/env sh x.sh"},
		{src: "/usr/bin/env", rule: idStrictUnlisted.String(), msg: "prints the whole environment"},
		{src: "/usr/bin/env LD_PRELOAD=./x.so ls", rule: idStrictEnv.String()},
		{src: "/usr/bin/env -S 'grep -f x' app.js", rule: idStrictFlag.String()},
	}
	for _, tt := range tests {
		p := builtin
		if tt.conf {
			p = configured
		}
		sv, _ := p.CheckScript(tt.src, env)
		wantStrictVerdict(t, sv, tt.src, tt.conf, tt.rule, tt.msg)
	}
}

// TestStrictCheckExport: the checker notes, as the runner does, that an
// exported variable strict mode does not let scripts set is not what the
// programs get.
func TestStrictCheckExport(t *testing.T) {
	proj, home := strictTestProject(t)
	env := CheckEnv{Dir: proj, Project: proj, Home: home}
	for _, src := range []string{"export FOO=1; ls", "declare -x FOO=1; ls", "export LANG=C FOO=1; ls", "declare -rx FOO=1; ls", "FOO=1; export FOO; ls"} {
		sv, err := NewPolicy(ModeStrict).CheckScript(src, env)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, cv := range sv.Commands {
			if cv.Rule == idStrictEnv.String() && strings.Contains(cv.Reason, "FOO") {
				found = true
				if strings.Contains(cv.Reason, "LANG") {
					t.Errorf("%q: LANG flagged: %s", src, cv.Reason)
				}
			}
		}
		if !found || sv.Decision != Allow {
			t.Errorf("%q: %s %+v, want allow with a [%s] note on FOO", src, sv.Decision, sv.Commands, idStrictEnv.String())
		}
	}
	for _, src := range []string{"export LANG=C; ls", "FOO=1; ls", "declare FOO=1; ls", "local FOO=1", "export HOME; ls", "FOO=1; export -n FOO; ls"} {
		sv, _ := NewPolicy(ModeStrict).CheckScript(src, env)
		for _, cv := range sv.Commands {
			if cv.Rule == idStrictEnv.String() {
				t.Errorf("%q: flagged %s", src, cv.Reason)
			}
		}
	}
	sv, _ := NewPolicy(ModeAuto).CheckScript("export FOO=1; ls", env)
	for _, cv := range sv.Commands {
		if cv.Rule == idStrictEnv.String() {
			t.Errorf("auto mode: flagged %s", cv.Reason)
		}
	}
}
