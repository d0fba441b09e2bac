// Package shellargs parses a shell's own command line the way bash does
// ("-lc CMD", "-c -l CMD", "script ARGS", "-s ARGS", long options): the
// guardsh command line and the nested shells guardsh's runner starts
// ("bash -c ...") use it alike.
package shellargs

import (
	"fmt"
	"strings"
)

// Invocation is a shell command line parsed the way bash parses its own:
// options may be bundled and given in any order before the first operand
// ("-lc CMD", "-c -l CMD", "-l -c CMD" are the same), and with -c the first
// operand is the command, the second $0 and the rest $1...
type Invocation struct {
	Command     *string  // -c: the command string
	Script      string   // SCRIPT operand (no -c, no -s)
	Name        string   // $0
	Params      []string // $1...
	Opts        []string // options for "set", e.g. "-e", "-o", "pipefail"
	Login       bool     // -l, --login
	Interactive bool     // -i
	Stdin       bool     // -s, or no operand
	NoRC        bool     // --norc
	NoProfile   bool     // --noprofile
	Posix       bool     // --posix
	Verbose     bool     // -v
	Version     bool     // --version
	Help        bool     // --help
	// Long collects long options bash does not know ("--mode=x", "--mode",
	// "x" ...) for the caller; Parse only parses the ones it is given
	// in withValue.
	Long []string
}

// shellLetterOpts are the single-letter options "set" understands and the
// command line passes on to the runner.
const shellLetterOpts = "aefnuxvC"

// ignoredLetterOpts are bash options guardsh accepts and ignores: job
// control, history, brace expansion, hashing, physical cd and the like.
const ignoredLetterOpts = "mHBhbkpPTEtrD"

// Parse parses a bash-style command line (without argv[0]). defaultName
// is $0 when neither -c NAME nor SCRIPT gives one. Long options in
// withValue take a value (as "--opt VALUE" or "--opt=VALUE") and are
// returned in Invocation.Long in the "--opt=VALUE" form; other unknown long
// options are errors.
func Parse(argv []string, defaultName string, withValue map[string]bool) (*Invocation, error) {
	inv := &Invocation{Name: defaultName}
	wantC := false
	i := 0
	var operands []string
loop:
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--" || a == "-":
			i++
			break loop
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			switch name {
			case "--login":
				inv.Login = true
			case "--norc":
				inv.NoRC = true
			case "--noprofile":
				inv.NoProfile = true
			case "--posix":
				inv.Posix = true
			case "--version":
				inv.Version = true
			case "--help":
				inv.Help = true
			case "--verbose":
				inv.Verbose = true
				inv.Opts = append(inv.Opts, "-v")
			case "--noediting", "--debugger", "--dump-strings", "--dump-po-strings", "--wordexp":
			case "--rcfile", "--init-file":
				if !hasVal {
					i++
				}
			default:
				if !withValue[name] {
					if _, ok := withValue[name+"!"]; ok { // a flag without value
						inv.Long = append(inv.Long, a)
						continue
					}
					return nil, fmt.Errorf("%s: invalid option", a)
				}
				if !hasVal {
					if i+1 >= len(argv) {
						return nil, fmt.Errorf("%s: option requires an argument", name)
					}
					i++
					val = argv[i]
				}
				inv.Long = append(inv.Long, name+"="+val)
			}
		case (a[0] == '-' || a[0] == '+') && len(a) > 1:
			on := a[0] == '-'
			for _, c := range a[1:] {
				switch {
				case c == 'c' && on:
					wantC = true
				case c == 'l' && on:
					inv.Login = true
				case c == 'i' && on:
					inv.Interactive = true
				case c == 's' && on:
					inv.Stdin = true
				case c == 'O':
					// shopt option: takes the next argument.
					if i+1 < len(argv) {
						i++
					}
				case c == 'o':
					if i+1 >= len(argv) {
						return nil, fmt.Errorf("%c%c: option requires an argument", a[0], c)
					}
					i++
					inv.Opts = append(inv.Opts, string(a[0])+"o", argv[i])
				case strings.ContainsRune(shellLetterOpts, c):
					if c == 'v' {
						inv.Verbose = on
					}
					inv.Opts = append(inv.Opts, string(a[0])+string(c))
				case strings.ContainsRune(ignoredLetterOpts, c):
				default:
					return nil, fmt.Errorf("%c%c: invalid option", a[0], c)
				}
			}
		default:
			break loop
		}
	}
	operands = append(operands, argv[i:]...)
	if wantC {
		if len(operands) == 0 {
			return nil, fmt.Errorf("-c: option requires an argument")
		}
		c := operands[0]
		inv.Command = &c
		operands = operands[1:]
		if len(operands) > 0 {
			inv.Name = operands[0]
			inv.Params = operands[1:]
		}
		return inv, nil
	}
	if inv.Stdin || len(operands) == 0 {
		inv.Stdin = true
		inv.Params = operands
		return inv, nil
	}
	inv.Script = operands[0]
	inv.Name = operands[0]
	inv.Params = operands[1:]
	return inv, nil
}
