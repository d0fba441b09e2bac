#!/bin/sh
# Run a coding agent with guardsh as its shell in any CI job (GitLab CI,
# Jenkins, Buildkite, a cron job): docs/containers.md, "In a CI job".
#
#   GUARDSH_CI=$HOME/guardsh-ci docker/ci/run-agent.sh AGENT [ARGS...]
#
# in the checked-out repository the agent works on. GUARDSH_CI must lie
# outside every root the sandbox keeps writable (the repository, /tmp,
# /var/tmp): the script refuses one inside. It installs guardsh
# with go when it is not on PATH, prints the sandbox level (and fails when
# no level can be verified), runs the agent under guardsh --launch, and
# prints the audit summary; the audit log is $GUARDSH_CI/audit.jsonl, for
# the job to keep as an artifact. cmd/guardsh/container_ci_test.go runs it.
set -eu
: "${GUARDSH_CI:?set GUARDSH_CI to a directory outside the repository}"
: "${GUARDSH_MODE:=auto}"
export GUARDSH_MODE
if [ $# -eq 0 ]; then
  echo "usage: GUARDSH_CI=DIR $0 AGENT [ARGS...]" >&2
  exit 2
fi
mkdir -p "$GUARDSH_CI/bin"
PATH=$GUARDSH_CI/bin:$PATH
if ! command -v guardsh >/dev/null 2>&1; then
  CGO_ENABLED=0 GOBIN="$GUARDSH_CI/bin" go install -trimpath "github.com/guardsh/guardsh/cmd/guardsh@${GUARDSH_VERSION:-latest}"
fi
printf '[audit]\npath = "%s/audit.jsonl"\n' "$GUARDSH_CI" >"$GUARDSH_CI/config.toml"
GUARDSH_CONFIG=$GUARDSH_CI/config.toml
export GUARDSH_CONFIG
# the level: a job without a verified sandbox stops here (--doctor also
# exits 1 for an agent on PATH without guardsh's hook, which --launch does
# not need: the level is what guardsh -c really runs at)
guardsh --doctor >"$GUARDSH_CI/doctor.txt" || true
grep -E '^  (probe [a-z]+|result):' "$GUARDSH_CI/doctor.txt" || true
if ! level=$(guardsh -c 'printf %s "$GUARDSH_SANDBOX_RUN"') || [ -z "$level" ]; then
  cat "$GUARDSH_CI/doctor.txt" >&2
  echo "run-agent.sh: no sandbox level can be verified here (docs/containers.md)" >&2
  exit 1
fi
echo "guardsh sandbox level: $level"
# $GUARDSH_CI holds guardsh's binary (first on PATH), its config and the
# audit log: none of the roots the confined commands may write can hold it
ci=$(cd "$GUARDSH_CI" && pwd -P)
roots=$(sed -n 's/^  writable: //p' "$GUARDSH_CI/doctor.txt" | head -n 1)
IFS=,
for r in $roots; do
  r=${r# }
  case $r in "") continue ;; esac
  case $ci/ in
    "${r%/}"/*)
      echo "run-agent.sh: GUARDSH_CI=$GUARDSH_CI is inside $r, which the commands guardsh confines can write: they could replace guardsh's binary there, its config and the audit log; use a directory outside the repository, /tmp and /var/tmp (docs/containers.md)" >&2
      exit 1 ;;
  esac
done
unset IFS
status=0
guardsh --launch -- "$@" || status=$?
guardsh --audit --file "$GUARDSH_CI/audit.jsonl" || true
exit "$status"
