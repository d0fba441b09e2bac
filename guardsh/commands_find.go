package guardsh

import "strings"

func hFind(cx *cmdCtx, name string, args []string) {
	j := cx.j
	j.atLeast(kRead)
	i := 1
	for i < len(args) {
		a := args[i]
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") {
			i++
			continue
		}
		if a == "-D" {
			i += 2
			continue
		}
		break
	}
	var roots []string
	for i < len(args) {
		a := args[i]
		if !isDynamic(a) && (strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "\\(") {
			break
		}
		roots = append(roots, a)
		i++
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	filtered := false
	expr := args[i:]
	// artifacts: every filter is a -name/-iname naming build artifacts
	// (find . -name '*.pyc' -delete)
	artifacts, names, dirName := true, 0, ""
	for k := 0; k < len(expr); k++ {
		switch a := expr[k]; {
		case (a == "-name" || a == "-iname") && k+1 < len(expr):
			names++
			artifacts = artifacts && artifactName(expr[k+1])
			if artifactDirs[expr[k+1]] && names == 1 {
				dirName = expr[k+1]
			}
			k++
		case a == "-type" || a == "-maxdepth" || a == "-mindepth":
			k++
		case a == "-exec" || a == "-execdir":
			// the action: judged below, with {} standing for what is found
			for k+1 < len(expr) && expr[k+1] != ";" && expr[k+1] != "+" {
				k++
			}
			k++
		case a == "-delete" || a == "-print" || a == "-o" || a == "-or" || a == "(" || a == ")" || a == "\\(" || a == "\\)" || a == "-depth":
		default:
			artifacts = false
		}
	}
	artifacts = artifacts && names > 0
	for k := 0; k < len(expr); k++ {
		a := expr[k]
		switch a {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
			"-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-user", "-group", "-uid", "-gid",
			"-perm", "-links", "-inum", "-samefile", "-type", "-xtype", "-used", "-newermt", "-anewer", "-cnewer", "-fstype",
			"-context", "-mindepth":
			filtered = true
			k++
		case "-maxdepth", "-regextype", "-files0-from":
			k++
		case "-empty":
			filtered = true
		case "-printf", "-fprint", "-fprint0", "-fls", "-fprintf":
			if a != "-printf" && k+1 < len(expr) {
				cx.write(expr[k+1], false)
			}
			k++
			if a == "-fprintf" {
				k++
			}
		case "-delete":
			for _, r := range roots {
				if artifacts && !isDynamic(r) {
					if t := cx.pe.resolve(r); t.loc == locProject || t.loc == locProjectRoot || t.loc == locTemp {
						j.atLeast(kEdit) // generated files only; find -delete removes no non-empty directory
						continue
					}
				}
				cx.findDelete(r, filtered, true)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			end := k + 1
			for end < len(expr) && expr[end] != ";" && !(expr[end] == "+" && end > k+1 && strings.Contains(expr[end-1], "{}")) {
				end++
			}
			inner := append([]string(nil), expr[k+1:min(end, len(expr))]...)
			k = end
			if len(inner) == 0 {
				continue
			}
			// Without its terminator find refuses to run, but a ";" the
			// shell took as a separator is too easy to get wrong: judge it.
			j.kind = kPure
			if in := NormalizeArgv(inner); len(in) > 0 {
				switch in[0] {
				case "rm", "unlink", "shred", "rmdir", "truncate", "srm", "wipe":
					for _, r := range roots {
						switch cx.pe.resolve(r).loc {
						case locRoot, locHome, locSystem, locTempRoot:
							j.match(idFindDeleteOutside, displayArg(r)+" -exec "+in[0])
						}
					}
				}
			}
			for n, r := range roots {
				if n == 4 {
					break
				}
				match := findMatch(r, filtered)
				if artifacts && names == 1 && dirName != "" && !isDynamic(r) {
					// find . -name __pycache__ -exec rm -r {} +: what is
					// found is a generated directory of that name
					if t := cx.pe.resolve(r); t.loc == locProject || t.loc == locProjectRoot {
						match = strings.TrimSuffix(r, "/") + "/" + dirName
					}
				}
				sub := make([]string, len(inner))
				for x, w := range inner {
					if strings.Contains(w, "{}") {
						w = strings.ReplaceAll(w, "{}", match)
					}
					sub[x] = w
				}
				cx.nest(sub)
			}
		}
	}
}

// artifactPatterns are -name patterns of generated files.
var artifactPatterns = map[string]bool{
	"*.pyc": true, "*.pyo": true, "*.o": true, "*.obj": true, "*.class": true, "*.log": true, "*.tmp": true,
	"*~": true, ".DS_Store": true, "*.orig": true, "*.rej": true, "*.swp": true, "*.bak": true, "*.d": true,
	"*.gcda": true, "*.gcno": true, "*.egg-info": true, "*.py[co]": true, "*.so": true, "*.a": true,
	"Thumbs.db": true, "*.coverage": true, ".coverage": true,
}

// artifactName reports whether a find -name pattern names only generated
// files or directories (which find -delete removes only once empty).
func artifactName(p string) bool {
	return artifactPatterns[p] || artifactDirs[p]
}

// findMatch stands for "{}", a file find found below root.
func findMatch(root string, filtered bool) string {
	if isDynamic(root) {
		return root
	}
	root = strings.TrimSuffix(root, "/")
	if root == "" {
		root = "/"
	}
	if filtered {
		if root == "/" {
			return "/\x01found"
		}
		return root + "/\x01found"
	}
	if root == "/" {
		return "/*"
	}
	return root + "/*"
}

// findDelete judges find ROOT ... -delete.
func (cx *cmdCtx) findDelete(root string, filtered, rec bool) {
	t := cx.pe.resolve(root)
	switch t.loc {
	case locRoot, locHome, locSystem, locTempRoot:
		cx.j.match(idFindDeleteOutside, displayArg(root))
		return
	case locProject, locProjectRoot, locTemp, locUnknown:
		cx.remove(findMatch(root, filtered), rec)
		return
	}
	if filtered {
		cx.j.other(idWriteOutside, "find "+t.abs+" ... -delete")
		return
	}
	cx.remove(root, true)
}
