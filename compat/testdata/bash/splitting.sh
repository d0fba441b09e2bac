# Word splitting (3.5.7) and IFS.
#### default-ifs
x='  a  b	c
d  '; printf '<%s>' $x; echo
#### quoted-no-split
x='a  b'; printf '<%s>' "$x"; echo
#### custom-ifs-colon
IFS=:; x='a:b::c'; printf '<%s>' $x; echo
#### ifs-trailing-nonblank
IFS=:; x='a:b:'; printf '<%s>' $x; echo
#### ifs-leading-nonblank
IFS=:; x=':a'; printf '<%s>' $x; echo
#### ifs-mixed-blank-nonblank
IFS=' :'; x='a : b  ::c'; printf '<%s>' $x; echo
#### ifs-empty
IFS=; x='a b c'; printf '<%s>' $x; echo
#### ifs-unset
unset IFS; x='a:b c'; printf '<%s>' $x; echo
#### ifs-star-join
set -- a b c; IFS=-; echo "$*"
#### ifs-star-join-empty
set -- a b c; IFS=; echo "$*"
#### ifs-cmdsubst-split
## differs: an unquoted $(...) is split by mvdan, which drops the empty fields a non-blank IFS character delimits (guardsh splits unquoted $name words itself, not command substitutions)
IFS=,; printf '<%s>' $(echo 'x,y,,z'); echo
#### empty-var-removed
e=; printf '<%s>' a $e b; echo
#### empty-quoted-kept
e=; printf '<%s>' a "$e" b; echo
#### split-in-for
x='1 2 3'; for i in $x; do echo $i; done
#### no-split-assignment
x='a   b'; y=$x; echo "$y"
#### split-read
IFS=: read a b c <<< '1:2:3:4'; echo "$a|$b|$c"
#### read-default-ifs-trim
read a b <<< '   x   y  z  '; echo "[$a][$b]"
#### ifs-newline-only
IFS=$'\n'; x=$'a b\nc d'; printf '<%s>' $x; echo
#### split-at-unquoted
set -- 'a b' c; printf '<%s>' $@; echo
#### split-star-unquoted
set -- 'a b' c; printf '<%s>' $*; echo
#### ifs-local-in-function
f() { local IFS=,; echo "$*"; }; f a b c; echo "$*x"
#### dollar-at-empty
set --; printf '<%s>' "$@"; echo "n=$#"
#### ifs-whitespace-tab
IFS=$'\t'; x=$'a\t\tb'; printf '<%s>' $x; echo
#### ifs-colon-path-loop
P=/usr/bin::/bin:; IFS=:; for d in $P; do echo "[$d]"; done; set -- $P; echo $#
#### ifs-comma-glob-fields
touch f1 f2; IFS=,; g='f*,z,,'; printf '<%s>' $g; echo; set -f; printf '<%s>' $g; echo
#### ifs-local-nonblank
f() { local IFS=,; local x='a,,b'; printf '<%s>' $x; echo; }; f; x='c d'; printf '<%s>' $x; echo
