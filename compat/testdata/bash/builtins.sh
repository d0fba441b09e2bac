# Builtins (4.1, 4.2), one by one.
#### colon
: ignored args; echo $?
#### true-false
true; echo $?; false; echo $?
#### echo-flags
echo -n a; echo -e 'b\tc'; echo -E 'd\te'; echo -- x; echo -nx
#### printf-formats
printf '%s-%d-%x-%o-%c-%5s|%-5s|\n' str 42 255 8 char r l
#### printf-reuse-format
printf '%s=%s\n' a 1 b 2 c
#### printf-b
printf '%b\n' 'a\tb' '\0101'
#### printf-v
printf -v out '%03d' 7; echo $out
#### printf-float
printf '%.2f %e %g\n' 3.14159 12345.678 0.0001
#### printf-invalid-number
printf '%d\n' abc; echo st=$?
#### printf-q
printf '%q ' 'a b' "c'd" '$x'; echo
#### printf-missing-args
printf '%s|%d|\n'
#### printf-percent
printf '100%%\n'
#### printf-char-arg
printf '%d\n' "'A"
#### read-basic
echo 'a b c' | { read x y; echo "$x|$y"; }
#### read-r
echo 'a\b' | { read -r x; echo "$x"; }; echo 'a\b' | { read x; echo "$x"; }
#### read-reply
echo line | { read; echo "$REPLY"; }
#### read-eof-status
read x < /dev/null; echo st=$?
#### read-n
echo abcdef | { read -n 3 x; echo $x; }
#### read-d
printf 'a:b' | { read -d : x; echo $x; }
#### read-last-line-no-newline
printf 'a\nb' | while read l || [ -n "$l" ]; do echo "[$l]"; done
#### cd-basic
mkdir -p d/e; cd d/e; pwd | sed "s#$HOME#~#"; cd ..; basename "$PWD"
#### cd-dash
mkdir a b; cd a; cd ../b; cd - | sed "s#$HOME#~#"; basename "$PWD"
#### cd-P
mkdir real; ln -s real link; cd -P link; basename "$(pwd)"
#### cd-L
mkdir real; ln -s real link; cd -L link; basename "$PWD"
#### cd-double-dash
mkdir -- -d; cd -- -d; basename "$PWD"
#### cd-missing
cd /nonexistent; echo st=$?
#### cd-oldpwd
mkdir x; cd x; echo "${OLDPWD##*/}" | grep -c .
#### cd-home
mkdir sub; cd sub; cd; [ "$PWD" = "$HOME" ] && echo home
#### cd-too-many
cd a b; echo st=$?
#### cd-symlink-dotdot
mkdir -p r/s; ln -s r/s ls; cd ls; cd ..; basename "$PWD"
#### pwd-P
mkdir real; ln -s real link; cd link; basename "$(pwd -P)"; basename "$(pwd -L)"
#### test-strings
[ a = a ] && echo eq; [ a != b ] && echo ne; [ -z '' ] && echo z; [ -n x ] && echo n
#### test-numbers
[ 3 -gt 2 ] && echo gt; [ 2 -le 2 ] && echo le; [ 1 -eq 01 ] && echo eq
#### test-files
touch f; mkdir d; [ -f f ] && [ -d d ] && [ -e f ] && [ ! -e nope ] && echo files
#### test-bad-number
[ a -gt 1 ]; echo st=$?
#### test-missing-bracket
[ 1 = 1; echo st=$?
#### test-not-and-or
[ ! a = b -a 1 -eq 1 ] && echo ok; [ 1 -eq 2 -o 2 -eq 2 ] && echo ok2
#### declare-p-scalar
x='a b'; declare -p x
#### declare-x
declare -x E=1; env | grep '^E='
#### declare-r
## differs: an assignment to a readonly variable does not abort the rest of the line (mvdan)
declare -r R=1; R=2; echo st=$?
#### declare-F
f() { :; }; g() { :; }; declare -F
#### declare-F-name
f() { :; }; declare -F f; declare -F nope; echo st=$?
#### declare-f
## differs: functions are printed in mvdan's layout, not bash's
f() { echo hi; }; declare -f f
#### declare-l-u
## differs: declare -l/-u (case attributes) are not supported (mvdan)
declare -l lo=MiXed; declare -u up=MiXed; echo $lo $up
#### declare-g-in-function
f() { declare -g G=global; }; f; echo $G
#### declare-n
x=1; declare -n ref=x; ref=2; echo $x
#### export-list-one
export FOO=bar; export -p | grep 'FOO='
#### export-n
export X=1; export -n X; env | grep -c '^X='
#### export-function
f() { echo exported-f; }; export -f f; bash -c f
#### export-function-env
## differs: functions are printed in mvdan's layout, not bash's (the function still imports in bash and guardsh)
f() { echo hi; }; export -f f; env | grep -a '^BASH_FUNC_f'
#### import-function-env
env 'BASH_FUNC_g%%=() {  echo imported; }' bash -c g
#### readonly
## differs: an assignment to a readonly variable does not abort the rest of the line (mvdan)
readonly RO=1; readonly -p | grep -c 'RO='; RO=2 2>/dev/null; echo $RO
#### unset-var-func
x=1; f() { :; }; unset x; unset -f f; echo "[$x]"; type f 2>&1 | head -1
#### unset-readonly
## differs: unset of a readonly variable: mvdan prints this error itself, in its own words and status
readonly r=1; unset r; echo st=$?
#### shift
set -- a b c; shift; echo "$@"; shift 2; echo $#
#### shift-too-many
## differs: shift N beyond $# succeeds (mvdan)
set -- a; shift 2; echo st=$? $#
#### getopts
set -- -a -b val c; while getopts ab: o; do echo "$o ${OPTARG:-}"; done; echo $OPTIND
#### getopts-invalid
set -- -z; getopts a o; echo "$o st=$?"
#### getopts-silent
set -- -z; getopts :a o; echo "$o $OPTARG"
#### set-positional
set -- x y z; echo $# $2
#### set-listing
x_compat_var=1; set | grep '^x_compat_var='
#### set-o-list
## differs: set -o lists options in mvdan's layout
set -o | grep -E '^(errexit|nounset|pipefail)'
#### set-plus-o
set -e; set +o | grep errexit
#### shopt-query
shopt -q nullglob; echo $?; shopt -s nullglob; shopt nullglob
#### shopt-p
shopt -p dotglob
#### type-builtin
type echo cd
#### type-t
f() { :; }; type -t echo f ls if nope; echo st=$?
#### type-P
type -P ls
#### type-a
type -a echo
#### type-function
## differs: functions are printed in mvdan's layout, not bash's
f() { echo hi; }; type f
#### command-v
## differs: command -v with a name not found: status 1 even when another name was found (mvdan)
command -v echo ls nope; echo st=$?
#### command-V
command -V echo
#### command-bypass-function
ls() { echo fn; }; command ls /dev/null
#### builtin-cmd
builtin echo via-builtin
#### eval
eval 'x=1; echo $x'; eval echo '$x'
#### eval-status
eval false; echo $?
#### source-args
echo 'echo "args: $*"' > s.sh; . ./s.sh a b; source ./s.sh c
#### source-return
printf 'echo a\nreturn 3\necho b\n' > s.sh; . ./s.sh; echo st=$?
#### source-missing
. ./nope.sh; echo st=$?
#### umask-print
umask 022; umask; umask -S
#### umask-empty
umask ''; echo st=$?
#### umask-invalid
umask 999; echo st=$?
#### hash
hash -r; echo st=$?
#### exit-status
(exit 300); echo $?
#### exit-bad
exit abc
#### return-outside
## differs: return outside a function has status 1 (bash: 2) (mvdan)
return 2>/dev/null; echo st=$?
#### wait-none
wait; echo $?
#### kill-l
kill -l 9 15
#### times-format
times | wc -l
#### trap-p
trap 'echo bye' EXIT; trap -p EXIT
#### trap-list
trap 'echo x' INT; trap -p
#### compgen-builtins
compgen -b | grep -E '^(cd|echo)$'
#### compgen-w
compgen -W 'alpha beta gamma' -- be
#### complete-p
complete -W 'a b' mycmd; complete -p mycmd
#### compgen-functions
myfunc1() { :; }; compgen -A function myf
#### caller-in-function
## differs: caller is not supported
f() { caller 0 | cut -d' ' -f2; }; f
#### help-exists
help cd >/dev/null; echo st=$?
#### enable-list
## differs: enable is not supported
enable -a | grep -c 'enable echo'
#### local-outside
local x=1; echo st=$?
#### printf-v-array
printf -v 'a[1]' %s x; echo ${a[1]}
#### let-status
let 'x=0'; echo $?
#### dirs-pushd
mkdir a; pushd a >/dev/null; popd >/dev/null; basename $PWD | grep -vc a
#### unalias-missing
unalias nope; echo st=$?
#### read-array-ifs
IFS=, read -ra f <<< 'x,y,z'; echo ${f[1]} ${#f[@]}
#### mapfile-callback-count
## differs: mapfile -n (and -s, -O, -C) are not supported (mvdan's mapfile)
printf 'a\nb\nc\n' | { mapfile -n 2 arr; echo ${#arr[@]}; }
#### printf-s-array
a=(1 2 3); printf '%s,' "${a[@]}"; echo
#### set-listing-quoting
e=; s='a b'; q="it's"; n=$'l1\nl2'; set | grep -E '^(e|s|q|n)='
#### read-single-quotes
printf '%s\n' "a 'q' b" "it's" > f; while IFS= read -r line; do printf '<%s>\n' "$line"; done < f
#### read-fields-single-quotes
echo "x'1 y'2 z'3 w" | { read -r a b rest; echo "[$a] [$b] [$rest]"; }
#### read-array-single-quotes
echo "p'q r's" | { read -ra arr; echo "${#arr[@]} ${arr[0]} ${arr[1]}"; }
#### read-reply-single-quotes
echo " don't  " | { read -r; echo "[$REPLY]"; }
#### read-n-single-quote
echo "o'k" | { read -rN 3 v; echo "[$v]"; }
#### printf-v-single-quote
printf -v v '%s' "it's"; echo "[$v]"
#### export-f-single-quote
f() { echo 'it'\''s'; }; export -f f; bash -c f
