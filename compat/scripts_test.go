package compat

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Real scripts, each run under bash and under guardsh in a fresh directory
// and compared (stdout, stderr, status). Their tools are installed by
// .ci/run; outside CI a test whose tool is missing is skipped, saying so.
// Nothing here uses the network.

// realScript is one real-world script and what it needs.
type realScript struct {
	name string
	// needs returns why the test cannot run here, or "".
	needs func() string
	// files are written below the directory before each run.
	files map[string]string
	// src runs in the directory, under each shell.
	src string
	// norm hides what differs between two runs of any shell (commit
	// hashes, times).
	norm []*regexp.Regexp
}

func needFile(path string) func() string {
	return func() string {
		if _, err := os.Stat(path); err != nil {
			return path + " is not installed (.ci/run installs it)"
		}
		return ""
	}
}

func needCmds(names ...string) func() string {
	return func() string {
		for _, n := range names {
			if _, err := exec.LookPath(n); err != nil {
				return n + " is not installed (.ci/run installs it)"
			}
		}
		return ""
	}
}

// batsDir is where .ci/run installs the npm package bats (pinned).
func batsBin() string {
	if p := os.Getenv("GUARDSH_TEST_BATS"); p != "" {
		return p
	}
	return "/opt/guardsh-ci/npm/node_modules/bats/bin/bats"
}

var realScripts = []realScript{
	{
		// a gradle/maven-style wrapper: resolve the script's own
		// directory through symlinks, cd -P/-L/--, eval set --, exec
		name:  "gradlew-style-wrapper",
		needs: func() string { return "" },
		files: map[string]string{"proj/gradlew": gradlewScript},
		src: `chmod +x proj/gradlew; ln -s proj/gradlew gw
mkdir -p 'dir with space' && cp proj/gradlew 'dir with space/mvnw'
./proj/gradlew build --info; echo "st=$?"
./gw -q 'two words'; echo "st=$?"
sh 'dir with space/mvnw' test; echo "st=$?"
(cd proj && ./gradlew); echo "st=$?"`,
	},
	{
		name:  "git-sh-prompt",
		needs: func() string { return needFile("/usr/lib/git-core/git-sh-prompt")() + needCmds("git")() },
		src: `git init -q repo && cd repo
git config user.email a@b.c; git config user.name t; git config init.defaultBranch main
echo a > f; git add f; git commit -qm init
echo b >> f; echo c > g; git add g; echo d > untracked
. /usr/lib/git-core/git-sh-prompt
GIT_PS1_SHOWDIRTYSTATE=1 GIT_PS1_SHOWUNTRACKEDFILES=1 GIT_PS1_SHOWSTASHSTATE=1
__git_ps1 " (%s)"; echo
git stash -q; __git_ps1 "[%s]"; echo
git checkout -q -b feature; __git_ps1; echo
git checkout -q --detach HEAD; __git_ps1; echo
GIT_PS1_SHOWDIRTYSTATE= ; __git_ps1 "<%s>"; echo`,
		norm: []*regexp.Regexp{regexp.MustCompile(`\([0-9a-f]{7,}\.\.\.\)`)},
	},
	{
		name:  "python-venv",
		needs: needCmds("python3"),
		src: `python3 -m venv --without-pip venv || exit
PS1='$ '
. venv/bin/activate
echo "VIRTUAL_ENV=${VIRTUAL_ENV##*/} prompt=[$PS1] py=$(command -v python | sed "s#$PWD#D#")"
type -t deactivate
deactivate
echo "after: ${VIRTUAL_ENV-unset} prompt=[$PS1] py=$(command -v python || echo none)"
type -t deactivate || echo no-deactivate`,
	},
	{
		// configure + make of a small autoconf project; configure runs in
		// a subdirectory, as a project's build does (its rm -f of many
		// conftest files in the project root itself is refused by
		// guardsh's rm.project-root rule, see docs/compatibility.md)
		name:  "autoconf-configure-make",
		needs: needCmds("autoconf", "make", "cc"),
		files: map[string]string{
			"b/configure.ac": autoconfAC,
			"b/hello.c":      autoconfC,
			"b/Makefile.in":  "CC = @CC@\nCFLAGS = @CFLAGS@\nDEFS = @DEFS@\nhello: hello.c\n\t$(CC) $(CFLAGS) $(DEFS) -o hello hello.c\n",
		},
		src: `cd b && autoconf 2>/dev/null && ./configure; echo "st=$?"
grep -E '^(ac_cv_|#define)' config.log | sort
make -s && ./hello`,
	},
	{
		name:  "bash-completion-git",
		needs: func() string { return needFile("/usr/share/bash-completion/bash_completion")() + needCmds("git")() },
		src: `. /usr/share/bash-completion/bash_completion
complete -p git
__load_completion git || _comp_load git
complete -p git
type -t __git_main __git_wrap__git_main`,
	},
	{
		// bats-core (npm bats, pinned in .ci/run) run by the shell under
		// test: its libexec scripts, export -f, traps, fds 3+. The npm
		// package does not ship bats-core's own test suite; this file
		// exercises what bats itself does.
		name:  "bats",
		needs: func() string { return needFile(batsBin())() },
		files: map[string]string{"t.bats": batsFile},
		src:   `"$BASH" ` + batsBin() + ` --tap t.bats; echo "st=$?"`,
	},
}

