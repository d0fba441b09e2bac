# Compound commands (3.2.5).
#### if-elif-else
for x in 1 2 3; do if [ $x = 1 ]; then echo one; elif [ $x = 2 ]; then echo two; else echo other; fi; done
#### while-break-continue
i=0; while :; do i=$((i+1)); [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done
#### until
i=0; until [ $i -ge 3 ]; do echo $i; i=$((i+1)); done
#### for-positional
set -- a b; for x; do echo $x; done
#### for-empty
for x in; do echo never; done; echo done
#### nested-break
for i in 1 2; do for j in a b; do [ $j = b ] && break 2; echo $i$j; done; done
#### continue-n
for i in 1 2; do for j in a b; do continue 2; echo no; done; done; echo ok
#### case-default
case zzz in a) echo a;; *) echo default;; esac
#### case-quoted-pattern
x='*'; case abc in "$x") echo literal;; *) echo glob;; esac
#### select
echo 2 | select x in a b c; do echo "$x $REPLY"; break; done 2>/dev/null
#### dbl-bracket-logic
[[ -n a && ( -z '' || 1 -eq 2 ) ]] && echo ok
#### dbl-bracket-compare
[[ b > a ]] && echo gt; [[ 10 -lt 9 ]] || echo numlt
#### dbl-bracket-no-split
x='a b'; [[ $x == 'a b' ]] && echo ok
#### dbl-bracket-v
x=1; [[ -v x ]] && echo set; [[ -v nope ]] || echo unset
#### arith-cond
(( 2 > 1 )) && echo yes
#### while-read-pipe-status
## differs: the status of a pipeline ending in a while loop whose last body command was a subshell is 0 (mvdan)
printf 'a\n' | while read l; do (exit 3); done; echo $?
#### loop-status
for i in 1; do false; done; echo $?
#### break-outside
## differs: break outside a loop: mvdan prints this error itself, in its own words and status
break; echo st=$?
#### group-one-line
{ echo a; echo b; }
#### if-status
if false; then :; fi; echo $?
#### case-empty
case '' in '') echo empty;; esac
#### case-bracket
case b in [abc]) echo class;; esac
#### syntax-error-fi
## differs: syntax error wording: mvdan's parser
if true; then echo x; fi fi
#### syntax-error-paren
## differs: syntax error wording: mvdan's parser
echo (
#### syntax-error-done
done
#### until-false-body
until true; do echo never; done; echo $?
