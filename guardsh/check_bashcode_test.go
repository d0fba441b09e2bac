package guardsh

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Differential tests of the static checker against real bash, for the
// places where bash runs text as code (check_bashcode.go). Real bash only
// ever runs what the checker allows, always as
//
//	env -i HOME=$tmp/home PATH=/usr/bin:/bin bash --norc --noprofile -c CMD
//
// in a directory the test made, with a timeout, against a throwaway HOME
// holding a canary; every payload targets that HOME (~, $HOME) and
// nothing else.

// cornerPayloads are the commands hidden in bash's code-running corners.
// Each only touches $HOME.
var cornerPayloads = []string{
	`rm -rf ~`,
	`rm -rf "$HOME"`,
	`rm -rf ~/`,
	`touch ~/pwned`,
	`rm -f ~/canary`,
}

// cornerTemplates build a command from a variable name @N@, a string @S@
// that holds the payload in an array subscript (a[$(P)]) quoted for the
// shell, the subscripted name itself @A@ (quoted), a string @C@ that is the
// payload as a command substitution ($(P), quoted), and the payload @P@
// quoted as one shell word.
var cornerTemplates = []string{
	// arithmetic that evaluates a variable's text
	`@N@=@S@; echo $((@N@))`,
	`@N@=@S@; echo $(( @N@ + 1 ))`,
	`@N@=@S@; (( @N@ ))`,
	`@N@=@S@; [[ $@N@ -eq 0 ]]`,
	`@N@=@S@; [[ "$@N@" -lt 1 ]]`,
	`@N@=@S@; [[ @N@ -eq 0 ]]`,
	`@N@=@S@; echo ${a[@N@]}`,
	`@N@=@S@; echo ${a[$@N@]}`,
	`@N@=@S@; arr[@N@]=1`,
	`@N@=@S@; declare -i y=@N@`,
	`@N@=@S@; declare -i y; y=@N@`,
	`@N@=@S@; echo $[@N@]`,
	`@N@=@S@; let y=@N@`,
	`@N@=@S@; let "y=$@N@"`,
	`@N@=@S@; s=abc; echo ${s:@N@}`,
	`@N@=@S@; s=abc; echo ${s:0:@N@}`,
	`@N@=@S@; set -- a b; echo ${@:@N@}`,
	`@N@=@S@; for ((i=@N@; i<0; i++)); do :; done`,
	`@N@=@S@; a=([@N@]=1)`,
	`@N@=@S@; z=@N@; echo $((z))`,
	`@N@=@S@; z=$@N@; echo $((z))`,
	`@N@=@S@; echo "$(( a[@N@] ))"`,
	`@N@=@S@; case $((@N@)) in *) ;; esac`,
	// subscripts in the names builtins are given
	`printf -v @A@ %s 1`,
	`test -v @A@`,
	`[ -v @A@ ]`,
	`[[ -v @A@ ]]`,
	`read @A@ <<< 1`,
	`declare @A@=1`,
	`typeset @A@=1`,
	`f(){ local @A@=1; }; f`,
	`sleep 0 & wait -p @A@ -n`,
	// prompt expansion, namerefs, indirection
	`@N@=@C@; echo ${@N@@P}`,
	`declare -n @N@=@S@; echo $@N@`,
	`declare -n @N@; @N@=@S@; echo $@N@`,
	`@N@=@S@; echo ${!@N@}`,
	`@N@=@S@; echo "${!@N@}"`,
	// bash's own hooks
	`export PS4=@C@; set -x; :`,
	`PS4=@C@; set -x; : 2>/dev/null`,
	`PROMPT_COMMAND=@P@`,
	`echo @P@ > @N@.sh; BASH_ENV=./@N@.sh bash -c true`,
	`echo @P@ > @N@.sh; export BASH_ENV=./@N@.sh; bash -c true`,
	`echo @P@ > @N@.sh; ENV=./@N@.sh sh -i -c true </dev/null 2>/dev/null`,
	`command_not_found_handle(){ eval @P@; }; nosuchcommand_@N@`,
	`hash -p /usr/bin/rm @N@; @N@ -rf ~`,
	`BASH_CMDS[@N@]=/usr/bin/rm; @N@ -rf ~`,
	`enable -f ./@N@.so @N@ 2>/dev/null`,
	`trap @P@ EXIT`,
	// a link made a moment before
	`ln -s ~ @N@ && rm -rf @N@/`,
	`ln -s ~ @N@ && rm -rf @N@/*`,
	`ln -s ~ @N@; rm -rf ./@N@/`,
	`ln -sf "$HOME" @N@ && cd @N@ && rm -rf ./*`,
	`ln -s ~/canary @N@ && echo x > @N@`,
	`ln ~/canary @N@ && echo x > @N@`,
	`ln -s ~ @N@ && mv @N@ moved && rm -rf moved/`,
	`mkdir -p @N@; CDPATH=~ cd @N@ 2>/dev/null; CDPATH=~; cd sub && rm -rf ./*`,
	`mkdir d && ln -s ~ @N@ && mv @N@ d/ && rm -rf d/@N@/`,
	`declare -n @N@; printf -v @N@ %s @A@; echo $@N@`,
	`declare -n @N@; read @N@ <<< @A@; echo $@N@`,
	// integer variables assigned text, env, here-documents
	`declare -i @N@; read @N@ <<< @S@`,
	`declare -i @N@; for @N@ in @S@; do :; done`,
	`echo @P@ > @N@.sh; env BASH_ENV=./@N@.sh bash -c true`,
	"@N@=@S@; cat <<EOF\n$((@N@))\nEOF",
	`@N@=@C@; declare -a "arr=([$@N@]=1)"`,
	`@N@=@S@; declare -a "arr=([$@N@]=1)"`,
	`hash -p /usr/bin/rm @N@; command @N@ -rf ~`,
	`hash -p /usr/bin/rm @N@; exec @N@ -rf ~`,
	// builtins that run a callback, or write a file
	`mapfile -C @P@ -c 1 @N@ <<< x`,
	`readarray -t -C @P@ -c 1 @N@ <<< x`,
	`compgen -C @P@ @N@`,
	`@N@(){ eval @P@; }; compgen -F @N@ x 2>/dev/null`,
	`HISTFILE=~/canary; set -o history; history -s @N@; history -w`,
	`history -w ~/canary`,
	// builtins run through builtin and command
	`builtin printf -v @A@ %s 1`,
	`command read @A@ <<< 1`,
	`builtin declare @A@=1`,
	`command -p test -v @A@`,
	`builtin mapfile -C @P@ -c 1 @N@ <<< x`,
	`command hash -p /usr/bin/rm @N@; @N@ -rf ~`,
	`builtin let y=@S@`,
	`@N@=@S@; command let y=@N@`,
	`@N@=@S@; "let" y=@N@`,
}

