# Variable assignment (3.4) and the quoting of assigned values.
#### unquoted-backslash-space
x=a\ b; echo "$x"
#### quote-join-value
x='a'\''b'; echo "$x"
#### backslash-dollar
x=\$HOME; echo "$x"
#### backslash-backslash
x=a\\b; echo "$x"
#### export-backslash
export x=a\ b; echo "$x"; sh -c 'echo "$x"'
#### local-backslash
f() { local x=a\ b y='c'\''d'; echo "$x|$y"; }; f
#### declare-backslash
declare x=a\ b; echo "$x"
#### readonly-backslash
readonly x=a\ b; echo "$x"
#### assign-dq-escapes
x="a\"b\\c\$d"; echo "$x"
#### assign-mixed-quotes
x=a"b c"'d e'f; echo "$x"
#### assign-no-glob
touch a1 a2; x=a*; echo "$x"
#### assign-no-split
y='1  2'; x=$y; echo "$x"
#### prefix-assignment
x=outer; x=inner sh -c 'echo $x'; echo $x
#### prefix-assignment-builtin
x=1; x=2 : ; echo $x
#### prefix-assignment-function
f() { echo "in:$v"; }; v=pre f; echo "out:[$v]"
#### append-string
x=a; x+=b; x+=" c"; echo "$x"
#### append-integer
declare -i n=1; n+=2; echo $n
#### multiple-assign
a=1 b=2 c=$a$b; echo $c
#### assign-then-expand-same-line
a=1 b=$a; echo $b
#### configure-style-cc
ac_cv_prog_cc_c11=no; ac_arg=-std=gnu11; CC="cc $ac_arg"; echo "$CC"
#### configure-quoted-assign
as_nl='
'; export as_nl; as_echo='printf %s\n'; $as_echo "x$as_nl" | od -An -c
#### configure-backslash-continue
ac_c_conftest_c89_globals='
/* comment */
#include <stdio.h>
'; printf '%s' "$ac_c_conftest_c89_globals" | wc -l
#### env-prefix-export
FOO=1 env | grep '^FOO='
#### assign-tilde-unquoted-colon
x=a:~:b; echo "$x" | sed "s#$HOME#H#g"
#### assign-array-element-backslash
a[0]=x\ y; echo "${a[0]}"
#### assign-case-value
x=$(case 1 in 1) echo one;; esac); echo $x
#### assign-readonly-error
## differs: an assignment to a readonly variable does not abort the rest of the line (mvdan)
readonly r=1; r=2; echo after
#### assign-invalid-name
1x=2; echo st=$?
