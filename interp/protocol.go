package interp

// The protocol between guardsh's handlers and mvdan's interpreter.
//
// mvdan.cc/sh/v3/interp gives guardsh two hooks per simple command, after
// expansion: the CallHandler (Runner.call), which sees every command —
// builtins and function calls too — and may replace its argv, and the
// ExecHandler (Runner.gateExec around Runner.exec), which sees only what is
// neither a builtin nor a function, with the very slice the CallHandler
// returned. guardsh decides in the CallHandler and starts programs in the
// ExecHandler; everything that passes from one to the other does so in one
// of three ways, all in this file:
//
//  1. The argv itself. A command the policy refused becomes deniedCmd
//     MESSAGE; a builtin guardsh provides itself becomes internalPrefix+NAME
//     ARGS... (dispatched by Runner.builtin); a command whose standard
//     input was read before deciding becomes inputCmd ARGV... These names
//     hold a NUL byte, so they fall through mvdan's function and builtin
//     lookup to the ExecHandler. No bash string holds one, but mvdan's
//     mapfile keeps them: the CallHandler cuts every word of a command at
//     its NUL (cutAtNUL) before deciding, so "command NAME" and "exec NAME"
//     cannot carry one to the ExecHandler, and the ExecHandler honours
//     inputCmd only with its input parked in the handoff table. A word
//     read by mapfile can still be a command's name spelt internalPrefix+NAME:
//     the CallHandler passes only the kind-2 markers below and the
//     harmless err and out (internalCall), and refuses the rest.
//
//  2. Marker commands that guardsh's AST rewrites insert before running a
//     script (compat_rewrite.go and the compat_*.go files): the CallHandler
//     acts on them (Runner.internalCall) and usually returns ":". Markers
//     that must survive being printed and parsed again (eval, source,
//     trap strings) are spelt with reparseToken, a random per-process
//     string, instead of the NUL byte, or are __guardsh_ names the
//     rewrites alone produce (a script naming one only runs guardsh's own
//     bookkeeping, never skips a decision).
//
//  3. The handoff table: state about one command that does not fit in its
//     argv (the audit record to close and whether it escalates, the input
//     read before deciding, whether the exec handler must decide again).
//     mvdan hands the ExecHandler the very slice the CallHandler returned,
//     so the address of an argv element identifies the command across the
//     two handlers, also when pipeline members run concurrently. The table
//     belongs to one Runner (nested shells have their own), holds its keys
//     weakly and forgets an entry when its argv is garbage: an entry for a
//     command that never reaches the ExecHandler (a function call,
//     "command -v") costs nothing, and no entry is ever dropped to make
//     room.

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"

	"mvdan.cc/sh/v3/interp"
)

// Markers of kind 1: argv rewritten by the CallHandler.
const (
	// internalPrefix starts the names of guardsh's own builtins and of the
	// NUL-byte markers below.
	internalPrefix = "\x00gs-"
	// deniedCmd replaces the argv of a refused command: deniedCmd MESSAGE.
	// The call always falls through to the ExecHandler, which prints the
	// refusal and returns 126.
	deniedCmd = "\x00guardsh-denied"
	// inputCmd marks an argv whose standard input the CallHandler read to
	// decide it (input.go): inputCmd ARGV...; the reader is in the handoff
	// table.
	inputCmd = "\x00guardsh-input"
)