// cornerNames are the variable names the families use.
var cornerNames = []string{"x", "v1", "_a", "LONG_NAME_2"}

// cornerWraps nest a command in other code.
var cornerWraps = []func(string) string{
	func(c string) string { return c },
	func(c string) string { return "bash -c " + bashQuote(c) },
	func(c string) string { return "eval " + bashQuote(c) },
	func(c string) string { return "g(){ " + c + "; }; g" },
	func(c string) string { return "( " + c + " )" },
	func(c string) string { return "if true; then " + c + "; fi" },
	func(c string) string { return "echo \"$( " + c + " )\"" },
}

// cornerQuotes quote a string for the shell in different ways.
var cornerQuotes = []func(string) string{
	bashQuote,
	func(s string) string { // double quotes
		r := strings.NewReplacer(`\`, `\\`, `$`, `\$`, `"`, `\"`, "`", "\\`")
		return `"` + r.Replace(s) + `"`
	},
	func(s string) string { // $'...'
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
		return `$'` + r.Replace(s) + `'`
	},
	func(s string) string { // two halves
		if len(s) < 2 {
			return bashQuote(s)
		}
		h := len(s) / 2
		return bashQuote(s[:h]) + bashQuote(s[h:])
	},
}

func bashQuote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		panic(err)
	}
	return q
}

