# Indexed arrays (6.7).
#### literal-and-index
a=(x y z); echo ${a[0]} ${a[2]} $a
#### all-elements
a=(x 'y z' w); printf '<%s>' "${a[@]}"; echo; printf '<%s>' "${a[*]}"; echo
#### count
a=(1 2 3 4); echo ${#a[@]} ${#a[*]}
#### indices
a=([1]=a [5]=b [9]=c); echo ${!a[@]}
#### sparse-assign
a[3]=x; a[7]=y; echo ${#a[@]} "${a[@]}"
#### append
a=(1); a+=(2 3); a[10]=z; a+=(q); echo "${a[@]}" ${!a[@]}
#### element-append
a=(ab); a[0]+=cd; echo ${a[0]}
#### negative-index
a=(1 2 3); echo ${a[-1]} ${a[-2]}
#### slice
a=(a b c d e); echo ${a[@]:1:3} ${a[@]: -2}
#### unset-element
a=(a b c); unset 'a[1]'; echo ${#a[@]} ${!a[@]} "${a[@]}"
#### unset-whole
a=(a b); unset a; echo "${#a[@]}"
#### array-subst
a=(foo bar baz); echo "${a[@]/a/A}" "${a[@]#b}"
#### array-prefix-subst
a=(x y); printf '<%s>' "${a[@]/#/p-}"; echo
#### array-suffix-subst
a=(x y); printf '<%s>' "${a[@]/%/-s}"; echo
#### array-length-element
a=(abc de); echo ${#a[0]} ${#a[1]}
#### declare-a
declare -a arr=(1 2); arr+=(3); declare -p arr
#### declare-p-array
a=(x 'y z'); declare -p a
#### array-in-for
a=(1 'two words' 3); for e in "${a[@]}"; do echo "[$e]"; done
#### array-from-split
s='a b c'; a=($s); echo ${#a[@]}
#### array-from-glob
touch f1 f2 f3; a=(f*); echo ${#a[@]} "${a[@]}"
#### array-copy
a=(1 2 3); b=("${a[@]}"); b[0]=x; echo "${a[@]}" "${b[@]}"
#### array-empty-set-u
set -u; a=(); echo "${a[@]}" ok
#### array-empty-default
a=(); printf '<%s>' "${a[@]:-}"; echo
#### mapfile-basic
printf '1\n2\n3\n' > f; mapfile -t a < f; echo ${#a[@]} "${a[@]}"
#### mapfile-set-u
set -u; printf 'x\ny\n' > f; mapfile -t a < f; printf '<%s>' "${a[@]}"; echo
#### readarray-no-t
printf 'a\nb\n' | { readarray a; printf '<%s>' "${a[@]}"; }; echo
#### mapfile-delim
printf 'a,b,c' | { mapfile -d , -t a; echo ${#a[@]} "${a[1]}"; }
#### read-a
read -ra parts <<< 'x y z'; echo ${#parts[@]} ${parts[2]}
#### array-star-ifs
a=(a b c); IFS=,; echo "${a[*]}"
#### array-element-unset-var
a=(1); echo "[${a[5]}]"
#### array-index-expr
a=(0 1 2 3 4); i=2; echo ${a[i*2]}
#### array-keys-quoted
a=(x y); for k in "${!a[@]}"; do echo $k; done
#### array-plus-string
a=1; a+=(2); declare -p a
#### array-scalar-assign
a=(1 2); a=z; echo "${a[@]}"
#### local-array
f() { local -a l=(1 2); echo ${#l[@]}; }; f; echo "[${l[@]}]"
#### array-in-arith
a=(5 6); echo $(( a[0] + a[1] ))
#### array-assign-spaces
a=( 'one' "two" three ); echo ${#a[@]}
