# trap (4.1) and signals.
#### trap-exit
trap 'echo exiting' EXIT; echo body
#### trap-exit-status
trap 'echo "st=$?"' EXIT; (exit 3); exit
#### trap-exit-in-subshell
## differs: an EXIT trap set in a subshell runs when the script ends, not when the subshell does (subshells are goroutines)
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
## differs: signal traps do not run in guardsh (docs/compatibility.md)
trap 'echo got-int' INT; kill -INT $$; echo after
#### trap-term
## differs: signal traps do not run in guardsh (docs/compatibility.md)
trap 'echo got-term; exit 0' TERM; kill -TERM $$; sleep 1; echo not-here
#### trap-usr1
## differs: signal traps do not run in guardsh (docs/compatibility.md)
trap 'echo usr1' USR1; kill -USR1 $$; echo after
#### trap-p-quoting
trap "echo 'q'" EXIT; trap -p
#### trap-debug
## differs: DEBUG traps do not run (mvdan)
trap 'echo dbg' DEBUG; :; trap - DEBUG
#### trap-return
## differs: RETURN traps do not run (mvdan)
f() { trap 'echo ret' RETURN; }; f
#### trap-exit-function
f() { echo f-called; }; trap f EXIT; echo main
#### trap-numeric
trap 'echo zero' 0; echo body
#### trap-invalid
## differs: an invalid signal name: mvdan's trap error and status 2 (bash: status 1)
trap 'x' NOSIG; echo st=$?
#### trap-exit-set-e
set -e; trap 'echo cleanup' EXIT; false; echo no