// Markers of kind 2: commands guardsh's AST rewrites insert, acted on by
// the CallHandler (Runner.internalCall); harmless if a script forged them.
const (
	markBg        = internalPrefix + "bg"        // after "cmd &": ID, $! as mvdan knows it
	markTimeStart = internalPrefix + "timestart" // before a timed pipeline: "-p" or ""
	markTimeEnd   = internalPrefix + "timeend"   // after it: $?
	markBgStart   = internalPrefix + "bgstart"   // first in a compound background job: ID
	markPS        = internalPrefix + "ps"        // a pipeline element ends: ID INDEX STATUS
	markPSSet     = internalPrefix + "psset"     // after the pipeline: ID $?
	markPSRet     = internalPrefix + "psret"     // then: ID (restores $?)
	// markFd runs one "exec N OP WORD" redirection: N OP WORD (compat_fds.go).
	markFd = internalPrefix + "fd"
	// markFdSave and markFdRestore bracket a command that has an fd of its
	// own: N, then N $?.
	markFdSave    = internalPrefix + "fdsave"
	markFdRestore = internalPrefix + "fdrestore"
	// markSuffix computes ${x%PATTERN} as bash does: ID VALUE PART... where
	// each PART is "q" + quoted text or "g" + pattern text; the result is
	// read as ${suffixVar ID} (compat_suffix.go).
	markSuffix = internalPrefix + "sfx"
	// markRepl computes ${x/#PAT/REPL} and ${a[@]/%PAT/REPL}: ID ANCHOR
	// REPLPARTS... -- PATTERNPARTS... -- VALUES...
	markRepl = internalPrefix + "repl"
	// markQuote quotes as ${x@Q} does: ID VALUES...
	markQuote = internalPrefix + "quote"
	// markSplit splits a word as bash does with the IFS of the moment:
	// ID "$name" (compat_ifs.go).
	markSplit = internalPrefix + "split"
	// markDefault expands ${U:-WORDS} with bash's field splitting: ID OP
	// "${U+set}" "$U" PARTS...
	markDefault = internalPrefix + "default"

	// markBgDone ends a compound background job (from its EXIT trap, whose
	// text the parser reads again, so it cannot hold a NUL byte): VPID $?.
	markBgDone = "__guardsh_bgdone"
	// quietBegin and quietEnd bracket guardsh's own code run through eval
	// (read, printf -v, source, ...), whose "set -x" trace bash would not
	// show; exitCmd is the exit that ends a compound background job.
	quietBegin = "__guardsh_quiet_begin"
	quietEnd   = "__guardsh_quiet_end"
	exitCmd    = "__guardsh_exit"
	// aliasCmd is the command an alias whose value has shell operators
	// (alias up='tr a-z A-Z | cat') expands to; the CallHandler runs the
	// value with eval. mvdan's aliases take simple commands only.
	aliasCmd = "__guardsh_alias"
)

// Variables the rewrites and guardsh's builtins use.
const (
	// suffixVar prefixes the variables that hold the results of markSuffix,
	// markRepl, markQuote, markSplit and markDefault.
	suffixVar = "__guardsh_sfx_"
	// vpidVar holds a compound background job's virtual PID in its subshell.
	vpidVar = "__guardsh_vpid"
	// bangVar is the variable guardsh rewrites $! to.
	bangVar = "__guardsh_bang"
	// ppidVar and pidVar are the variables guardsh rewrites $PPID and $$
	// to.
	ppidVar = "__guardsh_ppid"
	pidVar  = "__guardsh_pid"
	// flagsVar holds the letters of $- that bash shows and mvdan does not
	// (h, B, c, i, m, H, s).
	flagsVar = "__guardsh_flags"
	// fdLastVar is the variable that reads the fd "exec {name}>..." opened
	// last (dynEnviron).
	fdLastVar = "__guardsh_fdlast"
	// exportedFuncPrefix names the hidden exported variable that carries an
	// exported function (export -f f) to child processes, where execEnv
	// turns it into bash's BASH_FUNC_f%%=() { ...; }.
	exportedFuncPrefix = "__guardsh_xf_"
)

// Entries of an environment change list (envLookThrough, applyEnv): "env -i"
// and "env -u NAME"; any other entry is NAME=VALUE.
const (
	envClear       = "\x00clear"
	envUnsetPrefix = "\x00unset="
)

// reparseToken stands for internalPrefix in rewritten code that is printed
// and parsed again (eval, source): the parser drops NUL bytes. It is random
// per process, so a script cannot forge guardsh's internal names with it.
var reparseToken = func() string {
	var b [8]byte
	rand.Read(b[:])
	return "__guardsh_k" + hex.EncodeToString(b[:]) + "_"
}()

// sourcePrefix marks the name "source" passes to mvdan's source builtin,
// so that the open handler serves the file with guardsh's rewrites applied
// (file descriptors above 2, assignments, ...): mvdan's source parses the
// file itself, without them. Not a NUL byte (expansion drops those) but
// random per process, as clobberPrefix.
var sourcePrefix = reparseToken + "source:"

// clobberPrefix marks the target of ">|" for the open handler. Not a NUL
// byte (expansion drops those) but random per process (reparseToken), so a
// script cannot spell a path that the static checker reads one way and
// the open handler another.
var clobberPrefix = reparseToken + "clobber:"

// handoff is the per-Runner table of kind 3 above.
type handoff struct {
	mu sync.Mutex
	m  map[weak.Pointer[string]]*handoffEntry
}

