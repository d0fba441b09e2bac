package guardsh

import (
	"fmt"
	"path"
	"strings"
)

// sandboxedTmpDelete reports whether a recursive delete below the shared
// /tmp or /var/tmp is one the session sandbox contains: those are writable
// roots of the sandbox (anything that runs there may delete in them), and
// the target is named literally to rm, without "..", a glob, or input
// from elsewhere (find -delete may follow links; inline code's paths are
// read from its text). (A symlink in the path is resolved by the runner, which judges
// the resolved target too.)
func (cx *cmdCtx) sandboxedTmpDelete(arg string) bool {
	return cx.p.Sandboxed && cx.prog == "rm" && !cx.fromInput && !isDynamic(arg) && !strings.Contains(arg, "..") &&
		!strings.ContainsAny(arg, "*?[")
}

// artifactDirs are generated directories a build can recreate.
var artifactDirs = map[string]bool{
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true, "__pycache__": true,
	".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true, ".tox": true, ".nox": true,
	".venv": true, "venv": true, "coverage": true, "htmlcov": true, ".coverage": true, ".cache": true,
	".next": true, ".nuxt": true, ".parcel-cache": true, ".turbo": true, ".gradle": true, "obj": true,
	".eggs": true, ".svelte-kit": true, "tmp": true, "temp": true, ".tmp": true, "_build": true,
	".angular": true, "storybook-static": true, "site": true, "bin": false, ".hypothesis": true,
	"pkg": false, "zig-cache": true, "zig-out": true, ".zig-cache": true, "cmake-build-debug": true,
	"cmake-build-release": true, ".dart_tool": true, ".expo": true, "buck-out": true, "bazel-out": true,
	"lib-cov": true, ".nyc_output": true, "test-results": true, "playwright-report": true, "logs": true,
}

func (cx *cmdCtx) artifact(abs string) bool {
	rel, ok := strings.CutPrefix(abs, cx.pe.project+"/")
	if !ok {
		return false
	}
	for _, comp := range strings.Split(rel, "/") {
		if artifactDirs[comp] || strings.HasSuffix(comp, ".egg-info") || strings.HasPrefix(comp, "cmake-build-") {
			return true
		}
	}
	return false
}

// remove judges deleting a target; rec: recursively.
func (cx *cmdCtx) remove(arg string, rec bool) {
	j := cx.j
	t := cx.pe.resolveName(arg)
	if t.abs != "" && len(j.eff.Writes) < 32 {
		j.eff.Writes = append(j.eff.Writes, t.abs)
	}
	rec = rec || t.whole
	what := t.abs
	if t.whole {
		what += "/*"
	}
	if r, ok := strings.CutSuffix(what, "/\x01found"); ok {
		what = "the files find matches below " + r // findMatch's stand-in
	}
	switch {
	case t.loc == locUnknown:
		switch {
		case rec && (cx.fromInput || arg == inputWord):
			j.match(idRmXargs, displayArg(arg))
		case rec:
			j.other(idRmDynamic, displayArg(arg))
		default:
			j.other(idWriteOutside, "target not known before it runs: "+displayArg(arg))
		}
	case t.loc == locRoot:
		j.match(idRmRoot, what)
	case t.loc == locHome:
		j.match(idRmHome, what)
	case t.loc == locDevice:
		j.match(idDevice, t.abs)
	case t.loc == locDevSafe:
		j.match(idRmSystemFile, t.abs)
	case cx.pe.protectedWrite(t.abs):
		j.match(idWriteProtected, t.abs)
	case t.loc == locSystem:
		if rec {
			j.match(idRmSystem, what)
		} else {
			j.match(idRmSystemFile, what)
		}
	case t.loc == locProject && gitDataID(cx.pe.project, t.abs) != idNone:
		j.match(gitDataDelete(cx.pe.project, t.abs))
	case t.loc == locProjectRoot:
		if rec {
			j.match(idRmProjectRoot, what)
		} else {
			j.atLeast(kEdit)
		}
	case t.loc == locProject:
		if rec && !cx.artifact(t.abs) {
			j.other(idRmProject, what)
		} else {
			j.atLeast(kEdit)
		}
	case t.loc == locTemp || t.loc == locSharedTmp && (!rec || cx.sandboxedTmpDelete(arg)):
		j.atLeast(kEdit)
	case t.loc == locSharedTmp:
		j.other(idWriteOutside, what)
	case t.loc == locTempRoot:
		switch {
		case rec && !t.whole:
			j.match(idRmSystem, what)
		case rec && sharedTempRoot(t.abs):
			j.match(idRmSharedTemp, what)
		case rec:
			// the session's own temp dir's contents
			j.atLeast(kEdit)
		}
	case agentConfig(t.abs):
		j.other(idWriteAgentConfig, t.abs)
	default: // home or elsewhere, outside the project
		if rec && t.loc == locHomeSub {
			j.match(idRmHome, what)
		} else if rec {
			j.match(idRmOutside, what)
		} else {
			j.other(idWriteOutside, what)
		}
	}
}

