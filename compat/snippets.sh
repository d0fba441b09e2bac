# guardsh compatibility suite: what coding agents actually run.
#
# Each section below, from a "#### name" line to the next, is one snippet.
# compat_test.go runs every snippet as `bash -c SNIPPET` and as
# `guardsh -c SNIPPET` in the same fresh directory (HOME is a fresh directory
# too) and compares stdout, stderr (with the shell's name replaced) and the
# exit status. Snippets listed in knownDiffs (compat_test.go) differ for the
# reason given there and in the README's "Compatibility" section.

#### echo-basics
echo hello world; echo -n no-newline; echo; echo -e 'a\tb'; echo "$HOME" | sed "s#$HOME#HOME#"

#### echo-options
echo -ne 'a\tb\n'; echo -en "c\n"; echo -e 'x\0101\x42\c never'; echo; echo -E 'raw\n'; echo -- -n; echo -nx

#### and-or-chains
true && echo yes || echo no; false && echo yes || echo no; ! false && echo negated

#### exit-status
false; echo $?; (exit 3); echo $?; true; echo $?

#### pipes
printf 'b\na\nc\n' | sort | head -2 | tr a-z A-Z

#### pipefail
set -o pipefail; false | true; echo "status=$?"; set +o pipefail; false | true; echo "status=$?"

#### set-euo-pipefail
set -euo pipefail
x=1
echo "x=$x"
false
echo not reached

#### set-u-unbound
set -u; echo "${DEFINITELY_UNSET:-default}"; echo "$DEFINITELY_UNSET"; echo after

#### xtrace
set -euxo pipefail; name=world; echo "hello $name"; printf -v greeting %s! hi; echo "$greeting"; if [ -n "$name" ]; then echo yes; fi; read v <<< q; for i in 1 2; do echo $i; done; echo "it's" "" "a b"; f() { echo in f; }; f arg

#### set-e-in-condition
set -e; if false; then echo no; fi; false || echo recovered; f() { false; echo in-f; }; f || true; echo end

#### heredoc
cat <<EOF
home is set: ${HOME:+yes}
sum: $((2 + 3))
EOF
cat <<'EOF'
literal $HOME $(date)
EOF

#### heredoc-unclosed
while read -r a b; do echo "$b-$a"; done <<EOF
1 2
3 4

#### heredoc-dash
if true; then
	cat <<-EOF
	indented
		kept tab
	EOF
fi

#### herestring
read -r a b <<< "one two three"; echo "$a|$b"; tr a-z A-Z <<< hello

#### for-loops
for i in 1 2 3; do echo "i=$i"; done; for ((i=0; i<3; i++)); do printf '%d ' $i; done; echo; for f in $(seq 3); do echo -n "$f"; done; echo

#### while-read
printf 'l1\nl2 with spaces\n\nl4\n' | while IFS= read -r line; do echo "[$line]"; done

#### read-loop-file
printf 'a:1\nb:2\nc:3\n' > data.txt; while IFS=: read -r k v; do echo "$k=$v"; done < data.txt; rm data.txt

#### arrays
arr=(one "two words" three); echo "${#arr[@]}"; echo "${arr[1]}"; for x in "${arr[@]}"; do echo "<$x>"; done; arr+=(four); echo "${arr[*]}"; echo "${!arr[@]}"

#### assoc-arrays
declare -A m; m[a]=1; m[b]=2; for k in $(printf '%s\n' "${!m[@]}" | sort); do echo "$k=${m[$k]}"; done; echo "${#m[@]}"

#### functions
greet() { local name=$1; echo "hello $name"; return 3; }; greet world; echo "rc=$?"; echo "name=${name:-unset}"

#### function-recursion
fact() { if [ "$1" -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 6

#### command-substitution
d=$(basename "$(pwd)"); [ -n "$d" ] && echo ok; n=$(echo a b c | wc -w); echo "words=$n"; echo "`echo backticks`"

#### subshells
x=outer; (x=inner; echo "$x"); echo "$x"; (cd /; pwd); pwd | grep -q / && echo same-dir

#### traps
trap 'echo cleanup' EXIT; echo working

#### trap-signals
tmp=$(mktemp); trap 'rm -f "$tmp"; echo cleaned' EXIT INT TERM; trap 'echo hup' HUP; echo body; [ -f "$tmp" ] && echo exists

#### read-options
read -r a b <<< 'x\y z'; echo "[$a][$b]"; IFS=: read -r k v rest <<< "a:b:c:d"; echo "$k|$v|$rest"; IFS=, read -ra arr <<< "1,2,,3"; echo "${#arr[@]}"; read -n 3 c <<< "abcdef"; echo "$c"; printf 'a\0b c\0' | while IFS= read -r -d '' f; do echo "f=$f"; done; read -p "prompt> " y <<< yes; echo "y=$y"; read line < /dev/null; echo "eof=$?"; sleep 0.5 | { read -t 0.1 t; echo "timeout=$?"; }

#### trap-err
trap 'echo "failed at $LINENO"' ERR; false; echo next

#### case
for w in apple banana cherry 42; do case $w in a*) echo "A: $w";; b*|c*) echo "BC: $w";; [0-9]*) echo "num: $w";; esac; done

