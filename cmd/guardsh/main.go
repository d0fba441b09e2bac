// Command guardsh is a guarded shell for AI coding agents: a bash-compatible
// command line whose every simple command is checked by guardsh's policy
// before it runs.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/interp"
)

// Version is guardsh's version, printed by --version.
var Version = "0.1.0-dev"

// longModes are guardsh's own long options that replace running a shell
// (--check, --doctor, --hook, ...). Files of this package register them in
// init functions; each gets the arguments after its own name and returns the
// process exit status.
var longModes = map[string]func(args []string) int{}

func registerMode(name string, run func(args []string) int) {
	if _, dup := longModes[name]; dup {
		panic("guardsh: mode registered twice: " + name)
	}
	longModes[name] = run
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(argv []string) int {
	for i, a := range argv {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		if m, ok := longModes[name]; ok {
			rest := append(append([]string{}, argv[:i]...), argv[i+1:]...)
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				rest = append([]string{v}, rest...)
			}
			return m(rest)
		}
	}
	inv, err := parseArgs(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return 2
	}
	return shell(inv)
}

// invocation is a parsed shell command line.
type invocation struct {
	command   *string // -c
	script    string  // SCRIPT operand
	name      string  // $0
	params    []string
	opts      []string
	mode      guardsh.Mode
	printVer  bool
	printHelp bool
}

func parseArgs(argv []string) (*invocation, error) {
	inv := &invocation{name: "guardsh"}
	modeName := os.Getenv("GUARDSH_MODE")
	var operands []string
	wantC := false
	i := 0
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i++
			operands = append(operands, argv[i:]...)
			i = len(argv)
		case a == "--version":
			inv.printVer = true
		case a == "--help":
			inv.printHelp = true
		case a == "--mode":
			if i+1 >= len(argv) {
				return nil, fmt.Errorf("--mode: option requires an argument")
			}
			i++
			modeName = argv[i]
		case strings.HasPrefix(a, "--mode="):
			modeName = strings.TrimPrefix(a, "--mode=")
		case a == "-c":
			wantC = true
		case a == "-e", a == "-u", a == "-x", a == "-f", a == "-v":
			inv.opts = append(inv.opts, a)
		case a == "-o" && i+1 < len(argv):
			inv.opts = append(inv.opts, "-o", argv[i+1])
			i++
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return nil, fmt.Errorf("%s: invalid option", a)
		default:
			operands = append(operands, argv[i:]...)
			i = len(argv)
		}
	}
	mode, err := guardsh.ParseMode(modeName)
	if err != nil {
		return nil, err
	}
	inv.mode = mode
	if wantC {
		if len(operands) == 0 {
			return nil, fmt.Errorf("-c: option requires an argument")
		}
		c := operands[0]
		inv.command = &c
		operands = operands[1:]
		if len(operands) > 0 {
			inv.name = operands[0]
			inv.params = operands[1:]
		}
		return inv, nil
	}
	if len(operands) > 0 {
		inv.script = operands[0]
		inv.name = operands[0]
		inv.params = operands[1:]
	}
	return inv, nil
}

func shell(inv *invocation) int {
	if inv.printHelp {
		fmt.Println("usage: guardsh [options] [-c COMMAND [NAME [ARGS...]] | SCRIPT [ARGS...]]")
		return 0
	}
	if inv.printVer {
		fmt.Printf("guardsh %s\n", Version)
		return 0
	}
	code, done, sandboxDesc := sandboxSession(inv)
	if done {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	r, err := interp.New(interp.Config{
		Policy:  guardsh.NewPolicy(inv.mode),
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Name:    inv.name,
		Params:  inv.params,
		Opts:    inv.opts,
		Sandbox: sandboxDesc,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "guardsh: %v\n", err)
		return 2
	}
	switch {
	case inv.command != nil:
		return r.Run(ctx, strings.NewReader(*inv.command), inv.name)
	case inv.script != "":
		f, err := os.Open(inv.script)
		if err != nil {
			fmt.Fprintf(os.Stderr, "guardsh: %s: %v\n", inv.script, err)
			return 127
		}
		defer f.Close()
		return r.Run(ctx, f, inv.script)
	default:
		return r.Run(ctx, os.Stdin, "guardsh")
	}
}
