#!/bin/sh
# The build stage of docker/Dockerfile: guardsh as one static binary
# (CGO_ENABLED=0: no libc, runs in any image) in the directory $1.
set -eu
out=${1:?usage: docker/build.sh OUTDIR}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
mkdir -p "$out"
CGO_ENABLED=0 go build -trimpath -o "$out/guardsh" ./cmd/guardsh
