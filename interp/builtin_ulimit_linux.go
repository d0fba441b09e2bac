package interp

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/interp"
)

// ulimitRes describes one resource of ulimit, in bash's order for -a.
type ulimitRes struct {
	flag  byte
	res   int
	unit  int64 // bytes per displayed unit; 1 for counts
	desc  string
	units string
}

var ulimitTable = []ulimitRes{
	{'R', 15, 1, "real-time non-blocking time", "microseconds"},
	{'c', 4, 512, "core file size", "blocks"},
	{'d', 2, 1024, "data seg size", "kbytes"},
	{'e', 13, 1, "scheduling priority", ""},
	{'f', 1, 512, "file size", "blocks"},
	{'i', 11, 1, "pending signals", ""},
	{'l', 8, 1024, "max locked memory", "kbytes"},
	{'m', 5, 1024, "max memory size", "kbytes"},
	{'n', 7, 1, "open files", ""},
	{'p', -1, 512, "pipe size", "512 bytes"},
	{'q', 12, 1, "POSIX message queues", "bytes"},
	{'r', 14, 1, "real-time priority", ""},
	{'s', 3, 1024, "stack size", "kbytes"},
	{'t', 0, 1, "cpu time", "seconds"},
	{'u', 6, 1, "max user processes", ""},
	{'v', 9, 1024, "virtual memory", "kbytes"},
	{'x', 10, 1, "file locks", ""},
}

// ulimit is bash's ulimit: it shows and sets the process's resource limits,
// which every child inherits.
func (g *Runner) ulimit(hc interp.HandlerContext, args []string) int {
	soft, hard, all := false, false, false
	var which []ulimitRes
	value := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			value = a
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 'S':
				soft = true
			case 'H':
				hard = true
			case 'a':
				all = true
			default:
				found := false
				for _, r := range ulimitTable {
					if r.flag == byte(c) {
						which = append(which, r)
						found = true
					}
				}
				if !found {
					g.errf(hc, "ulimit: -%c: invalid option", c)
					fmt.Fprintln(hc.Stderr, "ulimit: usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]")
					return 2
				}
			}
		}
	}
	if all {
		which = ulimitTable
	}
	if len(which) == 0 {
		which = []ulimitRes{ulimitTable[4]} // -f
	}
	if value != "" && !all {
		r := which[len(which)-1]
		var v uint64
		switch value {
		case "unlimited":
			v = ^uint64(0)
		default:
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				g.errf(hc, "ulimit: %s: invalid number", value)
				return 1
			}
			v = n * uint64(r.unit)
		}
		if r.res < 0 {
			g.errf(hc, "ulimit: pipe size: cannot modify limit: Invalid argument")
			return 1
		}
		var lim syscall.Rlimit
		syscall.Getrlimit(r.res, &lim)
		if !soft || hard {
			lim.Max = v
		}
		if !hard || soft {
			lim.Cur = v
		}
		if err := syscall.Setrlimit(r.res, &lim); err != nil {
			g.errf(hc, "ulimit: %s: cannot modify limit: %s", r.desc, errnoText(err))
			return 1
		}
		return 0
	}
	for _, r := range which {
		val := "8"
		if r.res >= 0 {
			var lim syscall.Rlimit
			syscall.Getrlimit(r.res, &lim)
			v := lim.Cur
			if hard && !soft {
				v = lim.Max
			}
			if v == ^uint64(0) {
				val = "unlimited"
			} else {
				val = strconv.FormatUint(v/uint64(r.unit), 10)
			}
		}
		if len(which) == 1 {
			fmt.Fprintln(hc.Stdout, val)
			continue
		}
		unit := "(-" + string(r.flag) + ")"
		if r.units != "" {
			unit = "(" + r.units + ", -" + string(r.flag) + ")"
		}
		if len(r.desc)+2+len(unit) <= 40 {
			fmt.Fprintf(hc.Stdout, "%-*s%s %s\n", 40-len(unit), r.desc, unit, val)
		} else {
			fmt.Fprintf(hc.Stdout, "%s  %s %s\n", r.desc, unit, val)
		}
	}
	return 0
}