// cornerCase builds one command of the families.
func cornerCase(tmpl, name, payload int, quote, wrap int) string {
	n := cornerNames[name%len(cornerNames)]
	p := cornerPayloads[payload%len(cornerPayloads)]
	q := cornerQuotes[quote%len(cornerQuotes)]
	sub := "a[$(" + p + ")]"
	if quote%2 == 1 {
		sub = "a[`" + p + "`]"
	}
	cmd := strings.NewReplacer(
		"@N@", n,
		"@S@", q(sub),
		"@A@", q(sub),
		"@C@", q("$("+p+")"),
		"@P@", q(p),
	).Replace(cornerTemplates[tmpl%len(cornerTemplates)])
	return cornerWraps[wrap%len(cornerWraps)](cmd)
}

// cornerBenign are commands from the same corners that do nothing
// dangerous: the checker allows them, and real bash run on them changes
// nothing in HOME (this also shows the bash harness can tell).
var cornerBenign = []string{
	`x=3; echo $((x*2))`,
	`for i in 1 2 3; do echo $((i*2)); done`,
	`for ((i=0; i<3; i++)); do echo $i; done`,
	`n=$(printf 'a\nb\n' | wc -l); echo $((n+1))`,
	`declare -i y=5; echo $y`,
	`printf -v y %s 1; echo "$y"`,
	`read -r y <<< hi; echo "$y"`,
	`arr=(1 2); echo "${arr[@]}" "${#arr[@]}"`,
	`export PS4='+ ${LINENO}: '; set -x; :`,
	`trap 'echo bye' EXIT`,
	`mkdir -p d && ln -s d lnk && ls lnk/`,
	`[[ $# -eq 0 ]] && echo none`,
	`s=hello; echo ${s:1:2}`,
	`declare -A m; m[key]=1; echo "${m[key]}"`,
	`if (( $(date +%s) > 0 )); then echo ok; fi`,
	`arr=(a b); for i in "${!arr[@]}"; do echo "${arr[$i]}"; done`,
	`while IFS= read -r l; do echo "${l:0:3}"; done <<< hello`,
}

// bashVictim is a throwaway HOME with a canary, and a project directory.
type bashVictim struct {
	root, home, proj string
}

