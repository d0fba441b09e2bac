package guardsh

import "strings"

func hDev(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	if name == "java" {
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
				cx.j.eff.Network = true
				cx.j.other(idNetwork, "java program talking to "+a)
				if what := javaRemoteCLI(args); what != "" { // commands_net_remote.go
					cx.j.other(idNetRemoteDestructive, what)
				}
				return
			}
		}
	}
}

// package managers.
func hPip(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "rceti", long: []string{"requirement", "constraint", "editable", "target", "index-url", "extra-index-url", "python", "prefix", "root", "find-links", "log", "cache-dir", "src", "platform", "python-version", "implementation", "abi", "upgrade-strategy", "progress-bar", "trusted-host", "proxy", "timeout", "retries", "exists-action", "cert", "client-cert", "report"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "uninstall", "download", "wheel":
		cx.install(args, name)
	case "list", "show", "freeze", "check", "help", "debug", "inspect", "hash", "config", "cache", "index", "search":
		cx.j.atLeast(kRead)
	default:
		cx.j.other(idUnknown, name+" "+displayArg(ops[0]))
	}
}

// install judges a package install: inside a project venv it is an edit,
// otherwise it asks.
func (cx *cmdCtx) install(args []string, name string) {
	cx.j.eff.Install = true
	cx.j.eff.Network = true
	if cx.inVenv(args[0]) && !hasOpt(args[1:], 0, "user", "root", "prefix", "target", "global") {
		cx.j.atLeast(kEdit)
		cx.j.allowID = idInstallVenv
		cx.j.eff.Writes = append(cx.j.eff.Writes, cx.pe.project)
		return
	}
	if cx.projectInstall(name, args) {
		cx.j.atLeast(kEdit)
		cx.j.allowID = idInstallProject
		cx.j.eff.Writes = append(cx.j.eff.Writes, cx.pe.project)
		return
	}
	cx.j.other(idInstall, strings.Join(displayArgs(args, 5), " "))
	// where an approved install writes, for the rights it receives
	home := cx.pe.home
	switch name {
	case "npm", "yarn", "pnpm", "bun":
		if !hasOpt(args[1:], 'g', "global") && !(len(args) > 1 && args[1] == "global") {
			cx.j.eff.Writes = append(cx.j.eff.Writes, cx.pe.project)
		}
	case "pip", "pip3", "python", "python3":
		if hasOpt(args[1:], 0, "user") && home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/.local")
		}
	case "cargo":
		if home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/.cargo")
		}
	case "go":
		if home != "" {
			cx.j.eff.Writes = append(cx.j.eff.Writes, home+"/go")
		}
	}
}

// projectInstall reports whether a JavaScript package manager's install
// writes only the project's own node_modules and lock file, in a verified
// sandbox (which keeps every write, the packages' install scripts' too,
// in the writable roots) whose network goes through the proxy (which
// decides each download by destination): npm install, npm ci, yarn,
// pnpm install, bun add in the project; not a global install, one with
// another prefix or directory, nor npm link (which writes the global
// prefix).
func (cx *cmdCtx) projectInstall(name string, args []string) bool {
	if !cx.p.Sandboxed || !cx.p.NetProxy {
		return false
	}
	switch name {
	case "npm", "yarn", "pnpm", "bun":
	default:
		return false
	}
	if hasOpt(args[1:], 'g', "global", "location", "prefix", "cwd", "dir", "modules-folder", "global-folder", "store-dir", "virtual-store-dir", "cache-folder") ||
		hasOpt(args[1:], 'C', "workspace-root") {
		return false
	}
	for _, a := range args[1:] {
		if isDynamic(a) {
			return false
		}
		switch a {
		case "global", "link", "unlink", "ln":
			return false
		}
		if strings.HasPrefix(a, "-") && !projectInstallOpt(a) {
			// npm's nopt expands abbreviations (--glob is --global,
			// --pre --prefix) and options such as --userconfig or
			// --script-shell change where it installs or what runs:
			// only the options known to keep the install in the project
			return false
		}
	}
	if cx.c.Env != nil {
		// npm reads every option from npm_config_* (any case), yarn from
		// YARN_*: the ones that move the install or its scripts
		for _, k := range []string{"prefix", "global", "location", "userconfig", "globalconfig", "script_shell", "script-shell", "cache", "dir"} {
			for _, n := range []string{"npm_config_" + k, "NPM_CONFIG_" + strings.ToUpper(k)} {
				if cx.c.Env(n) != "" {
					return false
				}
			}
		}
		for _, n := range []string{"YARN_GLOBAL_FOLDER", "YARN_PREFIX", "PNPM_HOME", "BUN_INSTALL", "BUN_INSTALL_GLOBAL_DIR"} {
			if cx.c.Env(n) != "" {
				return false
			}
		}
	}
	return true
}

