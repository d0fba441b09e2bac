# Pipelines and lists (3.2.3, 3.2.4).
#### simple-pipe
echo abc | tr b X
#### status-last
false | true; echo $?; true | false; echo $?
#### pipefail
set -o pipefail; false | true; echo $?; (exit 3) | (exit 0); echo $?
#### negation
! true; echo $?; ! false; echo $?
#### pipestatus
false | true | (exit 3); echo "${PIPESTATUS[@]}"
#### pipe-subshell-var
x=1; echo 2 | read x; echo $x
#### lastpipe
shopt -s lastpipe; set +m; echo 2 | read x; echo $x
#### pipe-stderr
{ echo e >&2; } |& cat
#### and-or
true && echo a; false && echo b; false || echo c; true || echo d
#### and-or-chain
false && echo x || echo y && echo z
#### list-semicolon
echo 1; echo 2 ; echo 3
#### background-wait
(echo bg) & wait; echo done
#### background-status
(exit 4) & wait $!; echo $?
#### group-vs-subshell
x=1; { x=2; }; echo $x; (x=3); echo $x
#### subshell-exit
(exit 7); echo $?
#### group-redirect
{ echo a; echo b; } | wc -l
#### pipe-into-while
printf '1\n2\n' | while read n; do echo "n=$n"; done
#### pipe-head-sigpipe
yes | head -2
#### long-pipe
seq 1 5 | tac | sort -n | tail -1
#### pipe-builtin-loop
for i in a b; do echo $i; done | sort -r
#### time-keyword-posix
{ time -p true; } 2>&1 | sed -E 's/[0-9]+\.[0-9]+/N/'; echo ok
#### coproc
## differs: coproc is not supported (mvdan)
coproc cat; echo hi >&"${COPROC[1]}"; exec {COPROC[1]}>&-; read l <&"${COPROC[0]}"; echo $l
