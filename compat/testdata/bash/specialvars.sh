# Special parameters (3.4.2) and shell variables (5).
#### dollar-hash
set -- a b c; echo $#
#### dollar-question
false; echo $?; true; echo $?
#### dollar-zero
echo $0
#### dollar-dollar-subshell
[ "$$" = "$(echo $$)" ] && echo same
#### dollar-bang
sleep 0 & [ -n "$!" ] && echo has-pid; wait
#### dollar-underscore
echo one two; echo "$_"
#### dollar-underscore-assignment
: last-arg; x=$_; echo $x
#### dollar-dash
set -e; case $- in *e*) echo has-e;; esac
#### dollar-at-quoted-empty
set -- '' ''; printf '<%s>' "$@"; echo
#### lineno
echo $LINENO
echo $LINENO
#### random-range
r=$RANDOM; [ $r -ge 0 ] && [ $r -le 32767 ] && echo ok
#### random-seed
RANDOM=42; a=$RANDOM; RANDOM=42; b=$RANDOM; [ $a = $b ] && echo seeded
#### seconds
[ $SECONDS -ge 0 ] && echo ok
#### bash-version
[ -n "$BASH_VERSION" ] && echo "${BASH_VERSINFO[0]}"
#### ppid
[ -n "$PPID" ] && echo ok
#### uid
[ "$UID" = "$(id -u)" ] && [ "$EUID" = "$(id -u)" ] && echo ok
#### pwd-var
[ "$PWD" = "$(pwd)" ] && echo ok
#### ifs-default
printf '%q\n' "$IFS"
#### shlvl
echo $SHLVL
#### bashopts
## differs: BASHOPTS is not set
echo "$BASHOPTS" | tr : '\n' | grep -c .
#### shellopts
## differs: SHELLOPTS is not set
set -e; echo "$SHELLOPTS" | tr : '\n' | grep -x errexit
#### optind-default
echo $OPTIND
#### bash-subshell
## differs: BASH_SUBSHELL is not set
echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL)
#### hostname
[ "$HOSTNAME" = "$(hostname)" ] && echo ok
#### ps4
set -x; echo traced
#### dollar-star-set-u
set -u; echo "[$*]"
#### groups
## differs: GROUPS is not set
[ -n "${GROUPS[0]}" ] && echo ok
#### pipestatus-single
## differs: PIPESTATUS after a single command keeps the last pipeline's values (docs/compatibility.md)
true; echo ${PIPESTATUS[@]}
#### bash-argv0
## differs: BASH_ARGV0 is not set
echo "${BASH_ARGV0:-unset}"
#### histcmd
## differs: no history: HISTCMD is unset
echo ${HISTCMD+set}
#### ppid-of-child-script
printf '#!/bin/bash\n[ "$PPID" = "$1" ] && echo child-ppid-is-parent\n' > s; chmod +x s; ./s $$; echo st=$?
#### ppid-of-bash-c
bash -c '[ "${PPID}" = "$1" ] && echo same' _ $$; sh -c 'test "$PPID" = "$1" && echo sh-same' _ $$; echo st=$?
#### ppid-in-subshell-unchanged
p=$PPID; ( [ "$PPID" = "$p" ] && echo sub-same ); x=$(echo "$PPID"); [ "$x" = "$p" ] && echo cmdsubst-same
#### pid-of-child-differs
printf '#!/bin/bash\n[ "$$" != "$1" ] && echo own-pid; kill -0 $$ && echo alive\n' > s; chmod +x s; ./s $$; echo st=$?
#### pid-child-temp-files-apart
printf '#!/bin/bash\necho "$1" > t.$$; cat t.$$; rm t.$$\n' > s; chmod +x s; echo parent > t.$$; ./s child; ./s child2; cat t.$$; echo st=$?
#### pid-grandchild-ppid-chain
printf '#!/bin/bash\n[ "$PPID" = "$1" ] && echo ppid-ok; bash -c %s _ $$; :\n' "'[ \"\$PPID\" = \"\$1\" ] && echo grand-ok'" > s; chmod +x s; ./s $$; echo st=$?
#### pid-same-in-subshell
p=$$; ( [ "$$" = "$p" ] && echo same ); [ "$(echo $$)" = "$p" ] && echo same2; echo $(( $$ == p ))