// projectInstallOpts are the options of npm, yarn, pnpm and bun installs
// that keep the install in the project (written in full: an abbreviation
// is not known to be one of them).
var projectInstallOpts = map[string]bool{
	"save": true, "save-dev": true, "save-prod": true, "save-optional": true, "save-peer": true, "save-exact": true,
	"save-bundle": true, "no-save": true, "dev": true, "exact": true, "tilde": true, "optional": true, "peer": true,
	"ignore-scripts": true, "legacy-peer-deps": true, "strict-peer-deps": true, "no-audit": true, "no-fund": true,
	"audit": true, "fund": true, "prefer-offline": true, "prefer-online": true, "offline": true, "frozen-lockfile": true,
	"immutable": true, "production": true, "prod": true, "omit": true, "include": true, "silent": true, "loglevel": true,
	"verbose": true, "quiet": true, "foreground-scripts": true, "no-package-lock": true, "package-lock-only": true,
	"dry-run": true, "lockfile-only": true, "pure-lockfile": true, "no-lockfile": true, "workspace": true,
	"workspaces": true, "include-workspace-root": true, "filter": true, "recursive": true, "force": true,
	"no-progress": true, "progress": true, "no-optional": true, "non-interactive": true, "check-files": true,
	"prefer-frozen-lockfile": true, "no-frozen-lockfile": true, "install-links": true, "no-install-links": true,
}

// projectInstallOpt: an option of projectInstallOpts (--name, --name=v),
// or short letters among -D -E -S -O -P -B -s -q -d -w -r -f -y.
func projectInstallOpt(a string) bool {
	if strings.HasPrefix(a, "--") {
		name, _, _ := strings.Cut(a[2:], "=")
		return projectInstallOpts[name]
	}
	return strings.Trim(a[1:], "DESOPBsqdwrfy") == ""
}

// inVenv reports whether program (pip, python, uv) runs from or for a
// virtual environment inside the project.
func (cx *cmdCtx) inVenv(program string) bool {
	if strings.Contains(program, "/") {
		t := cx.pe.resolve(program)
		if t.loc == locProject {
			return true
		}
	} else if cx.c.Which != nil {
		// the runner knows what the name runs: that decides, whatever
		// VIRTUAL_ENV says
		f := cx.c.Which(program)
		return f != "" && cx.pe.resolve(f).loc == locProject
	}
	if cx.c.Env != nil {
		if v := cx.c.Env("VIRTUAL_ENV"); v != "" {
			if t := cx.pe.resolve(v); t.loc == locProject {
				return true
			}
		}
	}
	return false
}

func hNpm(cx *cmdCtx, name string, args []string) {
	if name == "bun" && (hasOpt(args[1:], 'e', "eval") || hasOpt(args[1:], 'p', "print")) {
		hPythonLike(cx, name, args) // bun -e CODE is node -e CODE
		return
	}
	ops := operands(args[1:], optSpec{short: "wC", long: []string{"workspace", "prefix", "cwd", "filter", "dir", "registry"}})
	if len(ops) == 0 {
		if name == "yarn" || name == "bun" || name == "pnpm" {
			cx.install(args, name)
			return
		}
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "i", "ci", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "unlink", "link", "dedupe", "prune", "rebuild", "import", "patch-commit":
		cx.install(args, name)
	case "run", "run-script", "test", "t", "start", "build", "lint", "format", "fmt", "typecheck", "check", "dev", "tst", "exec", "pack", "init", "version", "create", "x":
		if ops[0] == "x" || ops[0] == "create" || ops[0] == "init" && len(ops) > 1 {
			cx.j.eff.Network = true
			cx.j.other(idNetwork, name+" "+ops[0]+" downloads and runs a package")
			return
		}
		cx.j.atLeast(kDev)
	case "ls", "list", "why", "explain", "config", "get", "help", "prefix", "root", "bin", "outdated", "view", "info", "show", "search", "audit", "doctor", "--version", "-v", "whoami", "licenses", "cache":
		if ops[0] == "outdated" || ops[0] == "view" || ops[0] == "info" || ops[0] == "search" || ops[0] == "audit" || ops[0] == "whoami" {
			cx.j.eff.Network = true
			cx.j.other(idNetwork, name+" "+ops[0])
			return
		}
		cx.j.atLeast(kRead)
	case "publish", "unpublish", "deprecate", "login", "logout", "adduser", "owner", "access", "token", "dist-tag", "team", "org", "star":
		cx.j.eff.Network = true
		cx.j.other(idNetCloud, name+" "+ops[0])
	case "global":
		cx.install(args, name)
	case "pkg":
		// npm pkg get|set|delete|fix: reads or edits the project's package.json
		if len(ops) > 1 && ops[1] == "get" {
			cx.j.atLeast(kRead)
			return
		}
		cx.j.atLeast(kEdit)
		cx.write("package.json", false)
	default:
		if name == "yarn" || name == "pnpm" || name == "bun" {
			// yarn SCRIPT runs a package.json script
			cx.j.atLeast(kDev)
			return
		}
		cx.j.other(idUnknown, name+" "+displayArg(ops[0]))
	}
}

