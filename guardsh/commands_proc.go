package guardsh

import (
	"strconv"
	"strings"
)

func hKill(cx *cmdCtx, name string, args []string) {
	switch name {
	case "killall", "killall5":
		if hasOpt(args[1:], 'l', "list") {
			cx.j.kind = kPure
			return
		}
		cx.j.match(idProcKillAll, strings.Join(displayArgs(args, 4), " "))
		return
	case "pkill", "skill", "slay":
		cx.j.other(idProcKill, strings.Join(displayArgs(args, 4), " "))
		return
	}
	for _, a := range args[1:] {
		if a == "-l" || a == "-L" || a == "--list" || a == "--table" {
			cx.j.kind = kPure
			return
		}
	}
	ops := operands(args[1:], optSpec{short: "sn", long: []string{"signal"}})
	// "kill -9 -1": -1 after the signal is a pid; operands() took it as a flag.
	pidsAll := false
	for k, a := range args[1:] {
		if a == "-1" && (k > 0 || len(args) == 2) {
			pidsAll = true
		}
	}
	jobsOnly := len(ops) > 0
	for _, o := range ops {
		if o == "-1" || o == "1" {
			pidsAll = true
		}
		if !strings.HasPrefix(o, "%") && !cx.ownProcess(o) {
			jobsOnly = false
		}
	}
	switch {
	case pidsAll:
		cx.j.match(idProcKillAll, strings.Join(displayArgs(args, 4), " "))
	case jobsOnly:
		cx.j.kind = kPure
	default:
		cx.j.other(idProcKill, strings.Join(displayArgs(args, 4), " "))
	}
}

// ownProcess reports whether a kill operand is the PID of a process the
// runner started itself and still runs.
func (cx *cmdCtx) ownProcess(o string) bool {
	if cx.c.OwnProcess == nil || o == "" || o[0] < '1' || o[0] > '9' {
		return false
	}
	pid, err := strconv.Atoi(o)
	return err == nil && cx.c.OwnProcess(pid)
}
