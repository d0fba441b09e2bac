package guardsh

import (
	"strings"
	"sync"
)

// The built-in strict profile: read-only inspection and the build/test
// basics. Positional arguments are paths that must lie inside the project
// (for the few entries marked ?ARGS, only those that look like paths). Deliberately absent: flags that take a file or a pattern of
// files to read (grep -f, --include, rg -g), that follow links out of the
// tree or follow every symlink in it (find -L, grep -R, diff -r), that
// take optional values (--color=WHEN, git status -u), that read a list of
// files (sha256sum -c), that run or delete things (find -exec/-delete),
// that write (sort -o, go build -o), and go's -exec/-toolexec. What the
// listed commands can still do beyond their paths is checked in
// strict_args.go (jq modules, date setting the clock, diff of directories). Shells and
// the wrappers command/env/nice/timeout/nohup/time are handled apart (see
// strictCheck).

// strictDefs are the lines of the built-in profile: "words | flags |
// value flags", flags separated by spaces; a value flag written FLAG=PATH
// takes a path, which must lie inside the project (StrictEntry.PathFlags);
// one written FLAG=JOINED takes its value only joined (-U5, --format=%h:
// StrictEntry.JoinedFlags). Words ending in "!" take no
// positional arguments; words ending in "?ARGS" take positional arguments
// that are not paths.
var strictDefs = []string{
	"ls | -l -a -A -h -1 -R -t -r -S -d -F -p -i -s --all --almost-all --human-readable --classify | --sort --time-style",
	"cat | -n -b -A -E -s -v -T -e -t --number |",
	"head | -q -v -# | -n -c --lines --bytes",
	"tail | -q -v -# | -n -c --lines --bytes",
	"wc | -l -w -c -m -L --lines --words --bytes --chars |",
	"grep | -n -i -r -l -L -c -v -w -x -E -F -G -H -h -o -q -s -I -z --line-number --ignore-case --recursive --files-with-matches --count --invert-match --word-regexp --fixed-strings --extended-regexp --only-matching --quiet --no-messages --with-filename --no-filename --color | -e -m -A -B -C --regexp --max-count",
	"rg | -n -N -i -s -S -l -c -v -w -x -F -o -q --line-number --ignore-case --case-sensitive --smart-case --files-with-matches --count --invert-match --word-regexp --fixed-strings --only-matching --quiet --no-heading --files | -e -m -A -B -C -t -T --regexp --max-count --context --type --type-not",
	"find | -print -print0 -empty -o -a -not -or -and -true -false -prune -depth -xdev | -name -iname -path -ipath -type -maxdepth -mindepth -size -mtime -mmin -regex -iregex",
	"sort | -n -r -u -f -h -V -b -s -g -M -c --numeric-sort --reverse --unique --ignore-case --human-numeric-sort --version-sort | -k -t --key --field-separator",
	"uniq | -c -d -u -i --count --repeated --unique --ignore-case | -f -s -w",
	"cut | -s --complement --only-delimited | -d -f -c -b --delimiter --fields --characters --bytes",
	"tr?ARGS | -d -s -c -C --delete --squeeze-repeats --complement |",
	"diff | -u -N -q -w -b -B -i -a -s --no-dereference --unified --new-file --brief --ignore-all-space --ignore-space-change --ignore-blank-lines --ignore-case --text | -U",
	"cmp | -s -l -b --silent --quiet --verbose |",
	"comm | -1 -2 -3 |",
	"stat | -L -t --dereference --terse | -c --format --printf",
	"file | -b -i -L --brief --mime --mime-type --dereference |",
	"du | -s -h -a -c -b -k -m --summarize --human-readable --all --total | -d --max-depth",
	"nl | | -b -w -s",
	"basename | -a -z --multiple --zero | -s --suffix",
	"dirname | -z --zero |",
	"realpath | -e -m -s -q --canonicalize-existing --canonicalize-missing --no-symlinks --quiet | --relative-to=PATH",
	"readlink | -f -e -m -n --canonicalize --canonicalize-existing |",
	"md5sum | -b -t |",
	"sha1sum | -b -t |",
	"sha256sum | -b -t |",
	"date?ARGS | -u -I -R --utc --iso-8601 --rfc-3339 | -d --date",
	"sleep?ARGS | |",
	"seq?ARGS | -w | -s",
	"uname! | -a -s -n -r -v -m -o |",
	"whoami! | |",
	"which | -a |",
	"jq?ARGS | -r -c -S -e -n -j --raw-output --compact-output --sort-keys --exit-status --null-input --join-output --tab | --indent",
	"git status | -s -b -v -z --short --branch --porcelain --long --ignored --ahead-behind --no-ahead-behind |",
	"git diff | -p -u -z -R -w -b --stat --numstat --shortstat --name-only --name-status --cached --staged --no-color --color --word-diff --patch --raw --summary --check --ignore-all-space --ignore-space-change --exit-code --quiet --minimal --histogram --patience | -U=JOINED --unified=JOINED --diff-filter --stat-width --word-diff-regex",
	"git log | -p -u -z --stat --numstat --shortstat --name-only --name-status --oneline --graph --decorate --no-decorate --all --reverse --no-merges --merges --first-parent --patch --no-color --color --follow --abbrev-commit --date-order --topo-order | -n -U=JOINED --max-count --format=JOINED --date --since --until --after --before --author --committer --grep --skip --diff-filter",
	"git show | -p -u -s -z --stat --numstat --shortstat --name-only --name-status --oneline --no-patch --patch --no-color --color --abbrev-commit | -U=JOINED --format=JOINED --date",
	"git branch! | -a -r -v --list --all --remotes --verbose --show-current --no-color | --sort --format",
	"git rev-parse | -q --verify --short --abbrev-ref --show-toplevel --git-dir --is-inside-work-tree --symbolic-full-name --absolute-git-dir --show-prefix --show-cdup | ",
	"git ls-files | -c -m -o -d -s -z --cached --modified --others --deleted --stage --exclude-standard --full-name | -x --exclude",
	"git blame | -l -s -w -e -n -f -p --porcelain --line-porcelain --show-email --show-name --show-number | -L",
	"git describe | --tags --always --long --all | --match --exclude",
	"go test | -v -short -race -cover -failfast -json -count=1 -benchmem | -run -skip -count -timeout -bench -benchtime -cpu -p -parallel -tags -coverprofile=PATH -covermode -shuffle -fuzz -fuzztime",
	"go build | -v -race -trimpath | -tags -p",
	"go vet | -v -json | -tags",
	"go list | -m -json -deps -test -e | -f -tags",
	"go version | -m -v |",
	"go env | -json |",
	"gofmt | -l -d -s -e |",
}

