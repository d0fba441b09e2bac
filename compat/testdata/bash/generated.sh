# Programs the generator (gen_test.go) found to differ from bash, kept as rows.
# Each is marked with why; TestBash checks the marks stay true.
#### gen-1-139-function-error-name
## differs: bash -c names errors inside a function "environment: line N:" (its functions come from the -c string); guardsh names the shell
x='a*b'; n=1; arr=('*' x); declare -A m=([k]=1 [j]=2); set -- a b c d
x="a\"b"; printf '[%s]\n' "$x"
f() { [ "${arr[@]}" = "*" ] && echo same || echo differ; return 2; }; f "${arr[@]:1}" "${x}j" ${x%?}; echo "st=$?"
#### gen-7-76
## differs: bash -c names errors inside a function "environment: line N:"; guardsh names the shell
x=' sp  aced '; n=0; arr=(a '' c); declare -A m=(); set -- ''
f() { [ "$@" = a:b ] && echo same || echo differ; return 0; }; f '$x' $x ${#arr[@]}; echo "st=$?"
( export E=$n; sh -c 'printf "<%s>\n" "$E"' ); echo "sub=$?"
#### gen-7-525
## differs: bash -c names errors inside a function "environment: line N:"; guardsh names the shell
x=abc; n=5; arr=(); declare -A m=([k]='w z'); set --
[ ${x:+alt} = 'x y z' ] && echo same || echo differ
f() { [ {a,b}c = 'x y z' ] && echo same || echo differ && echo ok || echo failed; return 0; }; f ${x^^}; echo "st=$?"
