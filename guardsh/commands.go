package guardsh

import (
	"slices"
	"strings"
	"sync"
)

// cmdCtx is the state for judging one simple command.
type cmdCtx struct {
	p         *Policy
	c         *Command
	pe        pathEnv
	depth     int
	j         *judgement
	fromInput bool    // argv is completed from standard input (xargs)
	stdin     *source // what the checker knows about standard input
	prog      string  // the program whose handler runs (its base name)
	code      string  // the inline code being judged (inlineCode), for its calls
}

type handler func(cx *cmdCtx, name string, args []string)

var handlers map[string]handler

// handlerTable returns the command handlers, built on first use (not at
// init: a guardsh process that classifies nothing does not pay for them).
func handlerTable() map[string]handler {
	handlersOnce.Do(buildHandlers)
	return handlers
}

var handlersOnce sync.Once

// nest classifies a command this one runs.
func (cx *cmdCtx) nest(args []string) {
	cx.j.addNested(cx.p.classifyArgsIn(cx.c, args, cx.depth+1, cx.fromInput, cx.stdin))
}

// nestEnv classifies inner, run by a wrapper whose own words before it are
// pre (env GIT_SSH_COMMAND=x git push): the NAME=value words among them
// are in inner's environment.
func (cx *cmdCtx) nestEnv(pre, inner []string) {
	var set map[string]string
	for _, a := range pre {
		if isAssignWord(a) {
			if set == nil {
				set = map[string]string{}
			}
			k, v, _ := strings.Cut(a, "=")
			set[k] = v
		}
	}
	if set == nil {
		cx.nest(inner)
		return
	}
	c := *cx.c
	outer := cx.c.Env
	c.Env = func(name string) string {
		if v, ok := set[name]; ok {
			return v
		}
		if outer != nil {
			return outer(name)
		}
		return ""
	}
	cx.j.addNested(cx.p.classifyArgsIn(&c, inner, cx.depth+1, cx.fromInput, cx.stdin))
}

// nestInput classifies a command whose argv is completed from input.
func (cx *cmdCtx) nestInput(args []string) {
	cx.j.addNested(cx.p.classifyArgs(cx.c, args, cx.depth+1, true))
}

// nestItem classifies a command built from input items the checker
// knows (xargs, parallel): the input is data, not a command the agent
// named, so an unknown program in it is not left to the sandbox.
func (cx *cmdCtx) nestItem(args []string) {
	cx.j.addNested(uncontained(cx.p.classifyArgsIn(cx.c, args, cx.depth+1, cx.fromInput, cx.stdin)))
}

// nestItemScript is nestItem for an input line run as shell code.
func (cx *cmdCtx) nestItemScript(src string) {
	cx.j.addNested(uncontained(cx.p.scriptVerdict(src, cx.c, cx.depth+1)))
}

// uncontained turns an allow by the session sandbox back into the ask it
// replaced.
func uncontained(v Verdict) Verdict {
	if v.Rule == idSandboxContained.String() {
		return verdictOf(idUnknown, "a command built from input", v.Effects)
	}
	return v
}

// nestScript checks shell code this command runs.
func (cx *cmdCtx) nestScript(src string) {
	cx.j.addNested(cx.p.scriptVerdictIn(src, cx.c, cx.depth+1, nil, cx.stdin))
}

// nestScriptArgs checks shell code run with $0 and positional parameters
// (sh -c 'rm -rf "$1"' _ DIR).
func (cx *cmdCtx) nestScriptArgs(src string, params []string) {
	cx.j.addNested(cx.p.scriptVerdictIn(src, cx.c, cx.depth+1, params, cx.stdin))
}

