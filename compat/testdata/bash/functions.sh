# Shell functions (3.3) and scoping.
#### define-call
f() { echo "f:$1:$#"; }; f a b
#### function-keyword
function g { echo g; }; g; function h() { echo h; }; h
#### return-status
f() { return 3; }; f; echo $?
#### return-last-status
f() { false; }; f; echo $?
#### positional-restored
set -- outer; f() { set -- inner; echo $1; }; f; echo $1
#### local-scope
x=global; f() { local x=local; echo $x; }; f; echo $x
#### dynamic-scope
x=global; g() { echo $x; }; f() { local x=dyn; g; }; f
#### local-unset-reveals
x=g; f() { local x=l; unset x; echo "[$x]"; }; f
#### local-in-subshell-in-function
f() { ( local y=sub; echo $y ); }; f
#### local-in-cmdsubst-in-function
f() { v=$(local z=in; echo $z); echo $v; }; f
#### recursion
fact() { if (( $1 <= 1 )); then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5
#### function-redirect
f() { echo in-f; } > out; f; cat out
#### function-in-pipeline
f() { tr a-z A-Z; }; echo hi | f
#### funcname
f() { echo ${FUNCNAME[0]}; g; }; g() { echo ${FUNCNAME[@]}; }; f
#### local-dash
## differs: local - (restore the set options when the function returns) is not supported (mvdan)
f() { local -; set -e; }; f; echo "${-//[^e]/}x"
#### function-overrides-builtin
echo() { builtin echo "wrapped $*"; }; echo hi
#### unset-function
f() { echo x; }; unset -f f; f; echo st=$?
#### function-name-with-dash
my-func() { echo dash; }; my-func
#### local-assign-status
f() { local x=$(false); echo $?; }; f
#### local-array-copy
f() { local -a a=("$@"); echo ${#a[@]}; }; f 1 2 3
#### function-definition-listing
## differs: functions are printed in mvdan's layout, not bash's
f() { echo a; echo b; }; type f
#### function-subshell-body
f() ( x=in; echo $x ); x=out; f; echo $x
#### return-in-loop
f() { for i in 1 2 3; do [ $i = 2 ] && return $i; done; }; f; echo $?
#### local-inherit-export
export E=1; f() { local E=2; sh -c 'echo $E'; }; f
#### nested-function-def
outer() { inner() { echo inner; }; }; outer; inner
#### args-dollar-zero
f() { echo "$0"; }; f
#### local-declare-in-function
f() { declare x=fx; }; f; echo "[$x]"
#### bash-source-in-function
## differs: bash -c names a function's source "environment"
f() { echo "${BASH_SOURCE[0]:-none}"; }; f