#### conditionals
x=5; if [ "$x" -gt 3 ]; then echo big; fi; [[ $x == 5 && -n $x ]] && echo dbl; [[ abc =~ ^a(b)c$ ]] && echo "match ${BASH_REMATCH[1]}"; test -d / && echo dir

#### test-builtin
x=; [ $x -gt 3 ]; echo $?; [ abc -gt 3 ]; echo $?; [ -f /etc/passwd -a ! -e /nonexistent ] && echo files; [ \( -n x \) -o -z y ] && echo parens; [ "a" ; echo "missing $?"; test 1 -lt 2 && echo lt

#### arithmetic
echo $((7 / 2)) $((7 % 3)) $((2 ** 10)); i=0; ((i++)); ((i += 5)); echo $i; let j=3*4; echo $j

#### integer-vars
declare -i n=5; n+=3; echo $n; n=2*4; echo $n; f() { local -i c=0; c+=1; ((c++)); echo $c; }; f; declare -i x; x="1 + 1"; echo $x

#### parameter-expansion
f=path/to/file.tar.gz; echo "${f##*/}" "${f%%.*}" "${f%.gz}" "${f#*/}" "${#f}" "${f/to/TO}" "${f^^}"; u=; echo "${u:-def}" "${u:=set}" "$u"

#### string-ops
s="Hello World"; echo "${s:0:5}" "${s: -5}" "${s,,}"; echo "${s// /_}"

#### brace-expansion
echo {a,b,c}; echo file{1..3}.txt; echo {01..03}; mkdir -p d/{x,y}; ls d; rm -r d

#### globbing
touch a.txt b.txt c.md; echo *.txt; ls *.md; shopt -s nullglob; echo none: *.zzz; rm -f a.txt b.txt c.md

#### redirections
echo out > f1; echo more >> f1; cat f1; ls nosuchfile 2> err.txt; echo "rc=$?"; wc -l < err.txt | tr -d ' '; echo both &> f2; cat f2; rm -f f1 f2 err.txt

#### stderr-to-stdout
{ echo to-out; echo to-err >&2; } 2>&1 | sort; ls /nonexistent-path 2>&1 | sed 's/^ls: //' | head -1

#### redirect-errors
echo x > /nonexistent-dir/x; echo "rc=$?"; cat < /nonexistent-file; echo done

#### dev-null
echo hidden > /dev/null; ls /nonexistent 2>/dev/null || echo silenced; cat < /dev/null; echo done

#### clobber-redirect
echo first >| out.txt; echo second >| out.txt; cat out.txt; rm out.txt

#### command-not-found
nosuchcommand-xyz; echo "rc=$?"

#### not-executable
printf 'echo hi\n' > noexec.sh; ./noexec.sh; echo "rc=$?"; rm noexec.sh

#### directory-as-command
mkdir -p somedir; ./somedir; echo "rc=$?"; rmdir somedir

#### builtin-errors
local x=1; echo $?; type nosuchcmd-xyz; echo $?; source ./nonexistent.sh; echo $?; exit abc

#### cd-errors
cd /nonexistent-dir-xyz; echo "rc=$?"; cd /tmp && pwd

#### script-file-args
printf '#!/bin/bash\necho "args: $# $1 $2"\necho "name: $(basename $0)"\nexit 4\n' > s.sh; chmod +x s.sh; ./s.sh a "b c"; echo "rc=$?"; bash s.sh x; rm s.sh

#### bash-source
mkdir -p proj/scripts && printf 'LIB_DIR=$(basename "$(dirname "${BASH_SOURCE[0]}")")\n' > proj/scripts/lib.sh && printf '#!/usr/bin/env bash\nset -euo pipefail\ncd "$(dirname "${BASH_SOURCE[0]}")"\nsource ./lib.sh\necho "here: $(basename "$PWD") lib: $LIB_DIR sources: ${#BASH_SOURCE[@]}"\n' > proj/scripts/run.sh && chmod +x proj/scripts/run.sh && ./proj/scripts/run.sh && bash proj/scripts/run.sh; echo "$OSTYPE"

#### shebangless-script
printf 'echo from-script "$1"\n' > plain; chmod +x plain; ./plain arg; rm plain

#### sh-script
printf '#!/bin/sh\nset -e\necho sh-script $0\n' > t.sh; chmod +x t.sh; sh t.sh; ./t.sh | sed 's#.*/##'; rm t.sh

#### nested-bash-c
bash -c 'echo "nested $0 $1"; exit 7' zero one; echo "rc=$?"; sh -c 'echo posix'; /usr/bin/env bash -c 'echo via env'

#### nested-shell-options
bash -x -c 'echo traced' 2>&1; bash -e -c 'false; echo not'; echo "rc=$?"; bash -n -c 'echo no exec'; echo "n=$?"; env -u HOME bash -c 'echo ${HOME:-nohome}'; command -V echo; bash -s <<< 'echo from-stdin'; echo 'echo piped' | sh

#### sh-is-dash
sh -c 'echo "a\tb|\0101|\c gone"; echo -e x; echo -n "no newline"; echo'; printf 'echo "tab\\there"\n' > d.sh; sh d.sh; bash d.sh

#### bash-c-quoting
bash -c "echo \"double \$((1+1))\""; bash -c 'for i in 1 2; do echo "$i"; done'

#### eval
cmd='echo evaluated $((1+2))'; eval "$cmd"; eval 'x=42'; echo "$x"

#### source-file
printf 'SRC_VAR=sourced\nsrc_fn() { echo "fn $1"; }\n' > lib.sh; source ./lib.sh; echo "$SRC_VAR"; src_fn arg; . ./lib.sh; rm lib.sh

#### export-env
export FOO=bar; env | grep '^FOO='; BAR=inline env | grep '^BAR='; unset FOO; env | grep -c '^FOO=' || true

#### printf-formats
printf '%s=%d\n' a 1 b 2; printf '%5.2f|%-6s|%03d|%x|%o|%e\n' 3.14159 ab 7 255 8 12345.678; printf '%q\n' "it's a test" 'a$b'

#### printf-v
printf -v padded '%05d' 42; echo "$padded"; printf -v line '%s,' a b c; echo "${line%,}"

#### echo-read-pipe
v=unchanged; echo changed | read v; echo "$v"

#### lastpipe
shopt -s lastpipe; n=0; printf '1\n2\n3\n' | while read -r x; do n=$((n+x)); done; echo "sum=$n"

#### pipestatus-basic
true | false | true; echo "last=$?"

#### bash-version
if [ -n "$BASH_VERSION" ]; then echo bash-branch; else echo sh-branch; fi; [ "${BASH_VERSINFO[0]}" -ge 4 ] && echo modern

#### shlvl
bash -c 'echo $((SHLVL - 1))' | grep -qx "$SHLVL" && echo shlvl-ok

#### background-wait
sleep 0.2 & pid=$!; kill -0 "$pid" && echo alive; wait "$pid"; echo "waited rc=$?"

#### background-kill
sleep 30 & pid=$!; kill "$pid"; wait "$pid"; echo "rc=$?"

#### nested-shell-kill
bash -c 'touch ready; sleep 2; echo after' & p=$!; until [ -e ready ]; do sleep 0.01; done; kill $p; wait $p; echo "rc=$?"; rm ready

#### bg-functions
work() { sleep 0.1; return $1; }; work 1 & p1=$!; work 2 & p2=$!; wait $p1; echo "r1=$?"; wait $p2; echo "r2=$?"; sleep 0.1 & echo "$!" | grep -c '^[0-9][0-9]*$'; wait

#### jobs-list
sleep 2 & sleep 2 & jobs; kill %1 %2; wait; echo done

#### wait-n
(sleep 0.1; exit 3) & sleep 3 & wait -n; echo "first rc=$?"; kill %2

#### umask
umask 077; umask; touch f; stat -c %a f; rm f; umask 022; umask -S

#### ulimit
ulimit -n >/dev/null && echo has-limit; ulimit -c 0; ulimit -c

#### shopt-options
shopt -s checkwinsize histappend; shopt -u extglob; shopt -s globstar nullglob; shopt -q globstar && echo globstar-on; shopt -s nosuchopt; echo "rc=$?"

#### shell-flags
echo "$-"; [[ $- == *i* ]] || echo non-interactive; shopt extglob; echo "rc=$?"; shopt -p nullglob; shopt -s nullglob; shopt nullglob

#### set-options
set +m; set -o monitor 2>/dev/null; set +H; set -o errtrace; set -o nosuchoption; echo "rc=$?"

#### real-bg-pid
sleep 1 & ps -o comm= -p $! ; kill $!; wait $! 2>/dev/null; echo "rc=$?"

#### disown
sleep 1 & disown; jobs; disown %5; echo "rc=$?"

#### fd-above-2
exec 3>fd3.txt; echo via3 >&3; exec 3>&-; cat fd3.txt

#### fd-save-restore
exec 4>&1; exec 1>out.log; echo to-log; exec 1>&4 4>&-; echo back; cat out.log; printf 'l1\nl2\n' > in.txt; exec 5<in.txt; read -u 5 a; read -u 5 b; echo "$a $b"; exec 5<&-; exec 3>e.txt; ls /nonexistent 2>&3; exec 3>&-; sed 's/^ls: //' e.txt; echo x >&7; echo "rc=$?"

#### kill-l
kill -l 15; kill -l TERM; kill -l 130

#### time-keyword
{ time true; } 2>&1 | grep -c '^real'; { time echo timed ; } 2>/dev/null; { time -p sleep 0; } 2>&1 | wc -l; echo after

#### git-init-commit
git init -q repo && cd repo && git config user.email a@b.c && git config user.name Agent && echo hi > f.txt && git add f.txt && git commit -qm 'first commit' && git log --oneline | wc -l && git status --short && git rev-parse --abbrev-ref HEAD >/dev/null && echo on-branch

#### git-diff-branch
git init -q r && cd r && git config user.email a@b.c && git config user.name A && printf 'one\n' > a && git add -A && git commit -qm one && git checkout -qb feature && printf 'two\n' >> a && git diff --stat | tail -1 && git commit -qam two && git log --format=%s | head -2 && git diff HEAD~1 --name-only

#### git-no-repo
git status 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}"

