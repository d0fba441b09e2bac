# What agents' shell snapshots use (Codex CLI: declare -f, declare -xp;
# Claude Code: declare -F, declare -f NAME): the listed definitions must
# come back when sourced.

#### declare -f lists every function, re-sourceable
f() { echo "f ran $1"; }
g() { local x=2; echo "g $x"; }
s=$(declare -f)
unset -f f g
eval "$s"
f a; g

#### declare -f without functions prints nothing
s=$(declare -f); echo "[${s}] $?"

#### declare -F then declare -f NAME for each, as Claude Code does
h() { echo "h ran"; }
k() { echo "k ran"; }
out=$(declare -F | cut -d' ' -f3 | while read fn; do declare -f "$fn"; done)
unset -f h k
eval "$out"
h; k

#### declare -xp NAME prints an exported variable re-sourceably
export V="a b"
s=$(declare -xp V)
unset V
eval "$s"
echo "[$V]"; env | grep -c '^V=a b$'

#### declare -xp of a variable not set fails
declare -xp NOPE_NOT_SET 2>/dev/null; echo "status $?"
