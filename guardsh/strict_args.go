package guardsh

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// What listed commands can do beyond their path arguments. The allowlist
// checks flags and paths; a few commands of the built-in profile also take
// an argument whose content makes them read files no argument names or
// change the machine. strictArgChecks refuses those forms for every entry
// of the command, built-in or configured. (Commands whose dangerous forms
// are flags - grep -f/-R, diff -r, sort -o, find -fprint, md5sum -c, go
// test -exec, git --output - simply leave those flags out of the profile.)

// strictArgCheck judges the flags used and the positional arguments of an
// argv the entry accepted.
type strictArgCheck func(c *Command, e *StrictEntry, used, pos []string) (Verdict, bool)

var strictArgChecks = map[string]strictArgCheck{
	"jq":    strictJq,
	"date":  strictDate,
	"diff":  strictDiff,
	"go":    strictGo,
	"gofmt": strictGofmt,
}

// jq: import "PATH" and include "PATH" read PATH.jq or PATH.json relative
// to the working directory and the module search path (~/.jq, -L DIR), and
// modulemeta reads a module; none of these is an argument the path check
// sees. -f/--from-file takes the program from a file strict mode does not
// read, so its imports could not be checked either.
var (
	reJqModule = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(import|include)\s*"`)
	reJqMeta   = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(modulemeta)([^A-Za-z0-9_]|$)`)
)

func strictJq(c *Command, _ *StrictEntry, used, pos []string) (Verdict, bool) {
	for _, f := range used {
		switch f {
		case "-f", "--from-file":
			return strictRefusal(idStrictArg, "jq "+f+" takes the program from a file, whose import and include directives (which read other files) strict mode cannot check",
				"pass the program as an argument: jq '.items[] | .name' data.json"), true
		case "-L", "--library-path":
			return strictRefusal(idStrictArg, "jq "+f+" sets where import and include find modules, files strict mode does not check",
				"pass the data as input files instead: jq -s '.[0] * .[1]' a.json b.json"), true
		}
	}
	// Every positional argument: with a listed value flag taking two words
	// (--arg NAME VALUE) the program is not always the first.
	for _, a := range pos {
		code := jqCode(a)
		if m := reJqModule.FindStringSubmatch(code); m != nil {
			return strictRefusal(idStrictArg, "the jq program uses "+m[2]+", which reads a module or data file that strict mode does not check (it may lie outside the project)",
				"pass the data as input files instead: jq -s '.[0] * .[1]' a.json b.json"), true
		}
		if m := reJqMeta.FindStringSubmatch(code); m != nil {
			return strictRefusal(idStrictArg, "the jq program uses "+m[2]+", which looks modules up in files strict mode does not check",
				"use jq on input files named as arguments"), true
		}
	}
	return Verdict{}, false
}

// jqCode returns jq program text with the content of string literals and
// comments blanked out (the quotes kept), so that keywords are found only
// in code. String interpolations \( ... ) are code.
func jqCode(prog string) string {
	b := []byte(prog)
	inStr := false
	var interp []int // for each open \( ... ): the parentheses open inside it
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if inStr {
			switch {
			case ch == '\\' && i+1 < len(b) && b[i+1] == '(':
				b[i], b[i+1] = ' ', ' '
				i++
				interp = append(interp, 0)
				inStr = false
			case ch == '\\' && i+1 < len(b):
				b[i], b[i+1] = ' ', ' '
				i++
			case ch == '"':
				inStr = false
			default:
				b[i] = ' '
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '#':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case '(':
			if n := len(interp); n > 0 {
				interp[n-1]++
			}
		case ')':
			if n := len(interp); n > 0 {
				if interp[n-1] == 0 {
					interp = interp[:n-1]
					b[i] = ' '
					inStr = true
					continue
				}
				interp[n-1]--
			}
		}
	}
	return string(b)
}

// date: an operand that is not +FORMAT sets the system clock (date MMDDhhmm),
// which guardsh runs as whoever started it, possibly root.
func strictDate(c *Command, _ *StrictEntry, used, pos []string) (Verdict, bool) {
	for _, a := range pos {
		if !strings.HasPrefix(a, "+") {
			return strictRefusal(idStrictArg, "date "+a+" sets the system clock (only +FORMAT prints)",
				"print the date with a format, e.g. date +%Y-%m-%d, or another date with date -d '2030-01-01' +%s"), true
		}
	}
	return Verdict{}, false
}

// diff: with a directory among its arguments, diff compares the files in
// it by name and dereferences the symlinks among them, which may point out
// of the project (diff s1 s2 prints s1/link's target's content); the path
// check sees only s1. --no-dereference compares the links themselves.
func strictDiff(c *Command, _ *StrictEntry, used, pos []string) (Verdict, bool) {
	if slices.Contains(used, "--no-dereference") {
		return Verdict{}, false
	}
	for _, a := range pos {
		if a == "-" {
			continue
		}
		r := resolveUnder(c, strictJoin(c, a))
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			return strictRefusal(idStrictArg, "diff: "+a+" is a directory, and diff follows the symlinks in it, which may lead out of the project",
				"compare the links themselves: diff --no-dereference "+strings.Join(pos, " ")), true
		}
	}
	return Verdict{}, false
}

// go build writes the binary into the working directory, named after the
// package: run in .git/hooks, go build ../../cmd/pre-commit would install
// a hook that a human's next git commit runs. (-o, if a human lists it as
// a path flag, is checked like any path flag's value.)
func strictGo(c *Command, e *StrictEntry, used, pos []string) (Verdict, bool) {
	if len(e.Words) < 2 || e.Words[1] != "build" || slices.Contains(used, "-o") {
		return Verdict{}, false
	}
	dir := c.Dir
	if dir == "" {
		dir = c.Project
	}
	r := resolveUnder(c, dir)
	if strings.Contains(r+"/", "/.git/") {
		return strictRefusal(idWriteProtected, "go build writes its binary into the working directory "+dir+", inside .git, whose files (hooks, config) run code later",
			"run go build from the project directory"), true
	}
	return Verdict{}, false
}

// gofmt walks its directory arguments and, unlike grep -r or find, reads
// every *.go entry it meets, symlinks included: gofmt -d . prints the
// content of proj/leak.go -> ../other/secret.go as a diff. A directory
// argument is refused when a symlinked .go file in it leads out of the
// project (or the tree is too big to look through).
func strictGofmt(c *Command, _ *StrictEntry, _, pos []string) (Verdict, bool) {
	// (without arguments gofmt reads standard input)
	proj := strictProject(c)
	for _, a := range pos {
		root := resolveUnder(c, strictJoin(c, a))
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		n := 0
		var bad string
		errTooBig := errors.New("too big")
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > 200000 {
				return errTooBig
			}
			if d.Type()&fs.ModeSymlink == 0 || !strings.HasSuffix(d.Name(), ".go") || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			if r := ResolveLinks(p); r == "" || !within(r, proj) {
				bad = p
				return fs.SkipAll
			}
			return nil
		})
		switch {
		case bad != "":
			return strictRefusal(idStrictArg, "gofmt "+a+" would read "+bad+", a symlink that leads out of the project (gofmt follows symlinked .go files in the directories it walks)",
				"name the files: gofmt -l sub/a.go sub/b.go"), true
		case errors.Is(err, errTooBig):
			return strictRefusal(idStrictArg, "gofmt "+a+": the directory is too big to check for symlinks leading out of the project",
				"name the files or a smaller directory"), true
		}
	}
	return Verdict{}, false
}
