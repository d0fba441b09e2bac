package guardsh

import "strings"

// disk tools: formatting and partitioning.
func hDisk(cx *cmdCtx, name string, args []string) {
	list := false
	switch name {
	case "fdisk", "sfdisk", "parted", "gdisk", "sgdisk":
		list = hasOpt(args[1:], 'l', "list") || hasOpt(args[1:], 'd', "dump") || hasOpt(args[1:], 'p', "print")
	case "wipefs":
		list = !hasOpt(args[1:], 'a', "all") && !hasOpt(args[1:], 'o', "offset")
	case "hdparm", "badblocks":
		list = !hasOpt(args[1:], 'w') && !hasOpt(args[1:], 0, "security-erase", "trim-sector-ranges")
	}
	if list {
		cx.j.atLeast(kRead)
		return
	}
	ops := operands(args[1:], optSpec{short: "tLbcCEgGIiJlmMNOoqrRsTUvF", long: []string{"type", "label", "block-size"}})
	dev := false
	for _, o := range ops {
		if isDynamic(o) {
			cx.j.unsure(idDiskFormat, "target not known before it runs: "+displayArg(o))
			continue
		}
		t := cx.pe.resolve(o)
		if t.loc == locDevice || strings.HasPrefix(t.abs, "/dev/") {
			cx.j.match(idDiskFormat, t.abs)
			dev = true
		}
	}
	if dev {
		return
	}
	// mkfs on an image file inside the project is an edit.
	for _, o := range ops {
		if strings.HasPrefix(o, "-") {
			continue
		}
		t := cx.pe.resolve(o)
		if t.loc.inside() {
			cx.j.atLeast(kEdit)
			if t.abs != "" {
				cx.j.eff.Writes = append(cx.j.eff.Writes, t.abs)
			}
			return
		}
	}
	cx.j.unsure(idDiskFormat, strings.Join(displayArgs(args, 4), " "))
}

func hShutdown(cx *cmdCtx, name string, args []string) {
	if name == "shutdown" && hasOpt(args[1:], 'c') {
		cx.j.other(idSysService, "shutdown -c")
		return
	}
	cx.j.match(idSysShutdown, name)
}

func hInit(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{})
	if len(ops) > 0 && (ops[0] == "0" || ops[0] == "6") {
		cx.j.match(idSysShutdown, name+" "+ops[0])
		return
	}
	cx.j.other(idSysService, name)
}

func hSystemctl(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "HMpstn", long: []string{"host", "machine", "property", "type", "state", "signal", "lines", "output", "root"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "emergency", "rescue", "soft-reboot":
		cx.j.match(idSysShutdown, name+" "+ops[0])
	case "status", "show", "cat", "is-active", "is-enabled", "is-failed", "is-system-running", "list-units",
		"list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs", "help", "get-default", "show-environment":
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idSysService, name+" "+ops[0])
	}
}

func hService(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{})
	if len(ops) >= 2 && ops[1] == "status" || len(ops) == 1 && ops[0] == "--status-all" || hasOpt(args[1:], 0, "status-all") {
		cx.j.atLeast(kRead)
		return
	}
	cx.j.other(idSysService, strings.Join(displayArgs(args, 4), " "))
}

func hCrontab(cx *cmdCtx, name string, args []string) {
	switch {
	case hasOpt(args[1:], 'r'):
		cx.j.match(idSysCrontabRemove, "")
	case hasOpt(args[1:], 'l'):
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idSysSystemWrite, "crontab")
	}
}

func hSysWrite(cx *cmdCtx, name string, args []string) {
	switch name {
	case "sysctl":
		if !hasOpt(args[1:], 'w', "write") && !hasOpt(args[1:], 'p', "load", "system") {
			ok := true
			for _, o := range operands(args[1:], optSpec{}) {
				if strings.Contains(o, "=") {
					ok = false
				}
			}
			if ok {
				cx.j.atLeast(kRead)
				return
			}
		}
	case "mount":
		if len(args) == 1 || hasOpt(args[1:], 'l') {
			cx.j.atLeast(kRead)
			return
		}
	case "iptables", "ip6tables", "nft", "ufw":
		if hasOpt(args[1:], 'L', "list") || hasOpt(args[1:], 'S', "list-rules") || len(args) > 1 && (args[1] == "status" || args[1] == "list") {
			cx.j.atLeast(kRead)
			return
		}
	}
	cx.j.other(idSysSystemWrite, strings.Join(displayArgs(args, 4), " "))
}

// hAt: at and batch schedule shell commands read from input or a file.
func hAt(cx *cmdCtx, name string, args []string) {
	if hasOpt(args[1:], 'l') || hasOpt(args[1:], 'c') || name == "atq" {
		cx.j.atLeast(kRead)
		return
	}
	cx.j.other(idSysSystemWrite, name+" schedules commands to run later")
	if cx.stdin != nil && cx.stdin.kind == srcStatic {
		// the script is its input: it inherits what is left of it
		cx.j.addNested(cx.p.scriptVerdict(cx.stdin.text, cx.c, cx.depth+1))
	}
}
