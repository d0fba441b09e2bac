# Associative arrays (6.7).
#### declare-A-literal
declare -A m=([a]=1 [b]=2); echo ${m[a]} ${m[b]}
#### assoc-count
declare -A m=([a]=1 [b]=2 [c]=3); echo ${#m[@]}
#### assoc-keys-sorted
declare -A m=([x]=1 [y]=2 [z]=3); printf '%s\n' "${!m[@]}" | sort
#### assoc-assign
## differs: m["two words"]=w: mvdan's parser reads the key as arithmetic
declare -A m; m[k]=v; m["two words"]=w; echo "${m[k]} ${m[two words]}"
#### assoc-unset
declare -A m=([a]=1 [b]=2); unset 'm[a]'; echo ${#m[@]} ${m[b]}
#### assoc-test-exists
## differs: [[ -v m[key] ]]: mvdan's test
declare -A m=([a]=1); [[ -v m[a] ]] && echo yes; [[ -v m[b] ]] || echo no
#### assoc-default
declare -A m; echo "${m[nope]:-default}"
#### assoc-plus
declare -A m=([a]=x); m[a]+=y; m+=([b]=z); echo ${m[a]} ${m[b]}
#### assoc-declare-p
## differs: declare -p of an associative array: mvdan's layout (no space before ')')
declare -A m=([k]=v); declare -p m
#### assoc-var-key
declare -A m; k=key; m[$k]=val; echo ${m[key]} ${m[$k]}
#### assoc-values-sorted
declare -A m=([a]=3 [b]=1 [c]=2); printf '%s\n' "${m[@]}" | sort
#### assoc-local
f() { local -A l=([q]=1); echo ${l[q]}; }; f
#### assoc-key-with-spaces-literal
## differs: quoted keys with spaces in an array literal: mvdan's parser
declare -A m=(["a b"]=1 ['c d']=2); echo "${m[a b]}${m[c d]}"
#### assoc-iterate
declare -A m=([one]=1 [two]=2); for k in "${!m[@]}"; do echo "$k=${m[$k]}"; done | sort
#### assoc-numeric-keys
declare -A m=([10]=a [2]=b); echo ${m[10]} ${m[2]}
#### assoc-key-arith-not
## differs: m[1+1]=x: mvdan evaluates the key as arithmetic
declare -A m; m[1+1]=x; echo "${!m[@]}"
#### assoc-length-value
declare -A m=([k]=hello); echo ${#m[k]}
#### assoc-unset-whole
## differs: unset of a whole associative array then ${#m[@]}: mvdan's error
declare -A m=([k]=1); unset m; echo "${#m[@]}"
#### assoc-declare-then-assign
## differs: m=([x]=1 [y]=2) after declare -A m on another statement: mvdan does not know m is associative when it parses the keys
declare -A m; m=([x]=1 [y]=2); echo ${m[x]}${m[y]}