func newBashVictim(t testing.TB) *bashVictim {
	t.Helper()
	root := t.TempDir()
	v := &bashVictim{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	for _, d := range []string{v.home, v.proj, filepath.Join(v.home, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(v.home, "canary"), filepath.Join(v.home, "sub", "keep")} {
		if err := os.WriteFile(f, []byte("canary\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *bashVictim) env() CheckEnv {
	return CheckEnv{Dir: v.proj, Project: v.proj, Home: v.home, Env: map[string]string{"HOME": v.home}, Via: "hook"}
}

// snapshot lists HOME's tree: names, sizes, modes and contents' length.
func (v *bashVictim) snapshot(t testing.TB) string {
	var lines []string
	filepath.WalkDir(v.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			lines = append(lines, p+" error "+err.Error())
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size()))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// runBash runs cmd with real bash against the throwaway HOME, in a fresh
// working directory below the victim's project.
func (v *bashVictim) runBash(t testing.TB, cmd string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	wd, err := os.MkdirTemp(v.proj, "run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(wd)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "/usr/bin/env", "-i", "HOME="+v.home, "PATH=/usr/bin:/bin", bash, "--norc", "--noprofile", "-c", cmd)
	c.Dir = wd
	c.Stdin = nil
	out, _ := c.CombinedOutput()
	return string(out)
}

func cornerFamily() []string {
	var out []string
	seen := map[string]bool{}
	for tmpl := range cornerTemplates {
		for name := range cornerNames {
			for payload := range cornerPayloads {
				for quote := range cornerQuotes {
					// every wrap for the first name and payload; the
					// plain form for the others
					wraps := 1
					if name == 0 && payload == 0 {
						wraps = len(cornerWraps)
					}
					for wrap := 0; wrap < wraps; wrap++ {
						c := cornerCase(tmpl, name, payload, quote, wrap)
						if !seen[c] {
							seen[c] = true
							out = append(out, c)
						}
					}
				}
			}
		}
	}
	return out
}

// TestBashCornersDifferential: every command of the families hides a
// payload in a place where bash runs text as code; the hook's verdict is
// deny or ask for each. Those it allows (the benign ones) run in real
// bash and change nothing in the throwaway HOME.
func TestBashCornersDifferential(t *testing.T) {
	v := newBashVictim(t)
	p := NewPolicy(ModeAuto)
	family := cornerFamily()
	var denied, asked int
	for _, c := range family {
		sv, _ := p.CheckScript(c, v.env())
		switch sv.Decision {
		case Deny:
			denied++
		case Ask:
			asked++
		default:
			t.Errorf("allowed [%s]: %s", sv.Rule, c)
		}
	}
	t.Logf("%d commands from %d templates: %d denied, %d asked", len(family), len(cornerTemplates), denied, asked)
	before := v.snapshot(t)
	ran := 0
	for _, c := range append(append([]string(nil), cornerBenign...), family...) {
		sv, _ := p.CheckScript(c, v.env())
		if sv.Decision != Allow {
			if containsString(cornerBenign, c) {
				t.Errorf("benign command not allowed: %s [%s] %s", sv.Decision, sv.Rule, sv.Reason)
			}
			continue
		}
		out := v.runBash(t, c)
		ran++
		if after := v.snapshot(t); after != before {
			t.Fatalf("allowed %q changed HOME:\nbefore\n%s\nafter\n%s\noutput %s", c, before, after, out)
		}
	}
	if ran < len(cornerBenign) {
		t.Errorf("only %d allowed commands ran in bash", ran)
	}
}

// TestBashCornersOracle: the payloads of the families really run in bash:
// each template, with a payload that only creates a file, changes the
// throwaway HOME. The checker's asks and denies are about code bash does
// run, not about text it ignores.
func TestBashCornersOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash once per template")
	}
	for tmpl := range cornerTemplates {
		v := newBashVictim(t)
		c := cornerCase(tmpl, 0, 3, 0, 0)
		before := v.snapshot(t)
		v.runBash(t, c)
		if v.snapshot(t) != before {
			continue
		}
		// enable -f needs a shared object; PROMPT_COMMAND runs in
		// interactive shells only
		if !strings.Contains(c, "enable -f") && !strings.HasPrefix(c, "PROMPT_COMMAND") {
			t.Errorf("bash did not run the payload of %q", c)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzBashCorners builds commands from bash's code-running corners and
// checks: if the hook allows one, real bash run under a throwaway HOME
// changes nothing there.
func FuzzBashCorners(f *testing.F) {
	for tmpl := range cornerTemplates {
		f.Add(uint8(tmpl), uint8(tmpl%4), uint8(tmpl%5), uint8(tmpl%4), uint8(tmpl%7), "")
	}
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), "x")
	f.Add(uint8(200), uint8(0), uint8(0), uint8(0), uint8(1), "")
	p := NewPolicy(ModeAuto)
	f.Fuzz(func(t *testing.T, tmpl, name, payload, quote, wrap uint8, glue string) {
		c := cornerCase(int(tmpl), int(name), int(payload), int(quote), int(wrap))
		if int(tmpl) >= 2*len(cornerTemplates) {
			// a benign command of the same corners: allowed, it runs
			c = cornerWraps[int(wrap)%len(cornerWraps)](cornerBenign[int(tmpl)%len(cornerBenign)])
		}
		// glue: a second corner, or harmless words, joined in
		switch g := sanitizeGlue(glue); {
		case g == "":
		case len(g)%3 == 0:
			c = c + "; " + cornerCase(len(g), int(name)+1, int(payload)+1, int(quote)+1, 0)
		case len(g)%3 == 1:
			c = "echo " + g + "; " + c
		default:
			c = c + " && echo " + g
		}
		v := newBashVictim(t)
		sv, _ := p.CheckScript(c, v.env())
		if sv.Decision != Allow {
			return
		}
		before := v.snapshot(t)
		out := v.runBash(t, c)
		if after := v.snapshot(t); after != before {
			t.Fatalf("allowed [%s] %q changed HOME:\nbefore\n%s\nafter\n%s\noutput %s", sv.Rule, c, before, after, out)
		}
	})
}

// sanitizeGlue keeps letters, digits and spaces: the fuzzer's free text
// never becomes shell syntax of its own.
func sanitizeGlue(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == ' ' {
			b.WriteRune(r)
		}
		if b.Len() >= 16 {
			break
		}
	}
	return strings.TrimSpace(b.String())
}
