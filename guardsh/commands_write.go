package guardsh

import "strings"

// write judges writing (del: deleting) a path.
func (cx *cmdCtx) write(arg string, del bool) { cx.writeAt(cx.pe.resolve(arg), arg, del) }

// writeName is write for an operation on the name itself (rename, a link
// created): a symlink in the last component is not followed.
func (cx *cmdCtx) writeName(arg string, del bool) { cx.writeAt(cx.pe.resolveName(arg), arg, del) }

func (cx *cmdCtx) writeAt(t target, arg string, del bool) {
	j := cx.j
	if t.abs != "" && len(j.eff.Writes) < 32 {
		j.eff.Writes = append(j.eff.Writes, t.abs)
	}
	switch {
	case t.loc == locUnknown:
		j.other(idWriteOutside, "target not known before it runs: "+displayArg(arg))
	case t.loc == locDevSafe:
		if del {
			j.match(idRmSystemFile, t.abs)
		}
		j.atLeast(kEdit)
	case t.loc == locDevice:
		j.match(idDevice, t.abs)
	case cx.pe.protectedWrite(t.abs):
		j.match(idWriteProtected, t.abs)
	case agentConfig(t.abs):
		j.other(idWriteAgentConfig, t.abs)
	case del && t.loc.inside() && gitDataID(cx.pe.project, t.abs) != idNone:
		j.match(gitDataDelete(cx.pe.project, t.abs))
	case t.loc.inside() || t.loc == locSharedTmp && !del:
		j.atLeast(kEdit)
	case t.loc == locSystem && del:
		j.match(idRmSystemFile, t.abs)
	case t.loc == locRoot || t.loc == locHome:
		if del {
			id := idRmRoot
			if t.loc == locHome {
				id = idRmHome
			}
			j.match(id, t.abs)
		} else {
			j.other(idWriteOutside, t.abs)
		}
	default:
		j.other(idWriteOutside, t.abs)
	}
}

// Commands that only change files: every operand is written.
func hWriteAll(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "mrdtsSZ", long: []string{"mode", "reference", "date", "time", "size", "context"}}
	if name == "mknod" || name == "mkfifo" {
		if name == "mknod" {
			cx.j.other(idSysSystemWrite, "mknod creates device nodes")
		}
	}
	if name == "tee" {
		spec = optSpec{long: []string{"output-error"}}
	}
	ops := operands(args[1:], spec)
	if name == "mknod" && len(ops) > 0 {
		ops = ops[:1]
	}
	for _, o := range ops {
		cx.write(o, false)
	}
}

func hCopy(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "tSmogb", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup", "reply", "sparse", "preserve", "no-preserve", "reflink", "context"}}
	ops := operands(args[1:], spec)
	dest, hasT := optValue(args[1:], 't', "target-directory")
	if name == "install" && hasOpt(args[1:], 'd', "directory") {
		for _, o := range ops {
			cx.write(o, false)
		}
		return
	}
	if !hasT {
		if len(ops) == 0 {
			return
		}
		if len(ops) == 1 && name == "ln" {
			dest = "."
		} else {
			dest = ops[len(ops)-1]
			ops = ops[:len(ops)-1]
		}
	}
	switch name {
	case "mv":
		d := cx.pe.resolve(dest)
		if d.loc == locDevSafe || d.loc == locDevice {
			cx.j.match(idMvDevnull, displayArg(dest))
		}
		for _, o := range ops {
			t := cx.pe.resolveName(o)
			switch {
			case t.loc == locRoot || t.loc == locHome || t.loc == locProjectRoot || t.loc == locTempRoot ||
				t.loc == locSystem && strings.Count(t.abs, "/") <= 2:
				cx.j.match(idMvCatastrophic, t.abs)
			default:
				cx.writeName(o, true)
			}
		}
	case "ln":
		// a symbolic link's target is not touched; a hard link is the
		// same file under a new name, readable where the link is; the
		// link itself is written
		if !hasOpt(args[1:], 's', "symbolic") {
			for _, o := range ops {
				cx.read(o)
			}
		}
		cx.writeName(dest, false)
		return
	default:
		rec := hasOpt(args[1:], 'r', "recursive", "archive") || hasOpt(args[1:], 'R') || hasOpt(args[1:], 'a')
		for _, o := range ops {
			if rec {
				cx.readTree(o)
			} else {
				cx.read(o)
			}
		}
	}
	cx.write(dest, false)
}

func hPerms(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	rec := false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if isDynamic(a) {
			rec = true
		} else if strings.HasPrefix(a, "--") {
			if longIs(a, "--recursive", 4) {
				rec = true
			}
		} else if len(a) > 1 && a[0] == '-' && strings.ContainsRune(a[1:], 'R') {
			rec = true
		}
	}
	ops := operands(args[1:], optSpec{long: []string{"reference", "from"}})
	// chmod -x FILE: "-x" is a mode, not an option.
	if name == "chmod" {
		for _, a := range args[1:] {
			if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXstugo") == "" && !strings.ContainsRune(a, 'R') {
				ops = append([]string{a}, ops...)
				break
			}
		}
	}
	if !hasOpt(args[1:], 0, "reference") && len(ops) > 0 {
		mode := ops[0]
		ops = ops[1:]
		if name == "chmod" && setuidMode(mode) {
			cx.j.other(idPermsSetuid, mode)
		}
	}
	for _, o := range ops {
		t := cx.pe.resolve(o)
		if rec || t.whole {
			switch t.loc {
			case locRoot, locHome, locSystem, locTempRoot:
				cx.j.match(idPermsRecursiveSystem, t.abs)
				continue
			case locUnknown:
				cx.j.unsure(idPermsRecursiveSystem, "target not known before it runs: "+displayArg(o))
				continue
			}
		}
		cx.write(o, false)
	}
}

func setuidMode(m string) bool {
	if isDynamic(m) {
		return false
	}
	if strings.Trim(m, "01234567") == "" {
		return len(m) == 4 && (m[0] == '4' || m[0] == '2' || m[0] == '6')
	}
	return strings.Contains(m, "+s") || strings.ContainsAny(m, "s") && strings.Contains(m, "=")
}

func hDd(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kRead)
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "of="):
			cx.write(a[3:], false)
		case strings.HasPrefix(a, "if="):
			cx.read(a[3:])
		}
	}
}

// hMktemp: mktemp creates a file or directory (in the temp dir unless told).
func hMktemp(cx *cmdCtx, name string, args []string) { cx.j.atLeast(kEdit) }
