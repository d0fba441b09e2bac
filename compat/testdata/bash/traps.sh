# trap (4.1) and signals.
#### trap-exit
trap 'echo exiting' EXIT; echo body
#### trap-exit-status
trap 'echo "st=$?"' EXIT; (exit 3); exit
#### trap-exit-in-subshell
( trap 'echo sub-exit' EXIT; echo in ); echo out
#### trap-err
trap 'echo err-trap' ERR; false; echo after
#### trap-err-not-in-condition
trap 'echo err' ERR; if false; then :; fi; false || true; echo done
#### trap-reset
trap 'echo x' EXIT; trap - EXIT; echo none
#### trap-ignore
trap '' EXIT; echo ok
#### trap-int-kill
trap 'echo got-int' INT; kill -INT $$; echo after
#### trap-term
trap 'echo got-term; exit 0' TERM; kill -TERM $$; sleep 1; echo not-here
#### trap-usr1
trap 'echo usr1' USR1; kill -USR1 $$; echo after
#### trap-p-quoting
trap "echo 'q'" EXIT; trap -p
#### trap-debug
trap 'echo dbg' DEBUG; :; trap - DEBUG
#### trap-return
f() { trap 'echo ret' RETURN; }; f
#### trap-exit-function
f() { echo f-called; }; trap f EXIT; echo main
#### trap-numeric
trap 'echo zero' 0; echo body
#### trap-invalid
trap 'x' NOSIG; echo st=$?
#### trap-exit-set-e
set -e; trap 'echo cleanup' EXIT; false; echo no
