#!/bin/sh
# The image stage of docker/Dockerfile, after guardsh is in
# /usr/local/bin: guardsh becomes a login shell (/etc/shells) and the
# login shell of the user "agent" (uid 1000), who owns /work, the
# project directory. GUARDSH_IMAGE_ROOT (default /) is the root it sets up:
# the tests set up a throwaway root with it.
set -eu
root=${GUARDSH_IMAGE_ROOT:-/}
root=${root%/}
shell=/usr/local/bin/guardsh
if [ ! -x "$root$shell" ]; then
  echo "setup.sh: $root$shell is missing or not executable" >&2
  exit 1
fi
grep -qx "$shell" "$root/etc/shells" 2>/dev/null || echo "$shell" >>"$root/etc/shells"
prefix=
[ -n "$root" ] && prefix="--prefix $root"
# shellcheck disable=SC2086 # $prefix is one option and its value, or nothing
useradd $prefix --uid 1000 --user-group --create-home --shell "$shell" agent
mkdir -p "$root/work"
chown 1000:1000 "$root/work"
