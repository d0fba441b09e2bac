# Filename expansion (3.5.8) and pattern matching.
#### star
touch a.txt b.txt c.log; echo *.txt
#### question
touch a1 a2 a10; echo a?
#### bracket
touch a b c d; echo [a-c] [!a-c] [^ab]
#### no-match-literal
echo *.nomatch
#### nullglob
shopt -s nullglob; echo [*.nomatch]
#### failglob
## differs: shopt -s failglob is accepted but not applied (mvdan's globbing)
shopt -s failglob; echo *.nomatch; echo st=$?
#### dotfiles-hidden
touch .h v; echo *
#### dotglob
shopt -s dotglob; touch .h v; echo *
#### globstar
shopt -s globstar; mkdir -p a/b/c; touch a/b/c/f a/f; echo **/f
#### no-globstar
mkdir -p a/b; touch a/b/f a/f; echo **/f
#### extglob
## differs: shopt -s extglob on the same line as the pattern: bash parses the line before the shopt runs (a syntax error); guardsh accepts it
shopt -s extglob; touch a.c b.h c.o; echo !(*.o); echo @(a|b).*; echo +(a).c
#### nocaseglob
shopt -s nocaseglob; touch ABC; echo a*
#### glob-sorted
touch b a C; echo *
#### glob-in-dir
mkdir d; touch d/x d/y; echo d/*
#### glob-quoted-part
touch 'a b'; echo "a "*
#### glob-char-class
touch a1 b2 3c; echo [[:digit:]]*
#### glob-noglob
set -f; touch x; echo *; set +f; echo *
#### glob-in-var
touch p1 p2; g='p*'; echo $g "$g"
#### glob-dir-slash
mkdir d1 d2; touch f; echo */
#### case-pattern
for w in apple banana cherry; do case $w in a*) echo A;; b*|c*) echo BC;; esac; done
#### case-fallthrough
case x in x) echo one;;& x) echo two;; esac; case y in y) echo three;& z) echo four;; esac
#### dbl-bracket-pattern
[[ abc == a* ]] && echo m1; [[ abc == "a*" ]] || echo m2; [[ abc == a?c ]] && echo m3
#### dbl-bracket-regex
[[ abc123 =~ ^([a-z]+)([0-9]+)$ ]] && echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
#### dbl-bracket-regex-var
## differs: a quoted part of a [[ =~ ]] regex is not literal (mvdan)
re='^a.c$'; [[ abc =~ $re ]] && echo yes; [[ abc =~ "a.c" ]] || echo quoted-literal
#### glob-ignore
## differs: GLOBIGNORE is not supported (mvdan's globbing)
GLOBIGNORE='*.o'; touch a.o b.c; echo *
#### glob-escape-bracket
touch '[x]'; echo \[x\]
