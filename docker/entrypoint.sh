#!/bin/sh
# The image's entrypoint.
#   no arguments:         an interactive guardsh
#   -c CMD, --doctor ...: guardsh with these arguments
#   AGENT [ARGS...]:      the agent, run under guardsh --launch, so that the
#                         shells it starts (bash, sh, $SHELL) are guardsh;
#                         GUARDSH_CONFINE=1 confines the agent process too
# guardsh is found next to this script's directory (../../bin/guardsh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
guardsh=$here/../../bin/guardsh
case ${1-} in
  "") exec "$guardsh" ;;
  -*) exec "$guardsh" "$@" ;;
esac
if [ "${GUARDSH_CONFINE:-0}" = 1 ]; then
  exec "$guardsh" --launch --confine -- "$@"
fi
exec "$guardsh" --launch -- "$@"