func hNpx(cx *cmdCtx, name string, args []string) {
	i := optSpec{short: "pc", long: []string{"package", "call"}}.skip(args, 1)
	if i < len(args) && !hasOpt(args[1:i], 'p', "package") {
		// npx jest, npx tsc: a dev tool of the project (a download would
		// need the network, which the sandbox refuses)
		if tool := baseName(cmdName(args[i])); isDevTool(tool) {
			cx.j.atLeast(kDev)
			return
		}
	}
	cx.j.eff.Network = true
	cx.j.other(idNetwork, name+" may download and run a package")
}

func isDevTool(name string) bool {
	switch name {
	case "tsc", "jest", "vitest", "eslint", "prettier", "mocha", "playwright", "cypress", "webpack", "vite",
		"rollup", "esbuild", "ts-node", "tsx", "next", "nuxt", "astro", "stylelint", "biome", "turbo", "nx", "lerna",
		"svelte-check", "vue-tsc", "ng", "karma", "ava", "c8", "nyc", "depcheck", "knip", "tailwindcss", "postcss",
		"babel", "swc", "storybook", "typedoc", "api-extractor", "changeset", "husky-run", "lint-staged":
		return true
	}
	return false
}

func hCargo(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "pjZ", long: []string{"package", "jobs", "target", "manifest-path", "features", "bin", "example", "test", "bench", "color", "config", "target-dir", "profile"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch strings.TrimPrefix(ops[0], "+") {
	case "install", "uninstall":
		cx.install(args, name)
	case "publish", "login", "logout", "owner", "yank":
		cx.j.eff.Network = true
		cx.j.other(idNetCloud, name+" "+ops[0])
	case "add", "remove", "update", "fetch", "search", "generate-lockfile", "vendor":
		cx.j.eff.Network = true
		cx.j.other(idNetwork, name+" "+ops[0])
	default:
		cx.j.atLeast(kDev)
	}
}

func hGo(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "Co", long: []string{}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "install", "get":
		cx.install(args, name)
	case "version", "env", "list", "doc", "help":
		cx.j.atLeast(kRead)
		if ops[0] == "env" && hasOpt(args[1:], 'w') {
			cx.j.other(idWriteOutside, "go env -w writes the user's go env file")
		}
	case "mod":
		if len(ops) > 1 && (ops[1] == "download" || ops[1] == "tidy") {
			cx.j.atLeast(kDev)
			return
		}
		cx.j.atLeast(kDev)
	default:
		cx.j.atLeast(kDev)
	}
}

func hPkgSystem(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "otcS", long: []string{"option", "target-release", "config-file", "root"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "list", "search", "show", "info", "policy", "depends", "rdepends", "madison", "showpkg", "stats", "dump",
		"doctor", "config", "--version", "leaves", "deps", "uses", "desc", "home", "outdated", "-Q", "-Qi", "-Ql", "-Ss", "-Si":
		cx.j.atLeast(kRead)
	default:
		cx.install(args, name)
	}
}