// longIs reports whether a (before any "=") is an abbreviation of the long
// option full ("--rec" for "--recursive") of at least min characters.
func longIs(a, full string, min int) bool {
	name, _, _ := strings.Cut(a, "=")
	return len(name) >= min && strings.HasPrefix(full, name)
}

func hRm(cx *cmdCtx, name string, args []string) {
	rec, noPreserve, dynOpt := false, false, false
	var targets []string
	optsDone := false
	for _, a := range args[1:] {
		switch {
		case optsDone:
			targets = append(targets, a)
		case a == "--":
			optsDone = true
		case isDynamic(a):
			if a != inputWord {
				dynOpt = true // $FLAGS may hold -r
			}
			targets = append(targets, a)
		case strings.HasPrefix(a, "--"):
			switch {
			case longIs(a, "--recursive", 3):
				rec = true
			case longIs(a, "--no-preserve-root", 4):
				noPreserve = true
			}
		case len(a) > 1 && a[0] == '-':
			if strings.ContainsAny(a[1:], "rR") {
				rec = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if name == "rmdir" || name == "unlink" {
		rec = false
	}
	if dynOpt {
		rec = true
	}
	if noPreserve {
		cx.j.match(idRmNoPreserveRoot, "")
	}
	if len(targets) == 0 && cx.fromInput {
		targets = []string{inputWord}
	}
	for _, t := range targets {
		cx.remove(t, rec)
	}
	if rec {
		cx.projectSweep(targets)
	}
	cx.j.atLeast(kEdit)
}

// projectSweep: at run time the shell has already expanded rm -rf * in the
// project root into its entries. Three or more top-level entries of the
// project that are not build artifacts are treated as that glob.
func (cx *cmdCtx) projectSweep(targets []string) {
	if cx.pe.project == "" || len(targets) < 3 {
		return
	}
	seen := map[string]bool{}
	for _, a := range targets {
		t := cx.pe.resolve(a)
		if t.loc != locProject || t.whole || path.Dir(t.abs) != cx.pe.project || cx.artifact(t.abs) {
			continue
		}
		seen[t.abs] = true
	}
	if len(seen) >= 3 {
		cx.j.match(idRmProjectRoot, fmt.Sprintf("%d top-level entries of the project at once (rm -rf * in the project root)", len(seen)))
	}
}

func hShred(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kEdit)
	spec := optSpec{short: "nsr", long: []string{"iterations", "size", "random-source", "reference"}}
	ops := operands(args[1:], spec)
	for _, t := range ops {
		cx.remove(t, false)
	}
	if len(ops) > 0 {
		cx.j.other(idRmDestroyData, name+" "+strings.Join(displayArgs(ops, 3), " "))
	}
}
