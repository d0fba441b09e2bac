#!/bin/sh
# install.sh: build and install guardsh.
#
#   ./install.sh                 installs into ~/.local
#   PREFIX=/usr/local ./install.sh
#
# Installs:
#   $PREFIX/bin/guardsh                    the guarded shell
#   $PREFIX/bin/guardsh-agent              the bundled agent (when it builds)
#   $PREFIX/share/guardsh/shims/bash, sh   names for guardsh: put this
#                                          directory first on an agent's PATH
#                                          and its "bash" is guardsh
# Running it again replaces the binaries in place; nothing else changes.
set -eu

PREFIX=${PREFIX:-"$HOME/.local"}
BIN="$PREFIX/bin"
SHIMS="$PREFIX/share/guardsh/shims"

say() { printf 'install.sh: %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

cd "$(dirname "$0")"
[ -f go.mod ] && grep -q '^module github.com/guardsh/guardsh' go.mod ||
	die "run me from the guardsh source tree (no go.mod here: $(pwd))"

command -v go >/dev/null 2>&1 ||
	die "Go is not installed (or not on PATH). guardsh needs the Go toolchain named in go.mod ($(sed -n 's/^go //p' go.mod)); get it from https://go.dev/dl/ and run ./install.sh again"

need=$(sed -n 's/^go \([0-9.]*\).*/\1/p' go.mod)
have=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
say "using $(go version | cut -d' ' -f3-) (go.mod asks for go $need)"

# Static binaries (no cgo): a faster start, no libc dependency.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/guardsh-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

say "building guardsh"
if ! CGO_ENABLED=0 go build -trimpath -o "$tmp/guardsh" ./cmd/guardsh; then
	case $have in
	"") ;;
	*) die "building guardsh failed (go $have; go.mod asks for go $need)" ;;
	esac
	die "building guardsh failed"
fi
agent=no
if [ -d cmd/guardsh-agent ]; then
	say "building guardsh-agent"
	if CGO_ENABLED=0 go build -trimpath -o "$tmp/guardsh-agent" ./cmd/guardsh-agent 2>"$tmp/agent.log"; then
		agent=yes
	else
		say "warning: guardsh-agent did not build; installing guardsh only:"
		sed 's/^/    /' "$tmp/agent.log" >&2
	fi
fi

mkdir -p "$BIN" "$SHIMS" || die "cannot create $BIN and $SHIMS"
# Replace atomically: a running guardsh keeps its old binary.
install_bin() {
	cp "$tmp/$1" "$BIN/.$1.new" && chmod 755 "$BIN/.$1.new" && mv -f "$BIN/.$1.new" "$BIN/$1" ||
		die "cannot install $BIN/$1"
	say "installed $BIN/$1"
}
install_bin guardsh
[ "$agent" = yes ] && install_bin guardsh-agent

for name in bash sh; do
	ln -sfn "$BIN/guardsh" "$SHIMS/$name" || die "cannot create the shim $SHIMS/$name"
done
say "shims: $SHIMS/bash and $SHIMS/sh run guardsh"

"$BIN/guardsh" --version >/dev/null 2>&1 || die "$BIN/guardsh does not run"

case ":$PATH:" in
*":$BIN:"*) ;;
*) say "note: $BIN is not on your PATH; add it, or call $BIN/guardsh" ;;
esac
say "done. Try: $BIN/guardsh -c 'echo hello from guardsh'"
say "to give an agent guardsh as its bash: PATH=\"$SHIMS:\$PATH\" <agent>, or guardsh --launch <agent>"