// TestRealScripts runs each real script under bash and guardsh.
func TestRealScripts(t *testing.T) {
	sh := needShells(t)
	for _, rs := range realScripts {
		t.Run(rs.name, func(t *testing.T) {
			if why := rs.needs(); why != "" {
				t.Skip(why)
			}
			base := t.TempDir()
			run := func(shell string, args []string, sub string) outcome {
				dir := filepath.Join(base, sub)
				os.RemoveAll(dir)
				src := writeFiles(t, dir, rs.files) + rs.src
				o := runIn(t, shell, args, src, dir)
				for _, re := range rs.norm {
					o.stdout = re.ReplaceAllString(o.stdout, "<norm>")
					o.stderr = re.ReplaceAllString(o.stderr, "<norm>")
				}
				return o
			}
			want := run(sh.bash, bashArgs, "b")
			got := run(sh.guardsh, guardshArgs, "g")
			if want != got {
				t.Errorf("%s differs from bash:\n%s", rs.name, diffReport(rs.src+"\n", want, got))
			}
			t.Logf("%s: bash and guardsh identical:\n%s", rs.name, want.stdout)
		})
	}
}

// writeFiles creates files below dir; it returns the shell code that
// enters dir's run (nothing: runIn starts there).
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	for name, body := range files {
		p := filepath.Join(dir, "w", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ""
}

// runIn is runCase with the directory kept (files written first).
func runIn(t *testing.T, shell string, args []string, src, dir string) outcome {
	return runCaseKeep(t, shell, args, src, dir)
}

const gradlewScript = `#!/bin/sh
# a wrapper in the style of gradlew and mvnw
app_path=$0
while
    APP_HOME=${app_path%"${app_path##*/}"}
    [ -h "$app_path" ]
do
    ls=$( ls -ld "$app_path" )
    link=${ls#*' -> '}
    case $link in
      /*)   app_path=$link ;;
      *)    app_path=$APP_HOME$link ;;
    esac
done
APP_HOME=$( cd -P "${APP_HOME:-./}" > /dev/null && printf '%s\n' "$PWD" ) || exit
SCRIPT_DIR=$(cd -- "$(dirname -- "$0")" && pwd)
cd -L "$SCRIPT_DIR" || exit
DEFAULT_JVM_OPTS='"-Xmx64m" "-Xms64m"'
set -- -classpath "$APP_HOME/gradle/wrapper/gradle-wrapper.jar" org.gradle.Main "$@"
eval "set -- $( printf '%s\n' "$DEFAULT_JVM_OPTS $JAVA_OPTS" | xargs -n1 | sed ' s~[^-[:alnum:]+,./:=@_]~\\&~g; ' | tr '\n' ' ' )" '"$@"'
exec printf '<%s>\n' "${APP_HOME##*/}" "${SCRIPT_DIR##*/}" "$@"
`

const autoconfAC = `AC_INIT([tiny], [1.0])
AC_CONFIG_SRCDIR([hello.c])
AC_PROG_CC
AC_CHECK_HEADERS([stdlib.h unistd.h nosuchheader.h])
AC_CHECK_FUNCS([strdup nosuchfunc_xyz])
AC_CHECK_SIZEOF([long])
AC_C_CONST
AC_C_INLINE
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
`

const autoconfC = `#include <stdio.h>
int main(void) { printf("hello %s %d\n", PACKAGE_VERSION, (int)SIZEOF_LONG); return 0; }
`

const batsFile = `setup() { TMPF=$BATS_TEST_TMPDIR/f; }
helper() { echo "helper $1"; }
@test "addition" { result="$((2+2))"; [ "$result" -eq 4 ]; }
@test "run and status" { run false; [ "$status" -eq 1 ]; }
@test "run output" { run helper x; [ "$output" = "helper x" ]; }
@test "lines" { run printf 'a\nb\n'; [ "${lines[1]}" = b ]; [ "${#lines[@]}" -eq 2 ]; }
@test "skip me" { skip "not now"; false; }
@test "tmpdir" { echo hi > "$TMPF"; [ -f "$TMPF" ]; }
@test "expected failure" { [ 1 -eq 2 ]; }
@test "exported function" { export -f helper; run bash -c 'helper y'; [ "$output" = "helper y" ]; }
@test "numbering" { [ -n "$BATS_TEST_NAME" ]; [ "$BATS_TEST_NUMBER" -eq 9 ]; }
@test "run with status check" { run -1 false; [ "$output" = "" ]; }
@test "teardown-safe redirection" { exec 3>&-; echo ok >&2; }
`

// bats04Dir is where .ci/run installs the npm package bats@0.4.0: the
// original bats, the last npm release that ships its own test suite
// (bats-core's releases on npm do not).
func bats04Dir() string {
	if p := os.Getenv("GUARDSH_TEST_BATS04"); p != "" {
		return p
	}
	return "/opt/guardsh-ci/npm-bats04/node_modules/bats"
}

// batsOwnSuiteFloor is how many of bats 0.4.0's 44 own tests pass under
// guardsh at least (bash: all 44; guardsh 29 or 30, "extended syntax in
// suite" passed in one run of two). The others fail on its failure
// reports, which bats builds from a DEBUG trap and BASH_LINENO (mvdan
// runs no DEBUG trap; docs/compatibility.md).
const batsOwnSuiteFloor = 29

// TestBatsOwnSuite runs bats 0.4.0's own test suite with each shell as
// its interpreter: bash must pass all of it, guardsh at least
// batsOwnSuiteFloor of it, and the figure is logged.
func TestBatsOwnSuite(t *testing.T) {
	sh := needShells(t)
	if why := needFile(bats04Dir() + "/test/bats.bats")(); why != "" {
		t.Skip(why)
	}
	src := `cp -R ` + bats04Dir() + ` bats && cd bats && mkdir -p test/tmp
PATH=$PWD/libexec:$PATH "$BASH" libexec/bats --tap test; echo "st=$?"`
	base := t.TempDir()
	count := func(o outcome) (pass int, failed []string) {
		for _, l := range strings.Split(o.stdout, "\n") {
			switch {
			case strings.HasPrefix(l, "ok "):
				pass++
			case strings.HasPrefix(l, "not ok "):
				failed = append(failed, strings.TrimPrefix(l, "not ok "))
			}
		}
		return pass, failed
	}
	bp, bf := count(runIn(t, sh.bash, bashArgs, src, filepath.Join(base, "b")))
	gp, gf := count(runIn(t, sh.guardsh, guardshArgs, src, filepath.Join(base, "g")))
	t.Logf("bats 0.4.0's own suite: bash passes %d of %d, guardsh %d of %d; guardsh fails: %s",
		bp, bp+len(bf), gp, gp+len(gf), strings.Join(gf, "; "))
	if bp != 44 || len(bf) != 0 {
		t.Errorf("bash passes %d of its 44 tests (fails %q): the suite or its set-up changed", bp, bf)
	}
	if gp < batsOwnSuiteFloor || gp+len(gf) != 44 {
		t.Errorf("guardsh passes %d of %d tests, want at least %d of 44", gp, gp+len(gf), batsOwnSuiteFloor)
	}
}
