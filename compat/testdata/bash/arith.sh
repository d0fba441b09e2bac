# Shell arithmetic (6.5), $(( )), (( )), let.
#### basic-ops
echo $((1+2*3)) $(( (1+2)*3 )) $((7/2)) $((7%3)) $((-7/2)) $((-7%3)) $((2**10))
#### bit-ops
echo $((5&3)) $((5|3)) $((5^3)) $((~5)) $((1<<4)) $((256>>2))
#### logic-ops
echo $((1&&0)) $((1||0)) $((!0)) $((3>2)) $((3<=2)) $((2==2)) $((2!=2))
#### ternary
x=5; echo $((x>3 ? 10 : 20))
#### assignment-ops
x=10; ((x+=5)); ((x-=3)); ((x*=2)); ((x/=4)); ((x%=4)); echo $x
#### increment
x=1; echo $((x++)) $x $((++x)) $((x--)) $((--x))
#### bases
echo $((0x1F)) $((010)) $((2#1011)) $((36#z)) $((16#ff))
#### var-names-in-arith
a=3 b=4; echo $((a*a+b*b))
#### var-recursive
a=b b=c c=7; echo $((a+1))
#### unset-is-zero
unset z; echo $((z+1))
#### comma
echo $((a=1, b=2, a+b))
#### arith-command-status
((0)); echo $?; ((5)); echo $?
#### let
let x=2+3 y=x*2; echo $x $y; let 0; echo $?
#### division-by-zero
## differs: arithmetic errors: mvdan prints this error itself, in its own words and status (bash ends the command line)
echo $((1/0)); echo after
#### division-by-zero-status
## differs: arithmetic errors: mvdan prints this error itself, in its own words and status
(( 1/0 )); echo st=$?
#### overflow-wrap
echo $((9223372036854775807+1))
#### negative-power
## differs: arithmetic errors: mvdan prints this error itself, in its own words and status
echo $((2**-1))
#### arith-in-array-index
a=(10 20 30); i=1; echo ${a[i+1]} ${a[$i]}
#### arith-assign-array
a=(); (( a[2]=5 )); echo "${a[@]}" ${#a[@]}
#### arith-assign-empty-index
i=0; (( b[i]=7, b[i+1]=8 )); echo "${b[@]}"
#### arith-string-value
## differs: a variable holding an expression (x='1+2') is not evaluated recursively (mvdan)
x='1+2'; echo $((x*2))
#### arith-syntax-error
## differs: arithmetic syntax errors are parse errors in mvdan (bash: run time)
echo $((1+)); echo after
#### arith-for
for ((i=0; i<3; i++)); do echo $i; done
#### arith-for-empty
for ((;;)); do echo once; break; done
#### declare-i
declare -i n; n=3+4; echo $n; n+=1; echo $n
#### arith-spaces-dollar
x=4; echo $(( $x * 2 )) $(( x * 2 ))
#### arith-compare-strings
x=abc; echo $((x == 0))
#### arith-large
echo $((1<<62)) $((-9223372036854775807-1))
#### printf-big-int
printf '%d\n' 9223372036854775807; printf '%d\n' 9223372036854775808; echo st=$?
#### printf-negative-big
printf '%d\n' -9223372036854775809; echo st=$?