// run judges argv.
func (cx *cmdCtx) run(args []string) {
	j := cx.j
	i := 0
	for i < len(args) && isAssignWord(args[i]) {
		i++
	}
	if i == len(args) {
		j.kind = kPure
		return
	}
	for _, a := range args[:i] {
		cx.guardshEnv(a)
	}
	args = normDashes(args[i:])
	if isDynamic(args[0]) {
		cx.dynamicCommand(args)
		return
	}
	name := baseName(cmdName(args[0]))
	if hasUpper(args[0]) && !strings.Contains(args[0], "/") && !strings.Contains(args[0], `\`) {
		// Linux file names are case-sensitive (GIT is not git), but on
		// case-insensitive file systems they are not: ask, and deny what
		// the lower-case command would deny.
		j.other(idUnknown, args[0])
		if handlerTable()[name] != nil || privWrappers[name] {
			if v := cx.p.classifyArgs(cx.c, append([]string{name}, args[1:]...), cx.depth+1, cx.fromInput); v.Decision == Deny {
				j.addNested(v)
			}
		}
		return
	}
	if privWrappers[name] {
		j.other(idPrivSudo, strings.Join(displayArgs(args, 6), " "))
		j.priv = name
		if inner, script, ok := unwrap(append([]string{name}, args[1:]...)); ok {
			if script != "" {
				cx.nestScript(script)
			} else if len(inner) > 0 {
				cx.nest(inner)
			}
		}
		return
	}
	if name == "xargs" || name == "parallel" {
		cx.xargs(name, args)
		return
	}
	if name == "env" || name == "sudo" {
		for _, a := range args[1:] {
			cx.guardshEnv(a)
		}
	}
	if inner, script, ok := unwrap(append([]string{name}, args[1:]...)); ok {
		j.kind = kPure
		if script != "" {
			cx.nestScript(script)
		} else if len(inner) > 0 {
			var pre []string
			if n := len(args) - len(inner); n > 1 && slices.Equal(args[n:], inner) {
				pre = args[1:n]
			}
			cx.nestEnv(pre, inner)
			if name == "watch" {
				// watch joins its arguments and runs them with sh -c
				cx.nestScript(strings.Join(inner, " "))
			}
		}
		return
	}
	if name != "guardsh" && strings.Contains(args[0], "/") {
		// guardsh under another name (a copy, a link, a rename) is
		// guardsh: judged by what the file is, not what it is called
		if t := cx.pe.resolve(args[0]); t.abs != "" && IsGuardshBinary(t.abs) {
			hGuardsh(cx, "guardsh", args)
			return
		}
	}
	if !slices.Contains(identityShells, name) && strings.Contains(args[0], "/") {
		// a shell under another name (cp /bin/bash ./b) is that shell
		if t := cx.pe.resolve(args[0]); t.abs != "" {
			if sh := ShellByIdentity(t.abs); sh != "" {
				hShell(cx, sh, args)
				return
			}
		}
	}
	if h := handlerTable()[name]; h != nil {
		cx.prog = name
		h(cx, name, args)
		return
	}
	// A program inside the project (./configure, ./scripts/test.sh).
	if strings.Contains(args[0], "/") {
		t := cx.pe.resolve(args[0])
		if t.loc == locProject {
			j.atLeast(kDev)
			return
		}
	}
	j.other(idUnknown, name)
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// normDashes turns Unicode dashes at the start of words into ASCII ones
// (‐‐hard is --hard to a rule, whatever the program makes of it).
func normDashes(args []string) []string {
	var out []string
	for i, a := range args {
		if len(a) < 3 || a[0] < 0x80 {
			continue
		}
		b := a
		for _, d := range [...]string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe63", "\uff0d"} {
			b = strings.ReplaceAll(b, d, "-")
		}
		if b != a {
			if out == nil {
				out = append([]string(nil), args...)
			}
			out[i] = b
		}
	}
	if out == nil {
		return args
	}
	return out
}

func displayArgs(args []string, n int) []string {
	out := make([]string, 0, n)
	for i, a := range args {
		if i == n {
			out = append(out, "...")
			break
		}
		out = append(out, displayArg(a))
	}
	return out
}

// dynamicCommand judges a command whose name is not known statically: it
// asks, unless the arguments would be denied for rm or a shell.
func (cx *cmdCtx) dynamicCommand(args []string) {
	cx.j.other(idDynamicCommand, displayArg(args[0]))
	if len(args) < 2 {
		return
	}
	// Guess only when the arguments read like rm's (-rf ...) or a shell's
	// (-c STRING): $CMD -rf /, $SHELL -c "...".
	rmLike, shLike := false, false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rR") && strings.Trim(a[1:], "rRfvid") == "" || a == "--recursive" || a == "--no-preserve-root" {
			rmLike = true
		}
	}
	if len(args[1]) > 1 && args[1][0] == '-' && args[1][1] != '-' && strings.ContainsRune(args[1], 'c') {
		shLike = true
	}
	for _, as := range [...]string{"rm", "sh"} {
		if as == "rm" && !rmLike || as == "sh" && !shLike {
			continue
		}
		v := cx.p.classifyArgs(cx.c, append([]string{as}, args[1:]...), cx.depth+1, cx.fromInput)
		if v.Decision == Deny {
			v.Reason = "command name not known statically (" + displayArg(args[0]) + "); as " + as + " this is denied: " + v.Reason
			cx.j.addNested(v)
			return
		}
	}
}

// inputWord stands for the arguments xargs and parallel read from input.
var inputWord = dynWord("(input)")

// operands returns the words that are not options (all words after "--").
func operands(args []string, spec optSpec) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) > 1 && a[0] == '-' && !isDynamic(a) {
			if strings.HasPrefix(a, "--") {
				if !strings.Contains(a, "=") && spec.longTakes(a[2:]) {
					i++
				}
				continue
			}
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(spec.short, a[k]) >= 0 {
					if k == len(a)-1 {
						i++
					}
					break
				}
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// optValue returns the value of option short -c / --long (last wins).
func optValue(args []string, c byte, long string) (string, bool) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case long != "" && a == "--"+long:
			if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		case long != "" && strings.HasPrefix(a, "--"+long+"="):
			val, found = a[len(long)+3:], true
		case c != 0 && len(a) >= 2 && a[0] == '-' && a[1] == c:
			if len(a) > 2 {
				val, found = a[2:], true
			} else if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		}
	}
	return val, found
}

// optValues is optValue's every occurrence, in order.
func optValues(args []string, c byte, long string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case long != "" && a == "--"+long:
			if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		case long != "" && strings.HasPrefix(a, "--"+long+"="):
			out = append(out, a[len(long)+3:])
		case c != 0 && len(a) >= 2 && a[0] == '-' && a[1] == c:
			if len(a) > 2 {
				out = append(out, a[2:])
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out
}

func hPure(cx *cmdCtx, name string, args []string) { cx.j.kind = kPure }

func hOpen(cx *cmdCtx, name string, args []string) {
	cx.j.other(idCmdOpen, name+" opens files or URLs with other programs")
}

// buildHandlers fills the handler table: it is the index of every command
// guardsh knows by name. The handlers live in files named for the rule
// family they decide (the rule ID's prefix, catalogue.go):
//
//	commands_rm.go       rm.*: deletes and sweeps
//	commands_write.go    write.*, mv.*, perms.*: writes, copies, modes, dd
//	commands_read.go     read.*: readers of files and secrets
//	commands_find.go     find.*: find and its -delete/-exec
//	commands_edit.go     edit.*: awk, sed, editors, patch, archives
//	commands_shell.go    shell.*: shells, source, eval, trap, xargs, tmux
//	commands_code.go     code.*: interpreters' inline code, debuggers
//	commands_install.go  install.*, dev.*: package managers, build tools
//	commands_net.go      net.*, container.*: network and cloud clients
//	commands_proc.go     proc.*: kill and its kin
//	commands_sys.go      sys.*, disk.*: the machine's state
//	commands_guardsh.go  guardsh.*: guardsh itself
//	git.go               git.*: git's subcommands
func buildHandlers() {
	handlers = map[string]handler{}
	reg := func(h handler, names ...string) {
		for _, n := range names {
			handlers[n] = h
		}
	}
	for n := range readSpecs {
		handlers[n] = hRead
	}
	reg(hPure, ":", "cd", "pushd", "popd", "dirs", "set", "shift",
		"unset", "read", "return", "exit", "break", "continue", "wait", "jobs", "fg", "bg", "shopt",
		"unalias", "umask", "getopts", "let", "times", "caller", "compgen", "complete", "compopt", "ulimit",
		"disown", "logout", "mapfile", "readarray", "nohup", "time", "timeout", "nice", "setsid", "stdbuf",
		"true", "false", "test", "[", "[[", "echo", "printf", "sleep", "wait", "builtin", "exec", "alias",
		"enable", "suspend", "bind", "fc", "newgrp", "tput", "stty", "clear", "reset", "hash", "type", "help")
	reg(hCommandBuiltin, "command")
	reg(hGuardsh, "guardsh", "guardsh-agent")
	reg(hDeclare, "export", "declare", "typeset", "readonly", "local")
	reg(hTmux, "tmux", "screen")
	reg(hDebugger, "gdb", "lldb")
	reg(hAt, "at", "batch", "atq")
	reg(hMktemp, "mktemp")
	reg(hRm, "rm", "rmdir", "unlink", "srm", "trash", "trash-put", "gio-trash")
	reg(hShred, "shred", "wipe", "truncate")
	reg(hWriteAll, "touch", "mkdir", "tee", "mkfifo", "mknod", "dos2unix", "unix2dos", "fallocate")
	reg(hCopy, "cp", "mv", "ln", "install", "rename", "mmv")
	reg(hPerms, "chmod", "chown", "chgrp", "chattr", "setfacl")
	reg(hDd, "dd")
	reg(hDisk, "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk",
		"sgdisk", "blkdiscard", "hdparm", "badblocks", "mdadm", "cryptsetup", "losetup", "partprobe", "zpool", "pvcreate",
		"vgcreate", "lvcreate", "lvremove", "vgremove", "pvremove", "fsck", "e2fsck", "tune2fs", "resize2fs", "diskutil", "newfs_apfs")
	reg(hKill, "kill", "killall", "killall5", "pkill", "skill", "slay")
	reg(hShutdown, "shutdown", "reboot", "halt", "poweroff", "kexec")
	reg(hInit, "init", "telinit")
	reg(hSystemctl, "systemctl", "loginctl")
	reg(hService, "service", "launchctl", "rc-service", "sv")
	reg(hCrontab, "crontab")
	reg(hSysWrite, "mount", "umount", "swapon", "swapoff", "sysctl", "modprobe", "insmod", "rmmod", "iptables", "ip6tables",
		"nft", "ufw", "firewall-cmd", "useradd", "userdel", "usermod", "passwd", "chpasswd", "groupadd", "groupdel",
		"visudo", "setenforce", "hostnamectl", "timedatectl", "update-alternatives", "ldconfig", "depmod", "dracut",
		"update-grub", "grub-install", "efibootmgr", "chsh", "chfn", "adduser", "deluser", "defaults", "scutil",
		"csrutil", "nvram", "spctl", "pmset", "networksetup", "tccutil", "auditctl", "setcap")
	reg(hShell, "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash", "posh", "rbash")
	reg(hSource, "source", ".")
	reg(hEval, "eval")
	reg(hTrap, "trap")
	reg(hFind, "find", "gfind")
	reg(hAwk, "awk", "gawk", "mawk", "nawk")
	reg(hSed, "sed", "gsed")
	reg(hTar, "tar", "gtar", "bsdtar")
	reg(hArchive, "unzip", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "7z", "7za", "rar", "unrar", "compress", "uncompress")
	reg(hPatch, "patch")
	reg(hNet, "curl", "wget", "http", "https", "xh", "httpie", "aria2c", "axel", "fetch", "lynx", "w3m", "links",
		"nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "tftp", "ssh", "scp", "rsync", "mosh", "ping",
		"ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "nmap", "curlie", "grpcurl",
		"websocat", "wscat", "ssh-copy-id", "sshpass", "autossh", "rclone", "s3cmd", "mc", "lftp", "smbclient",
		"ngrok", "cloudflared", "tailscale", "wg", "openvpn", "yt-dlp", "youtube-dl", "git-lfs", "openssl", "nsupdate")
	reg(hCloud, "aws", "gcloud", "gsutil", "bq", "az", "azcopy", "doctl", "flyctl", "fly", "heroku", "vercel", "netlify",
		"wrangler", "firebase", "pulumi", "cdk", "sam", "serverless", "sls", "helm", "k9s", "oc", "eksctl", "minikube",
		"kind", "gh", "glab", "hub", "vault", "consul", "nomad", "op", "doppler", "stripe", "psql", "mysql", "mariadb",
		"mongo", "mongosh", "redis-cli", "sqlcmd", "clickhouse-client", "cqlsh", "influx", "pg_dump", "pg_restore",
		"mysqldump", "mongodump", "mongorestore", "dropdb", "createdb", "kafka-topics", "rabbitmqctl", "rabbitmqadmin",
		"nats", "velero", "argocd", "kubectx", "kubens", "skaffold", "tilt", "ansible", "ansible-playbook", "salt",
		"packer", "vagrant", "linode-cli", "hcloud", "scw", "oci", "ibmcloud", "aliyun", "tccli", "supabase",
		"railway", "render", "neonctl", "planetscale", "pscale", "turso", "upstash", "kafkactl", "restic", "borg",
		"gcloud-alpha", "s5cmd", "b2", "ollama", "terragrunt", "cf", "juju", "lxc", "multipass", "virsh")
	reg(hKubectl, "kubectl", "k", "kubeadm", "kustomize")
	reg(hTerraform, "terraform", "tofu")
	reg(hDocker, "docker", "podman", "nerdctl", "docker-compose", "podman-compose", "colima", "lima", "buildah", "crictl", "ctr")
	reg(hPip, "pip", "pip3", "pip2")
	reg(hNpm, "npm", "yarn", "pnpm", "bun", "corepack")
	reg(hNpx, "npx", "pnpx", "bunx", "dlx")
	reg(hCargo, "cargo")
	reg(hGo, "go")
	reg(hUv, "uv")
	reg(hPkgSystem, "apt", "apt-get", "aptitude", "dpkg", "dnf", "yum", "zypper", "pacman", "apk", "brew", "port",
		"snap", "flatpak", "nix-env", "emerge", "pkg", "gem", "conda", "mamba", "micromamba", "pipx", "poetry", "pdm",
		"composer", "rye", "hatch", "pipenv", "opam", "cabal", "stack", "luarocks", "cpan", "cpanm", "nuget",
		"choco", "winget", "scoop", "mas", "asdf", "mise", "rtx", "nvm", "pyenv", "rbenv", "rustup", "sdk", "volta", "fnm",
		"gvm", "goenv", "nodenv", "bundle", "bundler", "vcpkg", "conan", "spack", "dotnet-tools", "krew", "helmfile", "rpm")
	reg(hPythonLike, "python", "python2", "python3", "pypy", "node", "nodejs", "perl", "ruby", "php", "lua", "deno", "rscript",
		"julia", "osascript", "tclsh", "wish", "expect", "pwsh", "powershell", "irb", "jshell", "ts-node", "tsx", "elixir", "iex", "erl",
		"escript", "groovy", "scala", "kotlin", "swift", "guile", "racket", "sbcl", "clisp", "ghci", "runghc", "R")
	reg(hGradle, "gradle", "gradlew")
	reg(hMvn, "mvn", "mvnw")
	reg(hMake, "make", "gmake", "bmake", "just", "task", "mage", "rake", "invoke", "nox", "tox", "ninja", "scons", "waf")
	reg(hDev, "cmake", "meson", "bazel", "bazelisk", "buck", "buck2", "pants", "sbt", "lein", "mix", "rebar3", "dotnet",
		"xcodebuild", "swiftc", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld", "as", "ar", "strip", "rustc", "rustfmt",
		"javac", "java", "kotlinc", "scalac", "tsc", "esbuild", "vite", "webpack", "rollup", "parcel", "turbo", "nx",
		"jest", "vitest", "mocha", "ava", "karma", "playwright", "cypress", "pytest", "py.test", "coverage", "mypy",
		"pyright", "pylint", "flake8", "ruff", "black", "isort", "yapf", "autopep8", "bandit", "eslint", "prettier",
		"stylelint", "tslint", "standard", "gofmt", "goimports", "golangci-lint", "staticcheck", "govulncheck",
		"shellcheck", "shfmt", "hadolint", "yamllint", "markdownlint", "rspec", "rails", "phpunit", "phpstan", "psalm",
		"zig", "nim", "ghc", "elm", "dune", "ocaml", "latexmk", "pdflatex", "xelatex", "lualatex", "pandoc", "hugo",
		"jekyll", "sphinx-build", "mkdocs", "doxygen", "protoc", "buf", "sqlc", "ctest", "valgrind",
		"hyperfine", "pre-commit-run", "biome", "oxlint", "dprint", "clang-format", "clang-tidy", "cppcheck",
		"cargo-clippy", "clippy-driver", "golint", "revive", "gotestsum", "ginkgo", "bats", "shunit2", "behave",
		"nosetests", "trial", "ward", "unittest", "codespell", "typos", "vale", "actionlint", "checkov", "tflint",
		"ktlint", "detekt", "swiftlint", "swiftformat", "rubocop", "standardrb", "erb", "sass", "lessc", "postcss",
		"tailwindcss", "svgo", "terser", "uglifyjs", "babel", "swc", "node-gyp", "wasm-pack", "trunk", "tauri",
		"electron", "expo", "react-native", "flutter", "dart", "ng", "vue", "nuxt", "next", "astro", "remix",
		"gatsby", "storybook", "lerna", "changeset", "semantic-release-dry", "air", "reflex", "entr", "watchexec",
		"nodemon", "cargo-watch", "diffoscope", "graphviz", "dot", "plantuml", "mermaid", "mmdc", "convert", "magick",
		"ffmpeg", "sox", "gcov", "lcov", "gcovr", "perf", "pprof", "benchstat", "stringer", "mockgen", "wire",
		"swag", "oapi-codegen", "openapi-generator", "gqlgen", "sqlboiler", "ent", "migrate", "alembic", "flask",
		"django-admin", "manage.py", "uvicorn", "gunicorn", "hypercorn", "streamlit", "jupyter", "ipython",
		"notebook", "nbconvert", "papermill", "dvc-repro", "mlflow-local", "bundle-exec", "yarnpkg", "tsc-watch",
		"pnpm-run", "vsce", "ovsx", "cue", "jsonnet", "dhall", "nickel", "kcl", "opa", "conftest", "regal", "semgrep",
		"trivy-fs", "grype-dir", "syft-dir", "license-checker", "depcheck", "madge", "knip", "ts-prune", "size-limit",
		"bundlesize", "lighthouse-local", "pa11y-local", "axe-local")
	reg(hEditor, "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "micro", "helix", "hx", "kak", "code", "subl")
	reg(hOpen, "open", "xdg-open", "start", "gio")
	reg(hGitDispatch, "git")
	reg(hPreCommit, "pre-commit")
}

// hGitDispatch adapts hGit (git.go) to the handler table.
func hGitDispatch(cx *cmdCtx, name string, args []string) { hGit(cx, args) }

// pathLike reports whether s names a path rather than a branch.
func pathLike(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, ":") || strings.ContainsAny(s, "*?") || strings.HasPrefix(s, "/")
}