#### python-venv
python3 -m venv .venv && source .venv/bin/activate && [ "$VIRTUAL_ENV" = "$PWD/.venv" ] && echo venv-active && which python | sed "s#$PWD/##" && deactivate && echo "${VIRTUAL_ENV:-deactivated}"

#### python-inline
python3 -c 'import sys; print("py", sys.argv[1:])' a b; python3 - <<'EOF'
print(sum(range(10)))
EOF

#### find-xargs
mkdir -p src/sub && touch src/a.go src/sub/b.go src/c.txt && find src -name '*.go' | sort | xargs -n1 basename; find src -type f | wc -l; rm -r src

#### grep-sed-awk
printf 'alpha 1\nbeta 2\ngamma 3\n' > t.txt; grep -n beta t.txt; sed -n '2,3p' t.txt; awk '{s+=$2} END {print s}' t.txt; sed -i 's/alpha/ALPHA/' t.txt; head -1 t.txt; rm t.txt

#### mktemp-cleanup
tmp=$(mktemp -d); [ -d "$tmp" ] && echo made; touch "$tmp/x"; rm -rf "$tmp"; [ -e "$tmp" ] || echo removed

#### getopts
parse() { local OPTIND opt; while getopts "ab:" opt; do case $opt in a) echo flag-a;; b) echo "b=$OPTARG";; *) echo bad;; esac; done; shift $((OPTIND-1)); echo "rest=$*"; }; parse -a -b val x y

