package interp

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzRunner runs generated shell code in the interpreter (bypass mode,
// a throwaway directory, bounded in time and output) and fails on a Go
// panic or a fatal error reaching the process: every input must end as a
// shell would end it. The code may name only builtins that touch nothing
// outside the interpreter (no external program, kill, eval, source, trap
// strings, exec), every file access the interpreter makes goes through a
// file system that refuses paths outside the throwaway directory, and
// inputs that could exhaust memory or the stack (loops, functions, large
// numbers) are skipped. Seeds run in every go test; longer runs:
//
//	go test ./interp -run '^$' -fuzz FuzzRunner -fuzztime 5m
//
// Every panic found becomes a row of TestNoPanic.
func FuzzRunner(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !fuzzSafe(src) {
			t.Skip()
		}
		dir := t.TempDir()
		out := &capWriter{max: 1 << 16}
		r, err := New(Config{Policy: guardsh.NewPolicy(guardsh.ModeBypass), Dir: dir, Project: dir,
			Env:   []string{"HOME=" + dir, "PATH=" + dir + "/nobin", "TMPDIR=" + dir},
			Stdin: strings.NewReader("line one\nline 'two'\n"), Stdout: out, Stderr: out,
			FS: dirFS{root: dir}, Sandbox: "off (fuzz)"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		r.Run(ctx, strings.NewReader(src), "fuzz")
		if o := out.String(); strings.Contains(o, "goroutine ") || strings.Contains(o, "panic:") {
			t.Fatalf("%q: a Go panic:\n%s", src, o)
		}
	})
}

var fuzzSeeds = []string{
	`x=a\ b; echo "$x" ${x%% *} ${#x} "${x/#a/p}" "${x@Q}"`,
	`a=(1 2 "3 4"); echo "${a[@]:1}" "${#a[@]}" "${a[-1]}" "${!a[@]}"; unset 'a[0]'; echo "${a[*]}"`,
	`declare -A m=([k]=v [x y]=z); echo "${m[k]}" "${!m[@]}"; m[k]+=w; echo ${m[k]}`,
	`IFS=:; v=a::b; set -- $v; echo $# "$@"; IFS=; read -r l; echo "[$l]"`,
	`(( i = 2 ** 3, j = i % 3 )); echo $((i<<2)) $((j?1:0)) $(( a[2]=5 ))`,
	`printf '%5.2f|%-4s|%q|%(%Y)T\n' 3.14 ab "it's" 0; printf -v v '%03d' 7; echo $v`,
	`case "ab" in a*) echo A;; *) echo B;; esac; [[ ab =~ ^(a)(b)$ ]] && echo "${BASH_REMATCH[2]}"`,
	`set -u; echo ${U:-"a b" c} "-$@-"; shift; echo $?`,
	`echo x > f; echo y >> f; read -r y < f; echo "$y" > g; c=$(< g); echo "$c" 2>&1 >&2 <&0`,
	`mapfile -t a <<< $'l1\nl2'; echo "${a[1]}"; readarray -d , b <<< "p,q"; echo "${#b[@]}"`,
	`for w in {a,b}{1,2}; do echo -n "$w "; done; echo ~ ~+ ~-`,
	`shopt -s extglob nullglob; echo @(x|y)* ?; set -f; echo *; set +f`,
	`test -n "$x" -o ! -z y; echo $?; [ 1 -lt 2 ] && [ a \< b ]; echo $?`,
	`declare -i n=3+4; n+=1; echo $n; local q 2>/dev/null; echo $?; type -t echo; declare -p n`,
	`x=$(echo a; echo b >&2) 2>&1; echo "${x^^}" "${x,}" ${x~}`,
	`getopts ab: o -b v; echo "$o $OPTARG"; let 'z = 5 / 0'; echo $?`,
	`{ echo a; echo b; } | { read l; echo "$l"; } | cat 2>/dev/null; echo "${PIPESTATUS[@]}"`,
	`times >/dev/null; jobs; wait; alias l='echo 1 | cat'; type l; unalias l; hash -r`,
}

// fuzzBuiltins are the commands a fuzzed script may name.
var fuzzBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(": true false echo printf read test [ set shopt local declare typeset export readonly unset shift getopts let cd pwd return exit break continue type hash times mapfile readarray dirs pushd popd alias unalias wait jobs cat") {
		fuzzBuiltins[n] = true
	}
}

var fuzzBigNumber = regexp.MustCompile(`[0-9]{5}`)

// fuzzSafe reports whether src parses and names only fuzzBuiltins (cat
// has no PATH to be found on: it fails as "command not found"), with no
// loop, function or large number that could make it run without end or
// exhaust memory or the stack.
func fuzzSafe(src string) bool {
	if len(src) > 512 || fuzzBigNumber.MatchString(src) || strings.Contains(src, "..") {
		return false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		return true // a syntax error is a case too, and runs nothing
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.WhileClause, *syntax.FuncDecl, *syntax.CoprocClause:
			ok = false
		case *syntax.ForClause:
			if _, c := n.Loop.(*syntax.CStyleLoop); c {
				ok = false
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				name := n.Args[0].Lit()
				if name == "" || !fuzzBuiltins[name] {
					ok = false
				}
			}
		case *syntax.Redirect:
			if n.Word != nil && strings.Contains(n.Word.Lit(), "/") && n.Word.Lit() != "/dev/null" {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// capWriter keeps up to max bytes, from any goroutine.
type capWriter struct {
	mu  sync.Mutex
	b   strings.Builder
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.b.Len(); room > 0 {
		if len(p) > room {
			w.b.Write(p[:room])
		} else {
			w.b.Write(p)
		}
	}
	return len(p), nil
}

func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// dirFS is the operating system below root only: any other path is
// refused, so that fuzzed redirections, cd and globs touch nothing else.
type dirFS struct{ root string }

func (d dirFS) check(path string) error {
	p := filepath.Clean(path)
	if p == "/dev/null" || p == d.root || strings.HasPrefix(p, d.root+"/") {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
}

func (d dirFS) Open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if err := d.check(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}

func (d dirFS) Stat(ctx context.Context, path string, follow bool) (fs.FileInfo, error) {
	if err := d.check(path); err != nil {
		return nil, err
	}
	if follow {
		return os.Stat(path)
	}
	return os.Lstat(path)
}

func (d dirFS) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	if err := d.check(path); err != nil {
		return nil, err
	}
	return os.ReadDir(path)
}
