# Command substitution (3.5.4).
#### dollar-paren
echo "[$(echo hi)]"
#### backticks
echo "[`echo hi`]"
#### trailing-newlines-stripped
x=$(printf 'a\n\n\n'); echo "[$x]"
#### inner-newlines-kept
x=$(printf 'a\n\nb'); echo "[$x]"
#### nested
echo $(echo $(echo deep))
#### status-of-subst
x=$(false); echo $?; x=$(exit 3); echo $?
#### subst-in-assignment-no-split
x=$(echo 'a   b'); echo "$x"
#### subst-split-unquoted
printf '<%s>' $(echo 'a   b'); echo
#### subst-subshell-vars
x=1; y=$(x=2; echo $x); echo $x $y
#### subst-with-case
x=$(case a in a) echo matched;; esac); echo $x
#### subst-with-parens-comment
x=$(echo a # comment
); echo $x
#### subst-read-file
echo content > f; echo "$(< f)"
#### subst-stderr-passes
x=$(echo err >&2; echo out); echo "x=$x"
#### subst-exit-in
x=$(exit 5); echo $?
#### subst-errexit
set -e; x=$(false); echo not-reached
#### subst-errexit-local
set -e; f() { local x=$(false); echo local-masks; }; f
#### subst-quotes-inside
echo "$(echo "a"'b')"
#### subst-arith-inside
echo $(( $(echo 3) + 1 ))
#### subst-large
x=$(seq 1 10000); echo ${#x}
#### subst-pipe
x=$(printf 'b\na\n' | sort | head -1); echo $x
#### subst-function
f() { echo from-f; }; echo "$(f)"
#### subst-trap-not-inherited
trap 'echo trap' EXIT; x=$(echo in); echo $x
#### subst-starting-with-subshell
## differs: $(( cmd ); ...) is parsed as arithmetic only (bash falls back to a command substitution): mvdan's parser
y=$(( echo a ); echo b); echo "$y"