#### funcname-logging
log() { echo "[${FUNCNAME[1]:-main}] $*" >&2; }; build() { log building; step; }; step() { echo "stack: ${FUNCNAME[*]}"; }; build; log done

#### local-scope
x=global; f() { local x=local; g; }; g() { echo "g sees $x"; }; f; echo "after $x"

#### readarray
printf 'x\ny\nz\n' > lines; mapfile -t L < lines; echo "${#L[@]} ${L[2]}"; readarray -t M < <(printf '1\n2\n'); echo "${M[*]}"; rm lines

#### process-substitution
diff <(printf 'a\nb\n') <(printf 'a\nc\n'); echo "rc=$?"

#### exit-in-function
f() { exit 5; }; f; echo unreachable

#### syntax-error
echo before; if then fi

#### syntax-error-quote
echo ok; echo 'never closed

#### syntax-error-eof
echo start
for f in a b; do
  echo "$f"

#### long-pipeline-status
seq 1 100 | grep 5 | wc -l; seq 1 3 | awk '{print $1*2}' | paste -sd+ | bc

#### claude-code-wrapper
shopt -u extglob 2>/dev/null || true && { \builtin unalias -- 'unsetenv'; \builtin unset -f -- 'unsetenv'; } >/dev/null 2>&1 || true && eval 'echo "from claude" && ls -d . && cd /tmp' < /dev/null && pwd -P >| ./claude-1a2b-cwd; cat ./claude-1a2b-cwd; rm -f ./claude-1a2b-cwd

