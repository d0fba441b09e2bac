# Redirections (3.6) and file descriptors.
#### out-and-append
echo a > f; echo b >> f; cat f
#### input
printf 'x\ny\n' > f; wc -l < f
#### stderr-to-file
ls /nonexistent-dir 2> err; echo st=$?; wc -l < err
#### stderr-to-stdout
{ echo out; echo err >&2; } 2>&1 | sort
#### both-to-file
{ echo out; echo err >&2; } &> f; sort f
#### both-append
echo 1 > f; { echo 2; echo 3 >&2; } &>> f; cat f
#### order-matters
{ echo err >&2; } 2>&1 >/dev/null | cat
#### fd3-exec-write
exec 3> f; echo via3 >&3; exec 3>&-; cat f
#### fd3-exec-read
printf 'l1\nl2\n' > f; exec 4< f; read -u 4 a; read b <&4; echo "$a $b"; exec 4<&-
#### fd-swap
{ echo out; echo err >&2; } 3>&1 1>&2 2>&3 2>/dev/null
#### fd3-on-command
f() { echo to3 >&3; }; f 3> out; cat out
#### fd3-child-process
sh -c 'echo child >&3' 3> out; cat out
#### fd-high-10
exec 10> f; echo ten >&10; exec 10>&-; cat f
#### fd-named-var
exec {fd}> f; echo named >&$fd; exec {fd}>&-; cat f; [ "$fd" -ge 10 ] && echo ok
#### fd-dup-input
printf 'a\n' > f; exec 3< f; cat <&3
#### here-string
cat <<< 'here string'; cat <<< "$HOME" | wc -l
#### here-string-fd3
read -u 3 v 3<<< 'from3'; echo $v
#### here-string-var
x='a b'; read p q <<< "$x"; echo $q
#### dev-null
echo gone > /dev/null; cat < /dev/null; echo ok
#### redirect-empty-name
echo foo > ""; echo st=$?
#### redirect-missing-input
cat < /nonexistent-file; echo st=$?
#### redirect-dir
echo x > /; echo st=$?
#### noclobber
set -C; echo 1 > f; echo 2 > f; echo st=$?; echo 3 >| f; cat f
#### noclobber-devnull
set -C; echo x > /dev/null; echo st=$?
#### read-write-fd
echo hi > f; exec 5<> f; read -u 5 l; echo $l; exec 5>&-
#### redirect-in-loop
for i in 1 2 3; do echo $i; done > f; cat f
#### redirect-while-read
printf 'a\nb\n' > f; while read l; do echo "[$l]"; done < f
#### redirect-block
{ echo a; echo b; } > f; wc -l < f
#### redirect-before-command
> f echo first; cat f
#### redirect-ambiguous
## differs: a redirection target that splits into words is not an error (mvdan joins them)
x='a b'; echo hi > $x; echo st=$?
#### redirect-glob-target
## differs: a glob in a redirection's target is not expanded (mvdan)
touch t1; echo data > t*; cat t1
#### close-stdout
## differs: writing to a closed stdout succeeds: mvdan's >&- gives the command a discarding writer
( exec >&-; echo nothing ) 2>/dev/null; echo st=$?
#### dev-stderr
echo to-err > /dev/stderr 2>&1 | cat
#### dev-fd
echo hi > f; cat /dev/fd/0 < f
#### process-subst-in
cat <(echo from-ps)
#### process-subst-diff
diff <(printf 'a\nb\n') <(printf 'a\nc\n'); echo st=$?
#### process-subst-out
echo b a | tr ' ' '\n' > >(sort); wait; sleep 0.2
#### process-subst-tac
printf '1\n2\n' > >(tac); sleep 0.3
#### fd-in-sourced-file
printf 'exec 3>out\necho s >&3\nexec 3>&-\n' > lib.sh; . ./lib.sh; cat out
#### redirect-errors-message
echo x > /nonexistent/dir/f
#### fd3-in-child-script-pipe
printf '#!/bin/bash\nexec 3<&1\necho to3 >&3\n' > s; chmod +x s; ./s | cat; echo st=$?
#### fd3-in-bash-c-pipe
bash -c 'exec 3>&1; echo x >&3' | cat; echo st=$?
#### fd3-child-does-not-change-parent
exec 3> f; bash -c 'exec 3> g; echo child >&3'; echo parent >&3; exec 3>&-; cat f; echo --; cat g
#### fd3-inherited-by-child-shell
exec 3> f; bash -c 'echo from-child >&3'; exec 3>&-; cat f
#### fd3-in-process-substitution
printf '#!/bin/bash\nexec 3<&1\necho to3 >&3\n' > s; chmod +x s; cat < <(./s); echo st=$?
