# Quoting (bash manual 3.1.2): escape character, single and double quotes,
# ANSI-C quoting, locale translation.
#### backslash-escape
echo a\ b \$x \\ \" \'
#### backslash-newline
echo abc\
def
#### single-quotes-literal
echo '$HOME `x` \n "q"'
#### single-quote-join
echo 'a'\''b'
#### double-quotes-expand
x=val; echo "x=$x ${x} $(echo sub) $((1+2))"
#### double-quote-backslash
echo "a\$b a\`b a\\b a\"b a\nb a\'b"
#### double-quote-backslash-newline
echo "ab\
cd"
#### ansi-c-escapes
echo $'a\tb\nc' $'\x41\101\u00e9' $'\'' $'\\'
#### ansi-c-control
## differs: $'\cA' (control characters): mvdan's parser keeps it literally
printf '%s' $'\cA' | od -An -c
#### ansi-c-escape-e
printf '%s\n' $'\e' | od -An -tx1
#### locale-translation
echo $"hello"
#### empty-quotes-word
set -- '' "" a; echo $#
#### quotes-mixed
echo "a"'b'c"d e"'f g'
#### quote-in-assignment-dq
x="a b"; echo "$x"
#### nested-dq-cmdsubst
echo "$(echo "inner "quoted" word")"
#### backtick-escape
echo `echo \`echo nested\``
#### backtick-dollar
x=1; echo `echo \$x`
#### dq-at-star
set -- a b; echo "$*" "$@"
#### hash-not-comment-midword
echo a#b #c
#### quoted-hash
echo '#' "#" \#
#### dollar-at-end
echo "a$" 'b$' c$
#### dq-tilde
echo "~" '~'
#### escaped-glob
touch a1 a2; echo a\* "a*" 'a*' a*
#### quote-removal-after-expansion
x='"q"'; echo $x
#### backslash-in-var-unquoted
x='a\b'; echo $x "$x"
#### printf-q-roundtrip
printf '%q\n' "a b" "it's" $'tab\t' ''
#### dollar-single-in-dq
echo "$'x'"
#### unicode
echo "héllo wörld" | wc -c