#### claude-code-wrapper-quote
shopt -u extglob 2>/dev/null || true && eval 'echo '"'"'single quoted'"'"' && printf "%s\n" "x y"' < /dev/null && pwd -P >| ./claude-ffff-cwd; echo "rc=$?"; rm -f ./claude-ffff-cwd

#### claude-code-login
bash -c -l "shopt -u extglob 2>/dev/null || true && eval 'echo login wrapper; echo \$0' < /dev/null && pwd -P >| ./claude-0001-cwd"; echo "rc=$?"; test -s ./claude-0001-cwd && echo cwd-written; rm -f ./claude-0001-cwd

#### claude-code-snapshot
cat > snapshot-bash-1-abc.sh <<'SNAP'
# Snapshot file
# Unset all aliases to avoid conflicts with functions
unalias -a 2>/dev/null || true
# Functions
eval "$(echo 'bXlmbiAoKSAKeyAKICAgIGVjaG8gImZuIHNheXMgJDEiCn0K' | base64 -d)" > /dev/null 2>&1
# Shell Options
shopt -u autocd
shopt -u assoc_expand_once
shopt -s checkwinsize
shopt -u compat44
shopt -s extquote
shopt -u failglob
shopt -s globasciiranges
shopt -u histappend
shopt -s login_shell
shopt -s patsub_replacement
shopt -u varredir_close
set -o braceexpand
set -o hashall
set -o interactive-comments
set -o monitor
shopt -s expand_aliases
# Aliases
alias -- ll='ls -l'
# Check for rg availability
if ! (unalias rg 2>/dev/null; command -v rg) >/dev/null 2>&1; then
  alias rg='grep'
fi
export PATH=/usr/local/sbin\:/usr/local/bin\:/usr/sbin\:/usr/bin\:/sbin\:/bin
export SNAP_MARK=loaded
SNAP
source ./snapshot-bash-1-abc.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && { \builtin unalias -- 'unsetenv'; \builtin unset -f -- 'unsetenv'; } >/dev/null 2>&1 || true && eval 'myfn hello && echo "$SNAP_MARK" && type -t myfn' < /dev/null && pwd -P >| ./claude-5601-cwd; echo "rc=$?"; test -s ./claude-5601-cwd && echo cwd-ok

#### codex-wrapper
bash -lc 'echo codex; ls -la | head -1 | cut -c1-5'; echo "rc=$?"

#### codex-wrapper-failure
bash -lc 'echo partial; exit 9'; echo "rc=$?"

#### gemini-wrapper
{ echo gemini run; ls nothing-here 2>&1 | sed 's/^ls: //'; }; __code=$?; pgrep -g 0 >./shell_pgrep_abc123.tmp 2>&1; exit $__code;

#### gemini-wrapper-background
bash -c '{ sleep 0.1 & }; __code=$?; pgrep -g 0 >./shell_pgrep_def456.tmp 2>&1; exit $__code;'; echo "rc=$?"; test -f ./shell_pgrep_def456.tmp && echo pgrep-file; rm -f ./shell_pgrep_def456.tmp

#### cat-heredoc-to-file
cat > config.json <<'EOF'
{"name": "demo", "version": 1}
EOF
jq -r .name config.json; rm config.json

#### multiline-script
count=0
for f in a b c; do
  if [ "$f" != b ]; then
    count=$((count + 1))
  fi
done
echo "count=$count"

#### claude-snapshot-eval-function-and-alias
# Claude Code's shell snapshots (sourced before every command) define
# functions through eval of base64 and aliases with "alias --"; the wrapped
# command then calls both.
cat > snapshot.sh <<'EOF'
unalias -a 2>/dev/null || true
eval "$(echo 'bWtjZCAoKSAKeyAKICAgIG1rZGlyIC1wICIkMSIgJiYgY2QgIiQxIgp9Cg==' | base64 -d)" > /dev/null 2>&1
shopt -s expand_aliases
alias -- ll='ls -d'
EOF
source snapshot.sh && alias ll && alias -- && echo "alias status $?" && eval 'mkcd sub && ll . && pwd | sed "s#.*/##"'
