# Brace expansion (3.5.1), tilde expansion (3.5.2), process order.
#### brace-list
echo a{b,c,d}e
#### brace-range
echo {1..5} {a..e} {5..1}
#### brace-step
echo {0..10..3} {a..k..2}
#### brace-zero-pad
echo {01..10}
#### brace-nested
echo {a,b{1,2}}
#### brace-no-expand-single
## differs: {,} expands to two empty words that mvdan keeps as separate empty arguments
echo {a} {a,} {,}
#### brace-quoted
echo "{a,b}" '{1..3}'
#### brace-with-var
x=1; echo {$x,2}
#### brace-var-range-literal
n=3; echo {1..$n}
#### brace-cartesian
echo {a,b}{1,2}
#### brace-paths
echo /usr/{bin,lib}/x
#### brace-negative
echo {-2..2}
#### tilde-home
[ ~ = "$HOME" ] && echo same
#### tilde-slash
echo ~/x | sed "s#$HOME#H#"
#### tilde-user
echo ~root
#### tilde-plus-minus
## differs: ~+ and ~- are not expanded (mvdan)
cd /; cd /tmp; echo ~+ ~-
#### tilde-in-assignment
x=~/p; echo $x | sed "s#$HOME#H#"
#### tilde-in-colon-assignment
PATH2=/a:~/b; echo $PATH2 | sed "s#$HOME#H#"
#### tilde-quoted
echo "~" ~nosuchuser_q
#### tilde-after-equals-arg
echo --opt=~/x | sed "s#$HOME#H#"
#### expansion-order
x='*'; touch f; echo $x "${x}"
#### brace-before-param
a=1 b=2; x=a; echo ${x}{1,2}
