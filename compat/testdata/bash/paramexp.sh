# Shell parameter expansion (3.5.3).
#### default-value
unset u; e=; echo "${u-d1} ${u:-d2} ${e-d3} ${e:-d4}"
#### assign-default
unset u; echo "${u:=set}" "$u"
#### error-if-unset
## differs: ${u:?msg}: mvdan prints this error itself, in its own words and status (no line prefix, status 1 where bash -c exits 127)
unset u; echo "${u:?is unset}"; echo after
#### alternate
v=1; e=; echo "[${v+alt}] [${v:+alt}] [${e+alt}] [${e:+alt}] [${nope+alt}]"
#### substring
s=abcdefgh; echo ${s:2} ${s:2:3} ${s: -3} ${s: -3:2} ${s:1:-2}
#### substring-positional
set -- a b c d e; echo ${@:2} ${@:2:2} ${@: -1}
#### length
s=hello; set -- a b c; echo ${#s} ${#} ${#@}
#### length-unicode
s=héllo; echo ${#s}
#### prefix-removal
p=/usr/local/bin/tool.tar.gz; echo ${p#*/} ${p##*/} ${p%.*} ${p%%.*}
#### pattern-substitution
s=aaa-bbb-aaa; echo ${s/a/X} ${s//a/X} ${s/#a/X} ${s/%a/X} ${s/b*/Y}
#### pattern-substitution-empty
s=abc; echo "${s/b/}" "${s//[ac]}"
#### case-modification
## differs: ${x~} (toggle case) is not parsed by mvdan
s='hello World'; echo ${s^} ${s^^} ${s,} ${s,,} ${s~}
#### case-mod-pattern
s=banana; echo ${s^^a} ${s//[an]/.}
#### indirect
name=target; target=value; echo ${!name}
#### prefix-names
aa1=1 aa2=2; echo ${!aa*}
#### transform-Q
s="it's here"; echo ${s@Q}
#### transform-U-L
s=mIxEd; echo ${s@U} ${s@L} ${s@u}
#### transform-E
s='a\tb'; echo "${s@E}"
#### transform-A
## differs: ${x@A} quoting: mvdan's expansion (expand package) differs; guardsh has no hook inside it
s=val; echo ${s@A}
#### transform-a
## differs: ${x@a}: mvdan's expansion (expand package) differs; guardsh has no hook inside it
declare -i n=1; declare -a arr; echo "${n@a}" "${arr@a}"
#### nested-default
unset a b; echo ${a:-${b:-deep}}
#### default-quoted-words
unset U; printf '<%s>' ${U:-"a b" c}; echo
#### default-quoted-inner
unset U; printf '<%s>' "${U:-"a b" c}"; echo
#### strip-newline-suffix
r=$'line1\nline2'; echo "${r%$'\n'*}"; echo "${r#*$'\n'}"
#### strip-quoted-pattern
## differs: quoted parts of a ${x%pattern} are not literal: mvdan's expansion (expand package) differs; guardsh has no hook inside it
s='a*b*c'; echo "${s%'*'*}" "${s#"a*"}"
#### remove-with-var-pattern
p=b; s=abc; echo ${s#a$p}
#### dollar-at-in-word
set -- 1 2 3; printf '<%s>' "-$@-"; echo
#### dollar-star-in-word
set -- 1 2 3; printf '<%s>' "-$*-"; echo
#### at-subst
set -- ab cb; echo "${@/b/X}"
#### length-of-array-element
a=(one three); echo ${#a[1]}
#### unset-var-set-u-default
set -u; echo "${nope:-ok}" "${nope-ok2}"
#### set-u-unbound
set -u; echo $nope; echo after
#### set-u-at-empty
set -u; set --; echo "[$@]" "[$*]" $#
#### special-chars-in-default
unset u; echo "${u:-a}b}"
#### positional-braces
## differs: ${10} and above: mvdan's expansion (expand package) differs; guardsh has no hook inside it
set -- a b c d e f g h i j k; echo $10 ${10} ${11}
#### brace-var-concat
x=v; echo "${x}suffix" "$xsuffix."
#### substring-negative-error
## differs: ${s:1:-5} beyond the start: mvdan's expansion (expand package) differs; guardsh has no hook inside it (bash: an error)
s=abc; echo "${s:1:-5}"; echo after
#### bad-substitution
## differs: mvdan's parser rejects ${x!} at parse time (bash: at run time, status 1)
echo ${x!}; echo after
#### pattern-class
s=a1b2c3; echo ${s//[0-9]/_} ${s//[[:alpha:]]/}
#### anchored-star
s=abcabc; echo ${s/#abc/X} ${s/%abc/Y}
#### replacement-ampersand
## differs: & in a ${x/p/r} replacement (bash 5.2 patsub_replacement): mvdan's expansion (expand package) differs; guardsh has no hook inside it
s=abc; echo "${s/b/[&]}"
#### strip-newline-suffix-shortest
r=$'a\nb\nc\nd'; s="${r##*$'\n'}"; r="${r%$'\n'*}"; echo "[$s] [$r]"; f() { local x="${1%$'\n'*}"; echo "[$x]"; }; f "$r"
#### strip-newline-suffix-unquoted
r=$'l1\nl2\nl3'; printf '<%s>' ${r%$'\n'*}; echo
#### anchored-replacements
s=aaa-bbb-aaa; echo ${s/#a*/X} ${s/%-*/X}; set -- ab cb; echo "${@/#?/Z}" ${@/%b/\*}; p=a; echo "${s/#$p/[$p]}" "${s/#"a*"/Q}"; x='a*b'; echo "${x/#"a*"/Q}"; u=; echo "[${u/#/pre}]"
#### anchored-replacement-in-function
f() { local v=${1/#-/}; echo "$v ${2/%.txt/.md}"; }; f -opt notes.txt
#### transform-Q-forms
t=$'a\tb'; e=; a=(x 'y z'); echo ${t@Q} ${e@Q} "${a[@]@Q}"; set -- "it's"; echo "${1@Q}"
#### default-words-forms
unset U; V='p q'; E=; printf '<%s>' ${U-x"y z"} ${V:-"a b"} ${V:+"1 2" 3} ${E:-""} ${E-""} x; echo
#### suffix-strip-single-quote
x="it's here"; echo "${x% here}"
#### anchored-replace-single-quote
x="a'b"; echo "${x/#a/it\'s-}"
#### quote-op-single-quote
x="it's"; echo "${x@Q}"