func hUv(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "p", long: []string{"python", "directory", "project", "with", "index-url"}})
	if len(ops) == 0 {
		cx.j.atLeast(kRead)
		return
	}
	switch ops[0] {
	case "sync", "lock", "venv", "init":
		cx.j.eff.Network = ops[0] != "venv" && ops[0] != "init"
		cx.j.atLeast(kEdit)
	case "add", "remove":
		if cx.pe.project != "" {
			cx.j.eff.Install, cx.j.eff.Network = true, true
			cx.j.atLeast(kEdit)
			return
		}
		cx.install(args, name)
	case "pip":
		if len(ops) > 1 && (ops[1] == "install" || ops[1] == "uninstall" || ops[1] == "sync") {
			if hasOpt(args[1:], 0, "system") {
				cx.install([]string{"uv"}, name)
				return
			}
			cx.j.eff.Install, cx.j.eff.Network = true, true
			cx.j.atLeast(kEdit)
			return
		}
		cx.j.atLeast(kRead)
	case "tool", "self", "publish":
		cx.install(args, name)
	case "tree", "version", "help", "python":
		cx.j.atLeast(kRead)
	default:
		cx.j.atLeast(kDev)
	}
}

func hGradle(cx *cmdCtx, name string, args []string) {
	for _, o := range operands(args[1:], optSpec{short: "DPIcpx", long: []string{"project-dir", "init-script", "settings-file", "exclude-task"}}) {
		lo := strings.ToLower(displayArg(o))
		if strings.Contains(lo, "publish") || strings.Contains(lo, "upload") || strings.Contains(lo, "deploy") || strings.Contains(lo, "release") {
			cx.j.eff.Network = true
			cx.j.other(idNetCloud, name+" "+o)
			return
		}
	}
	cx.j.atLeast(kDev)
}

func hMvn(cx *cmdCtx, name string, args []string) {
	for _, o := range operands(args[1:], optSpec{short: "DPfslbTe", long: []string{"file", "settings", "projects", "threads", "log-file", "activate-profiles"}}) {
		lo := strings.ToLower(displayArg(o))
		if lo == "deploy" || strings.Contains(lo, "release:") || strings.Contains(lo, "deploy:") {
			cx.j.eff.Network = true
			cx.j.other(idNetCloud, name+" "+o)
			return
		}
	}
	cx.j.atLeast(kDev)
}

func hMake(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	if name == "make" || name == "gmake" || name == "bmake" {
		// the makefile from standard input (-f -) or --eval: its recipes
		// are command lines like any others
		f, ok := optValue(args[1:], 'f', "file")
		if !ok {
			f, ok = optValue(args[1:], 0, "makefile")
		}
		if ok && (f == "-" || f == "/dev/stdin" || f == "/dev/fd/0" || f == "/proc/self/fd/0") {
			if text, ok := cx.stdinText(); ok {
				cx.makefileText(text)
			} else {
				cx.j.other(idInlineCode, name+" -f - runs the recipes of a makefile read from standard input, not known before it runs")
			}
		}
		for k, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, "--eval="); ok {
				cx.makefileText(v)
			} else if (a == "--eval" || a == "-E") && k+2 < len(args) {
				cx.makefileText(args[k+2]) // -E is GNU make's --eval
			} else if v, ok := strings.CutPrefix(a, "-E"); ok && v != "" {
				cx.makefileText(v)
			}
		}
	}
	for _, o := range operands(args[1:], optSpec{short: "CfIjloWE", long: []string{"directory", "file", "makefile", "include-dir", "jobs", "load-average", "old-file", "what-if", "eval"}}) {
		lo := strings.ToLower(displayArg(o))
		if lo == "install" || lo == "deploy" || lo == "publish" || lo == "release" || lo == "upload" || lo == "push" || strings.HasPrefix(lo, "deploy") || strings.HasPrefix(lo, "publish") {
			cx.j.other(idUnknown, name+" "+o+" may install or publish")
		}
	}
	if d, ok := optValue(args[1:], 'C', "directory"); ok {
		if t := cx.pe.resolve(d); !t.loc.inside() {
			cx.j.other(idWriteOutside, "make -C "+displayArg(d))
		}
	}
}

// hPreCommit: pre-commit install (and uninstall) writes .git/hooks;
// autoupdate and install-hooks fetch from the network.
func hPreCommit(cx *cmdCtx, name string, args []string) {
	ops := operands(args[1:], optSpec{short: "tc", long: []string{"hook-type", "config"}})
	if len(ops) > 0 && (ops[0] == "install" || ops[0] == "install-hooks" || ops[0] == "uninstall" || ops[0] == "autoupdate") {
		if ops[0] == "autoupdate" || ops[0] == "install-hooks" {
			cx.j.eff.Network = true
			cx.j.other(idNetwork, "pre-commit "+ops[0])
			return
		}
		cx.j.match(idWriteProtected, ".git/hooks (pre-commit "+ops[0]+")")
		return
	}
	cx.j.atLeast(kDev)
}
