package compat

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The generator composes small programs from the features of the table
// (quoting, expansions, arrays, functions, subshells, pipelines, loops,
// here-strings...) and runs each under bash and guardsh. A program whose
// outcome differs fails the test unless it is already a row of the table
// (testdata/bash/*.sh, usually generated.sh, marked with why): every
// disagreement found becomes a row. A fixed seed and a bounded count run in
// go test; longer runs:
//
//	go test ./compat -run TestGen -gen.n=5000 [-gen.seed=N] -v
var (
	genN    = flag.Int("gen.n", 150, "number of programs TestGen composes")
	genSeed = flag.Uint64("gen.seed", 1, "seed of TestGen's programs")
)

// genAtoms are words as a script writes them: each quoting form.
var genAtoms = []string{
	`a`, `'b c'`, `"d e"`, `$'f\tg'`, `h\ i`, `''`, `"$x"`, `$x`, `"${x}j"`, `k'l'"m"`,
	`*`, `"*"`, `-n`, `--`, `a:b`, `'x y z'`, `"$1"`, `$n`, `'$x'`, `"a\"b"`,
}

// genExps are expansions of the variables every program sets up.
var genExps = []string{
	`$x`, `"$x"`, `${x:-dflt}`, `"${u:-a b}"`, `${u-un}`, `${x:+alt}`, `${#x}`, `${x#?}`, `${x%?}`,
	`${x/ /_}`, `${x^^}`, `"$@"`, `$@`, `"$*"`, `$#`, `"${arr[@]}"`, `${arr[*]}`, `"${arr[1]}"`,
	`${#arr[@]}`, `"${!arr[@]}"`, `$((n*3+1))`, `$((n<2?7:8))`, `"$(echo sub)"`, `$(printf '%s ' p q)`,
	`"${m[k]}"`, `${x:1:2}`, `"${arr[@]:1}"`, `$'\x41'`, `{1..3}`, `{a,b}c`, `"$n$x"`, `${n}0`,
}

// genSetups start every program: variables the expansions use.
var genSetups = []string{
	`x='hello world'; n=2; arr=(one 'two three' four); declare -A m=([k]=v); set -- p1 'p 2' p3`,
	`x=abc; n=5; arr=(); declare -A m=([k]='w z'); set --`,
	`x=' sp  aced '; n=0; arr=(a '' c); declare -A m=(); set -- ''`,
	`x='a*b'; n=1; arr=('*' x); declare -A m=([k]=1 [j]=2); set -- a b c d`,
}

// genCmd is one random statement.
func genCmd(r *rand.Rand, depth int) string {
	atom := func() string { return genAtoms[r.IntN(len(genAtoms))] }
	exp := func() string { return genExps[r.IntN(len(genExps))] }
	words := func() string {
		k := 1 + r.IntN(3)
		w := make([]string, k)
		for i := range w {
			if r.IntN(2) == 0 {
				w[i] = atom()
			} else {
				w[i] = exp()
			}
		}
		return strings.Join(w, " ")
	}
	inner := func() string {
		if depth > 1 {
			return "printf '<%s>' " + words() + "; echo"
		}
		return genCmd(r, depth+1)
	}
	switch r.IntN(22) {
	case 0, 1, 2:
		return "printf '<%s>' " + words() + "; echo"
	case 3:
		return "echo " + words()
	case 4:
		return "x=" + atom() + "; printf '[%s]\\n' \"$x\""
	case 5:
		return "arr=(" + words() + "); printf '<%s>' \"${arr[@]}\"; echo \" ${#arr[@]}\""
	case 6:
		return "set -- " + words() + "; echo \"$# $1\""
	case 7:
		return "IFS=" + []string{":", "' '", "','", "''", "$' \\t'"}[r.IntN(5)] + "; y=" + atom() + "; printf '<%s>' $y $x; echo; unset IFS"
	case 8:
		return "f() { " + inner() + "; return " + fmt.Sprint(r.IntN(3)) + "; }; f " + words() + "; echo \"st=$?\""
	case 9:
		return "( " + inner() + " ); echo \"sub=$?\""
	case 10:
		return "{ " + inner() + "; } | cat"
	case 11:
		return "[ " + exp() + " = " + atom() + " ] && echo same || echo differ"
	case 12:
		return "for i in " + words() + "; do echo \"[$i]\"; done"
	case 13:
		return "case " + exp() + " in a*|*b*) echo ab;; '') echo empty;; *) echo other;; esac"
	case 14:
		return "[[ " + exp() + " == " + atom() + " ]] && echo eq || echo ne"
	case 15:
		return "read -r v w <<< " + exp() + "; printf '<%s>' \"$v\" \"$w\"; echo"
	case 16:
		return "y=$( " + inner() + " ); printf '{%s}\\n' \"$y\""
	case 17:
		return "local_t() { local x=" + atom() + "; echo \"$x\"; }; local_t; echo \"$x\""
	case 18:
		return "(( n += " + fmt.Sprint(r.IntN(4)) + " )); echo $n ${arr[n%3]}"
	case 19:
		return "m[" + []string{"k", "j", "'a b'"}[r.IntN(3)] + "]=" + atom() + "; printf '%s\\n' \"${m[@]}\" | sort"
	case 20:
		return "export E=" + atom() + "; sh -c 'printf \"<%s>\\n\" \"$E\"'"
	default:
		return inner() + " && echo ok || echo failed"
	}
}

// genProgram is program i of a seed.
func genProgram(seed uint64, i int) string {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	lines := []string{genSetups[r.IntN(len(genSetups))]}
	for k := 1 + r.IntN(3); k > 0; k-- {
		lines = append(lines, genCmd(r, 0))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestGen runs generated programs under bash and guardsh.
func TestGen(t *testing.T) {
	sh := needShells(t)
	table := map[string]bool{}
	for _, c := range loadBashCases(t) {
		table[c.src] = true
	}
	base := t.TempDir()
	var mu sync.Mutex
	same, known := 0, 0
	var found []string
	t.Run("prog", func(t *testing.T) {
		for i := 0; i < *genN; i++ {
			src := genProgram(*genSeed, i)
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				want, got := compare(t, sh, src, filepath.Join(base, fmt.Sprint(i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case want == got:
					same++
				case table[src]:
					known++ // a row of the table already (TestBash checks it)
				default:
					found = append(found, fmt.Sprintf("#### gen-%d-%d\n## differs: WHY\n%s", *genSeed, i, src))
					t.Errorf("generated program %d differs from bash; add it to testdata/bash/generated.sh:\n%s", i, diffReport(src, want, got))
				}
			})
		}
	})
	t.Logf("generator (seed %d): %d of %d programs identical, %d known differences (table rows), %d new",
		*genSeed, same, *genN, known, len(found))
	if len(found) > 0 {
		t.Logf("new rows for testdata/bash/generated.sh:\n%s", strings.Join(found, ""))
	}
}