// defaultProfile returns the built-in entries by command name, parsed on
// first use (not at init: most sessions are not strict).
var defaultProfile = sync.OnceValue(func() map[string][]StrictEntry {
	m := map[string][]StrictEntry{}
	for _, d := range strictDefs {
		parts := strings.Split(d, "|")
		words := strings.TrimSpace(parts[0])
		e := StrictEntry{Paths: true, MaxArgs: -1, Source: "built-in"}
		switch {
		case strings.HasSuffix(words, "?ARGS"):
			// positional arguments are not paths (they are checked
			// only when they look like one)
			words = strings.TrimSuffix(words, "?ARGS")
			e.Paths = false
		case strings.HasSuffix(words, "!"):
			words = strings.TrimSuffix(words, "!")
			e.MaxArgs = 0
		}
		e.Words = strings.Fields(words)
		e.Flags = strings.Fields(parts[1])
		if len(parts) > 2 {
			for _, f := range strings.Fields(parts[2]) {
				if p, ok := strings.CutSuffix(f, "=PATH"); ok {
					e.PathFlags = append(e.PathFlags, p)
					continue
				}
				if j, ok := strings.CutSuffix(f, "=JOINED"); ok {
					e.JoinedFlags = append(e.JoinedFlags, j)
					continue
				}
				e.ValueFlags = append(e.ValueFlags, f)
			}
		}
		m[e.Words[0]] = append(m[e.Words[0]], e)
	}
	return m
})