// handoffEntry is what the CallHandler left for one command.
type handoffEntry struct {
	// pending is an allowed command's audit record to close and whether
	// it runs through Config.Escalate (gate_exec.go).
	pending *pendingCmd
	// input is the standard input read before deciding (input.go).
	input io.Reader
	// recheck: the command was allowed as a possible function call; if it
	// reaches the ExecHandler it is decided again as a command.
	recheck bool
}

func (e *handoffEntry) empty() bool { return e.pending == nil && e.input == nil && !e.recheck }

// update changes the entry of the command whose argv holds slot (creating
// it), under the table's lock.
func (h *handoff) update(slot *string, f func(*handoffEntry)) {
	k := weak.Make(slot)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[weak.Pointer[string]]*handoffEntry{}
	}
	e := h.m[k]
	if e == nil {
		e = &handoffEntry{}
		h.m[k] = e
		// the argv unreachable: nothing can take the entry any more
		runtime.AddCleanup(slot, h.forget, k)
	}
	f(e)
}

func (h *handoff) forget(k weak.Pointer[string]) {
	h.mu.Lock()
	delete(h.m, k)
	h.mu.Unlock()
}

// take removes and returns a part of the entry of the command whose argv
// starts at args[0].
func (h *handoff) take(args []string, part func(*handoffEntry)) {
	if len(args) == 0 {
		return
	}
	k := weak.Make(&args[0])
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.m[k]
	if e == nil {
		return
	}
	part(e)
	if e.empty() {
		delete(h.m, k)
	}
}

// move hands the entry of the command whose argv is from (at any of its
// elements) to the argv that replaces it, which starts at to.
func (h *handoff) move(from []string, to *string) {
	h.mu.Lock()
	var e *handoffEntry
	for i := range from {
		k := weak.Make(&from[i])
		if e = h.m[k]; e != nil {
			delete(h.m, k)
			break
		}
	}
	h.mu.Unlock()
	if e != nil {
		h.update(to, func(n *handoffEntry) { *n = *e })
	}
}

// track records an allowed command's pendingCmd for the ExecHandler. The
// ExecHandler receives "command git push" and "exec git push" as args[i:]
// (after the builtin's options). Builtins never reach it and are not
// tracked.
func (h *handoff) track(args []string, p *pendingCmd) {
	i := 0
	for i < len(args) && (args[i] == "command" || args[i] == "exec" || args[i] == "builtin") {
		i++
		for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
			i++
		}
		if i < len(args) && args[i] == "--" {
			i++
		}
	}
	if i >= len(args) || (i == 0 && interp.IsBuiltin(args[0])) {
		return
	}
	p.start = time.Now()
	h.update(&args[i], func(e *handoffEntry) { e.pending = p })
}

// takePending returns and forgets the pendingCmd of the command args.
func (h *handoff) takePending(args []string) (p *pendingCmd) {
	h.take(args, func(e *handoffEntry) { p, e.pending = e.pending, nil })
	return p
}

// markRecheck notes that a command was allowed as a possible function
// call; if it reaches the ExecHandler, it is decided again as a command.
func (h *handoff) markRecheck(args []string) {
	if len(args) > 0 {
		h.update(&args[0], func(e *handoffEntry) { e.recheck = true })
	}
}

func (h *handoff) takeRecheck(args []string) (ok bool) {
	h.take(args, func(e *handoffEntry) { ok, e.recheck = e.recheck, false })
	return ok
}

// withInput parks r as the standard input of the command args and returns
// the argv that carries it to the ExecHandler (inputCmd ARGV...), with the
// command's other handoff state moved onto it.
func (h *handoff) withInput(args []string, r io.Reader) []string {
	out := append([]string{inputCmd}, args...)
	h.move(args, &out[0])
	h.update(&out[0], func(e *handoffEntry) { e.input = r })
	return out
}

// withInputAt is withInput for the program that starts at args[i] of
// "command PROG ..." or "exec PROG ..." (programAt): the builtin words stay
// (exec still ends the shell) and inputCmd goes before PROG, where mvdan's
// builtin hands the rest of the slice to the ExecHandler.
func (h *handoff) withInputAt(args []string, i int, r io.Reader) []string {
	out := make([]string, 0, len(args)+1)
	out = append(append(append(out, args[:i]...), inputCmd), args[i:]...)
	h.move(args, &out[i])
	h.update(&out[i], func(e *handoffEntry) { e.input = r })
	return out
}

// takeInput returns the command of an inputCmd argv and its parked input
// (nil if none).
func (h *handoff) takeInput(args []string) (r io.Reader, rest []string) {
	h.take(args, func(e *handoffEntry) { r, e.input = e.input, nil })
	return r, args[1:]
}
