# set -e (4.3.1) and its exceptions.
#### basic
set -e; echo a; false; echo b
#### in-if
set -e; if false; then echo no; fi; echo yes
#### and-or
set -e; false && true; echo after-and; false || true; echo after-or
#### negation
set -e; ! true; echo after-bang
#### in-function-condition
set -e; f() { false; echo continued; }; f || echo or; echo end
#### subshell
set -e; (false); echo not-reached
#### subshell-status
set -e; (false) || echo caught
#### pipeline-last
set -e; false | true; echo ok
#### pipefail-e
set -eo pipefail; false | true; echo no
#### cmdsubst-assign
set -e; x=$(false); echo no
#### while-condition
set -e; while false; do :; done; echo ok
#### arith-zero
set -e; (( 0 )); echo no
#### arith-in-or
set -e; (( 0 )) || echo handled
#### errexit-in-eval
set -e; eval false; echo no
#### errexit-source
set -e; echo false > s.sh; . ./s.sh; echo no
#### set-plus-e
set -e; set +e; false; echo continued
#### errexit-local
set -e; f() { local x; x=$(false); echo no; }; f
#### nounset-exit
set -u; echo $undefined_var; echo no
#### errexit-status
set -e; (exit 42); echo no
#### errexit-group
set -e; { false; echo no; }; echo no2
