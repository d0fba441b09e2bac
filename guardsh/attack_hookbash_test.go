package guardsh

import (
	"strings"
	"testing"
)

// Outside attacks on the hook's static verdict: command lines that real
// bash runs as code through a file or stdin the checker did not read.
// Each case is judged as the hook judges it (Via "hook", auto and default
// modes); an allowed one runs in real bash against the throwaway HOME of
// newBashVictim, and any change there is a hole. @H@ is that HOME.
var hookBashAttacks = []struct{ name, cmd string }{
	{"source-stdin-herestring", `source /dev/stdin <<< 'rm -f ~/canary'`},
	{"dot-stdin-herestring", `. /dev/stdin <<< 'rm -f ~/canary'`},
	{"source-fd0-herestring", `source /dev/fd/0 <<< 'rm -f ~/canary'`},
	{"source-proc-fd0-heredoc", "source /proc/self/fd/0 <<'X'\nrm -f ~/canary\nX"},
	{"source-stdin-pipe", `echo 'rm -f ~/canary' | . /dev/stdin`},
	{"source-stdin-cat-pipe", `cat <<< 'rm -f ~/canary' | source /dev/stdin`},
	{"bash-c-source-stdin", `bash -c 'source /dev/stdin' <<< 'rm -f ~/canary'`},
	{"bash-c-bash-herestring", `bash -c 'bash' <<< 'rm -f ~/canary'`},
	{"bash-c-sh-s-herestring", `bash -c 'sh -s' <<< 'rm -f ~/canary'`},
	{"sh-c-cat-pipe-bash-heredoc", "sh -c 'cat | bash' <<'X'\nrm -f ~/canary\nX"},
	{"eval-source-stdin", `eval 'source /dev/stdin' <<< 'rm -f ~/canary'`},
	{"source-stdin-rm-home", `source /dev/stdin <<< 'rm -rf ~'`},
	{"bash-procsubst-echo", `bash <(echo rm -f ~/canary)`},
	{"sh-procsubst-echo", `sh <(echo rm -f ~/canary)`},
	{"source-procsubst-printf", `source <(printf 'rm -f ~/canary')`},
	{"source-procsubst-echo", `source <(echo touch ~/pwned)`},
	{"dot-procsubst-cat-herestring", `. <(cat <<< 'rm -f ~/canary')`},
	{"source-dev-dot-stdin", `source /dev/./stdin <<< 'rm -f ~/canary'`},
	{"source-double-slash-stdin", `source //dev/stdin <<< 'rm -f ~/canary'`},
	{"source-fd-dotdot-0", `source /dev/fd/../fd/0 <<< 'rm -f ~/canary'`},
	{"source-dashdash-stdin", `source -- /dev/stdin <<< 'rm -f ~/canary'`},
	{"bash-dashdash-stdin", `bash -- /dev/stdin <<< 'rm -f ~/canary'`},
	{"source-fd3-herestring", `source /dev/fd/3 3<<< 'rm -f ~/canary'`},
	{"bash-fd3-herestring", `bash /dev/fd/3 3<<< 'rm -f ~/canary'`},
	{"exec-fd3-then-source", `exec 3<<< 'rm -f ~/canary'; source /dev/fd/3`},
	{"source-stderr-herestring", `source /dev/stderr 2<<< 'rm -f ~/canary'`},
	{"source-proc-self-fd3", `source /proc/self/fd/3 3<<'X'` + "\nrm -f ~/canary\nX"},
	{"bash-procsubst-fd63-replaced", `bash <(echo ls) 63<<< 'rm -f ~/canary'`},
	{"source-procsubst-fd63-replaced", `source <(echo ls) 63<<< 'rm -f ~/canary'`},
	{"arith-dollar-underscore", `: 'a[$(rm -f ~/canary)]'; echo $(( $_ ))`},
	{"arith-underscore", `: 'a[$(rm -f ~/canary)]'; (( _ ))`},
	{"arith-REPLY", `read <<< 'a[$(rm -f ~/canary)]'; echo $((REPLY))`},
	{"arith-MAPFILE", `mapfile <<< 'a[$(rm -f ~/canary)]'; echo $((MAPFILE))`},
	{"arith-BASH_REMATCH", `[[ 'a[$(rm -f ~/canary)]' =~ .* ]]; echo $((BASH_REMATCH))`},
	{"arith-OPTARG", `getopts a: o -a 'a[$(rm -f ~/canary)]'; echo $((OPTARG))`},
	{"tar-remove-files-home", `tar -cf x.tar -C ~ . --remove-files`},
	{"tar-remove-files-canary", `tar -cf x.tar --remove-files ~/canary`},
	{"tar-remove-files-C-abs", `tar -cf x.tar -C @H@ canary --remove-files`},
	{"tar-remove-files-via-link", `ln -s ~ b; tar -cf x.tar -C b . --remove-files`},
	{"zip-move-via-link", `ln -s ~ b; zip -qm x.zip b/canary`},
	{"zip-move-long", `zip -q --move x.zip ~/canary`},
	{"git-C-home-init", `git -C ~ init -q`},
	{"cd-home-git-init", `cd ~; git init -q`},
	{"cd-git-init", `cd; git init -q`},
	{"env-S-bash-env-stdin", `env -S"BASH_ENV=/dev/stdin bash -c :" <<< 'rm -f ~/canary'`},
	{"env-S-space-bash-env-stdin", `env -S 'BASH_ENV=/dev/stdin bash -c true' <<< 'rm -f ~/canary'`},
}

// hookBashHoles are the attacks not fixed yet, with why.
var hookBashHoles = map[string]string{
	"git-C-home-init":  gitInitHole,
	"cd-home-git-init": gitInitHole,
	"cd-git-init":      gitInitHole,
}

const gitInitHole = "git init with no directory writes .git where git runs; the git handler judges no path for it, and git -C DIR reaches it as [git init] with DIR dropped (--explain shows argv without -C): HOME/.git is created"

func TestHookBashAttacks(t *testing.T) {
	for _, mode := range []Mode{ModeAuto, ModeDefault} {
		p := NewPolicy(mode)
		for _, tc := range hookBashAttacks {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				if h := hookBashHoles[tc.name]; h != "" {
					t.Skip("HOLE: " + h)
				}
				v := newBashVictim(t)
				cmd := strings.ReplaceAll(tc.cmd, "@H@", v.home)
				env := v.env()
				// the hook's reading of the environment bash inherits
				// (env -i HOME=... PATH=...)
				env.Environ = func(name string) (string, bool) {
					switch name {
					case "HOME":
						return v.home, true
					case "PATH":
						return "/usr/bin:/bin", true
					}
					return "", false
				}
				sv, _ := p.CheckScript(cmd, env)
				if sv.Decision != Allow {
					return
				}
				before := v.snapshot(t)
				out := v.runBash(t, cmd)
				if after := v.snapshot(t); after != before {
					t.Errorf("HOLE: allowed [%s] %q and real bash changed HOME:\nbefore\n%s\nafter\n%s\noutput %s", sv.Rule, cmd, before, after, out)
				}
			})
		}
	}
}
