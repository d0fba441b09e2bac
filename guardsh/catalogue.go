package guardsh

import (
	"sort"
	"sync"
)

// BuiltinRule describes one rule of the built-in catalogue. Every verdict
// guardsh gives names one of these IDs (or a configured rule's ID).
type BuiltinRule struct {
	ID       string   `json:"id"`
	Decision Decision `json:"decision"` // the decision in default and auto mode
	// Catastrophic rules deny even in bypass mode.
	Catastrophic bool   `json:"catastrophic,omitempty"`
	Reason       string `json:"reason"`
	Hint         string `json:"hint"`
}

// rule IDs used in more than one place.
const (
	idRmRoot           = "rm.root"
	idRmHome           = "rm.recursive-home"
	idRmSystem         = "rm.recursive-system"
	idRmOutside        = "rm.recursive-outside"
	idRmProjectRoot    = "rm.project-root"
	idRmProject        = "rm.recursive-project"
	idRmDynamic        = "rm.recursive-unknown"
	idRmSystemFile     = "rm.system-file"
	idPipeShell        = "pipe.to-shell"
	idShellStdin       = "shell.unknown-script"
	idPrivSudo         = "priv.sudo"
	idDynamicCommand   = "dynamic.command"
	idForkBomb         = "proc.fork-bomb"
	idInlineCode       = "code.inline"
	idWriteProtected   = "write.protected"
	idWriteOutside     = "write.outside-project"
	idReadCredentials  = "read.credentials"
	idReadOutside      = "read.outside-project"
	idDevice           = "disk.device"
	idNetwork          = "net.command"
	idInstall          = "install.package"
	idUnknown          = "cmd.unknown"
	idSandboxContained = "sandbox.contained"
	idModeDefault      = "mode.default"
	idModePlan         = "mode.plan"
	idParse            = "parse.error"
	idNesting          = "nesting.too-deep"
)

// catalogue is the built-in rule table. Reasons are written for the model:
// what the command would do and why guardsh stops it; hints name the
// legitimate way.
// It is built on first use (ruleTable), not at init: a guardsh process that
// reports no rule does not pay for it (issue 8).
func buildCatalogue() map[string]BuiltinRule {
	return map[string]BuiltinRule{
		// Catastrophic deletes.
		idRmRoot:              {Decision: Deny, Catastrophic: true, Reason: "recursive delete of the root file system", Hint: "delete only the specific paths inside the project you mean, e.g. rm -r ./build"},
		idRmHome:              {Decision: Deny, Catastrophic: true, Reason: "recursive delete of an absolute path in your home directory or of home itself", Hint: "delete only paths inside the project (e.g. rm -r ./build); a human must remove anything else"},
		idRmSystem:            {Decision: Deny, Catastrophic: true, Reason: "recursive delete of a system directory", Hint: "system directories are not the agent's to delete; delete only paths inside the project"},
		idRmProjectRoot:       {Decision: Deny, Catastrophic: true, Reason: "recursive delete of the whole project root", Hint: "delete the specific generated directories instead, e.g. rm -r build dist"},
		idRmOutside:           {Decision: Deny, Reason: "recursive delete of an absolute path outside the project", Hint: "delete only paths inside the project or its temp dir; ask the human to remove other directories"},
		idRmProject:           {Decision: Ask, Reason: "recursive delete of project sources, which guardsh cannot undo", Hint: "build artifacts (build, dist, target, node_modules, __pycache__, .venv ...) can be removed without approval; for sources use git rm so the change is reversible"},
		idRmDynamic:           {Decision: Ask, Reason: "recursive delete of targets guardsh cannot see before it runs", Hint: "name the paths literally, e.g. rm -r -- ./build ./dist"},
		"rm.xargs":            {Decision: Deny, Catastrophic: true, Reason: "recursive delete of paths read from standard input (xargs/parallel), which no rule can inspect", Hint: "list the paths literally (rm -r -- ./a ./b) or use find ./dir -name PATTERN -delete inside the project"},
		"rm.no-preserve-root": {Decision: Deny, Catastrophic: true, Reason: "rm --no-preserve-root disables the last protection against deleting /", Hint: "never needed; delete specific paths inside the project"},
		"rm.destroy-data":     {Decision: Ask, Reason: "destroys file contents for good (shred, truncate)", Hint: "delete with rm or git rm so the change can be reviewed; a human must approve destroying data"},
		idRmSystemFile:        {Decision: Deny, Reason: "delete of a file in a system directory", Hint: "system files are managed by the package manager or the administrator; change files inside the project instead"},
		"find.delete-outside": {Decision: Deny, Catastrophic: true, Reason: "find deleting below the root file system, home or a system directory", Hint: "run find -delete only on a directory inside the project, e.g. find ./build -name '*.o' -delete"},
		"mv.devnull":          {Decision: Deny, Catastrophic: true, Reason: "moving a file onto /dev/null destroys it (and as root replaces the device)", Hint: "to delete a file inside the project use rm FILE; to empty it use : > FILE"},
		"mv.catastrophic":     {Decision: Deny, Catastrophic: true, Reason: "moving away the root file system, home or a system directory", Hint: "move only files inside the project"},
		// Disks.
		idDevice:        {Decision: Deny, Catastrophic: true, Reason: "writing to a block device destroys the file system on it", Hint: "write images to a file inside the project, e.g. dd if=x.iso of=./out.img"},
		"disk.format":   {Decision: Deny, Catastrophic: true, Reason: "formatting or repartitioning a disk device", Hint: "to build a file system image, target a file inside the project, e.g. mkfs.ext4 ./disk.img"},
		"disk.read-raw": {Decision: Ask, Reason: "reading a raw block device exposes every file on it, including other users' secrets", Hint: "read files through the file system instead"},
		// Permissions.
		"perms.recursive-system": {Decision: Deny, Catastrophic: true, Reason: "recursive chmod/chown/chgrp of the root file system, home or a system directory", Hint: "change permissions only on paths inside the project, e.g. chmod -R u+w ./build"},
		"perms.setuid":           {Decision: Ask, Reason: "setting the setuid/setgid bit creates a privilege escalation path", Hint: "a human must approve setuid binaries"},
		// Code from elsewhere.
		idPipeShell:         {Decision: Deny, Catastrophic: true, Reason: "pipe into a shell: runs code fetched from the network or decoded at run time, which no one has read", Hint: "download the script to a file in the project, read it, then run it as its own command (bash ./install.sh)"},
		idShellStdin:        {Decision: Ask, Reason: "a shell or interpreter runs a script guardsh cannot see before it runs", Hint: "write the script to a file inside the project and run it (bash ./script.sh), or pass the commands directly"},
		idInlineCode:        {Decision: Ask, Reason: "inline interpreter code deletes files, starts processes or uses the network", Hint: "put the code in a file inside the project so it can be reviewed, or do the step with plain shell commands"},
		"code.eval-dynamic": {Decision: Ask, Reason: "eval/source of text that is only known at run time", Hint: "run the commands directly instead of building them as strings"},
		idDynamicCommand:    {Decision: Ask, Reason: "the command name is not known before the script runs", Hint: "call the program by its name, e.g. rm instead of $cmd"},
		idForkBomb:          {Decision: Deny, Catastrophic: true, Reason: "fork bomb: a function that starts copies of itself until the machine stops", Hint: "never needed"},
		"guardsh.self":      {Decision: Deny, Reason: "loosens guardsh itself from inside a session (a laxer GUARDSH_MODE or --mode, the sandbox off, other guardsh settings)", Hint: "the mode and the sandbox are the human's choice; ask them to restart guardsh with other settings"},
		// Privilege.
		idPrivSudo: {Decision: Ask, Reason: "privilege escalation: runs a command as another user (root)", Hint: "guardsh runs without new privileges; ask the human to run it, or do the work inside the project without root"},
		// Destructive git.
		"git.reset-hard":          {Decision: Deny, Reason: "git reset --hard discards uncommitted changes for good", Hint: "commit or stash first (git stash push -m WIP), or use git reset --soft / --mixed"},
		"git.clean-force":         {Decision: Deny, Reason: "git clean -f deletes untracked files for good", Hint: "preview with git clean -n, then delete the specific files with rm"},
		"git.push-force":          {Decision: Deny, Reason: "force push rewrites history on the remote", Hint: "push normally (git push), or ask the human to force-push with --force-with-lease"},
		"git.push-delete":         {Decision: Ask, Reason: "deleting a remote branch or tag", Hint: "a human must approve changes to the remote"},
		"git.push":                {Decision: Ask, Reason: "git push publishes commits to a remote", Hint: "a human must approve pushes; commit locally and report"},
		"git.branch-force-delete": {Decision: Deny, Reason: "git branch -D deletes a branch even if it is not merged", Hint: "use git branch -d, which refuses to delete unmerged work"},
		"git.checkout-discard":    {Decision: Deny, Reason: "git checkout of paths discards uncommitted changes in the working tree", Hint: "stash first (git stash push PATH) or commit; to switch branches use git switch BRANCH"},
		"git.restore-worktree":    {Decision: Deny, Reason: "git restore of the working tree discards uncommitted changes", Hint: "use git restore --staged PATH to unstage, or git stash push PATH to keep a copy"},
		"git.switch-discard":      {Decision: Deny, Reason: "switching with --force/--discard-changes throws away uncommitted changes", Hint: "commit or stash first, then git switch BRANCH"},
		"git.stash-drop":          {Decision: Deny, Reason: "git stash drop/clear deletes stashed work for good", Hint: "keep the stash; use git stash list / git stash show to inspect it"},
		"git.history-rewrite":     {Decision: Deny, Reason: "rewriting history (filter-branch, filter-repo) cannot be undone", Hint: "a human must rewrite history"},
		"git.reflog-expire":       {Decision: Deny, Reason: "expiring the reflog removes the last way to recover lost commits", Hint: "leave the reflog alone"},
		"git.gc-prune":            {Decision: Deny, Reason: "git gc --prune=now deletes unreachable commits immediately", Hint: "run plain git gc, which keeps recent unreachable objects"},
		"git.branch-force":        {Decision: Ask, Reason: "moves an existing branch by force, orphaning its commits", Hint: "create a new branch instead (git branch NEW)"},
		"git.ref-delete":          {Decision: Ask, Reason: "deletes a tag or ref", Hint: "a human must approve deleting refs"},
		"git.rm-force":            {Decision: Ask, Reason: "git rm --force removes files together with their uncommitted changes", Hint: "commit or stash the changes first, or use git rm --cached to stop tracking"},
		"git.restore-patch":       {Decision: Ask, Reason: "interactive restore (-p) can discard changes in every file", Hint: "restore named paths, after stashing them"},
		"git.abort":               {Decision: Ask, Reason: "aborting a merge/rebase/cherry-pick throws away the resolution in progress", Hint: "finish the operation or ask the human"},
		"git.config-exec":         {Decision: Ask, Reason: "git -c or git config with a key that runs a program (pager, editor, ssh command, hooks path, alias, filter)", Hint: "run git without overriding these keys"},
		"git.config-write":        {Decision: Ask, Reason: "git config writes .git/config or ~/.gitconfig, which guardsh protects", Hint: "ask the human to change git configuration"},
		"git.network":             {Decision: Ask, Reason: "git fetch/pull/clone and other remote operations use the network", Hint: "a human must approve network access"},
		"git.rm-all":              {Decision: Ask, Reason: "git rm -r -f of the whole tree", Hint: "remove specific paths"},
		// System.
		"sys.shutdown":       {Decision: Deny, Catastrophic: true, Reason: "shutting down or rebooting the machine", Hint: "never needed for development work"},
		"proc.kill-all":      {Decision: Deny, Catastrophic: true, Reason: "killing every process you own (kill -1, killall5) or by name (killall)", Hint: "kill the specific process by PID, e.g. kill 12345"},
		"proc.kill":          {Decision: Ask, Reason: "signalling processes guardsh did not start", Hint: "a human must approve killing processes; for jobs of this shell use kill %1"},
		"sys.crontab-remove": {Decision: Deny, Reason: "crontab -r deletes all your cron jobs without confirmation", Hint: "edit single entries with crontab -e (human)"},
		"sys.service":        {Decision: Ask, Reason: "starting, stopping or changing system services", Hint: "a human must approve changes to system services"},
		// Files.
		idWriteProtected:     {Decision: Deny, Reason: "writing a protected file: shell rc files, ~/.ssh, .git/hooks, .git/config and guardsh's own config run code or grant access later", Hint: "these files are changed by the human only; describe the change you need"},
		idWriteOutside:       {Decision: Ask, Reason: "writes outside the project", Hint: "write inside the project or its temp dir ($TMPDIR); a human must approve anything else"},
		"write.agent-config": {Decision: Ask, Reason: "writing an AI agent's settings (.claude/settings.json, hooks) changes what the agent is allowed to do", Hint: "a human must approve changes to agent settings"},
		idReadCredentials:    {Decision: Ask, Reason: "reading credentials (SSH keys, cloud credentials, .netrc, keyrings, browser profiles)", Hint: "the agent should not need secrets; ask the human to run the step that needs them"},
		idReadOutside:        {Decision: Ask, Reason: "reading outside the project", Hint: "work with files inside the project; a human must approve reading elsewhere"},
		// Network and installs.
		idNetwork:              {Decision: Ask, Reason: "uses the network", Hint: "a human must approve network access (allow once or for this session)"},
		"net.remote-shell":     {Decision: Ask, Reason: "runs commands on another machine (ssh) or copies files there", Hint: "a human must approve remote access"},
		"net.reverse-shell":    {Decision: Deny, Catastrophic: true, Reason: "reverse shell: connects a shell to a network socket, handing the machine to whoever listens", Hint: "never needed; run the command you need directly"},
		"container.host-mount": {Decision: Deny, Catastrophic: true, Reason: "bind-mounts the root file system, home, a system directory or the docker socket into a container, which then has root access to it", Hint: "mount only directories inside the project, e.g. -v \"$PWD\":/work"},
		"container.privileged": {Decision: Ask, Reason: "privileged container or host namespaces", Hint: "a human must approve privileged containers"},
		"net.cloud":            {Decision: Ask, Reason: "cloud, cluster or database CLI acting on remote resources", Hint: "a human must approve changes to remote infrastructure"},
		idInstall:              {Decision: Ask, Reason: "installs packages outside a project virtual environment (network and writes outside the project)", Hint: "create a project venv (python -m venv .venv) and use .venv/bin/pip, or ask the human to install it"},
		"install.venv":         {Decision: Allow, Reason: "installs into the project's virtual environment", Hint: ""},
		// Modes and the rest.
		idSandboxContained: {Decision: Allow, Reason: "runs inside the verified session sandbox (no network, writes only in the project and temp dirs)", Hint: "if it needs more, a human approves the escalation"},
		"cmd.open":         {Decision: Ask, Reason: "hands files or URLs to the desktop's programs, which run outside the sandbox", Hint: "a human must approve opening it; read the file with cat or less instead"},
		idUnknown:          {Decision: Ask, Reason: "command guardsh does not know as routine development work", Hint: "a human must approve it once or for this session; a rule in ~/.config/guardsh/config.toml can allow it"},
		idModeDefault:      {Decision: Ask, Reason: "default mode asks before running shell commands", Hint: "approve it, or run guardsh --mode auto to allow routine development commands"},
		idModePlan:         {Decision: Deny, Reason: "plan mode allows only reading", Hint: "switch to default or auto mode to make changes"},
		idParse:            {Decision: Ask, Reason: "the script does not parse, so guardsh cannot see what it runs", Hint: "fix the quoting or syntax"},
		idNesting:          {Decision: Ask, Reason: "commands nested too deeply to check", Hint: "run the inner command directly"},
		// The strict profile (--mode strict, strict.go): verdicts carry a
		// precise reason and the allowed form; these are the generic texts.
		idStrictUnlisted:        {Decision: Deny, Reason: "strict mode: the command is not on the allowlist", Hint: "use a listed command, or ask the human to add a [[strict.command]] entry to the user config"},
		idStrictFlag:            {Decision: Deny, Reason: "strict mode: a flag the allowlist entry does not list", Hint: "use only the listed flags; a human adds flags to the entry's flags or value_flags"},
		idStrictValue:           {Decision: Deny, Reason: "strict mode: a flag that takes a value is not listed (it changes what the next argument means, e.g. grep -f FILE)", Hint: "use only the listed value flags; a human adds them to the entry's value_flags"},
		idStrictPath:            {Decision: Deny, Reason: "strict mode: a path argument or the working directory lies outside the project (symlinks and .. followed)", Hint: "work only inside the project"},
		idStrictProgram:         {Decision: Deny, Reason: "strict mode: programs run only from the system program directories, never from the project", Hint: "call the program by its name (grep, not ./grep)"},
		idStrictWord:            {Decision: Deny, Reason: "strict mode: one word holds what were plainly meant as several arguments", Hint: "pass arguments as separate words, e.g. grep -n 'foo$' app.js"},
		idStrictDynamic:         {Decision: Deny, Reason: "strict mode: a word is only known at run time", Hint: "write it literally; at run time the expanded command is decided again"},
		idStrictInput:           {Decision: Deny, Reason: "strict mode: arguments read from standard input (xargs, parallel) cannot be checked", Hint: "pass the arguments literally"},
		idStrictArg:             {Decision: Deny, Reason: "strict mode: an argument makes a listed command read files no argument names or change the machine (jq import/include, date MMDDhhmm, diff of a directory following its symlinks)", Hint: "pass the files as arguments (jq -s '.[0] * .[1]' a.json b.json), print with date +FORMAT, diff --no-dereference for directories"},
		idStrictEnv:             {Decision: Deny, Reason: "strict mode: a variable that makes programs run other code (LD_PRELOAD, GIT_*, PAGER, HOME ...) is set for a program", Hint: "run the command without it, or ask the human to add it to [strict] env"},
		"sys.system-write":      {Decision: Ask, Reason: "changes system state (users, packages, kernel modules, firewall)", Hint: "a human must approve this"},
		"container.destructive": {Decision: Ask, Reason: "removes containers, images or volumes", Hint: "a human must approve this"},
		// Allow-side descriptions (used as the rule ID of allowed verdicts).
		"read.only":     {Decision: Allow, Reason: "read-only command"},
		"edit.project":  {Decision: Allow, Reason: "changes files inside the project"},
		"dev.routine":   {Decision: Allow, Reason: "routine development command (build, test, lint, run project code)"},
		"shell.builtin": {Decision: Allow, Reason: "shell builtin without side effects"},
		"mode.bypass":   {Decision: Allow, Reason: "bypass mode allows everything but the catastrophic rules"},
	}
}

var catalogueOnce sync.Once

var catalogue map[string]BuiltinRule

// ruleTable returns the built-in rule table, built on its first use.
func ruleTable() map[string]BuiltinRule {
	catalogueOnce.Do(func() { catalogue = buildCatalogue() })
	return catalogue
}

// Catalogue lists the built-in rules sorted by ID.
func Catalogue() []BuiltinRule {
	out := make([]BuiltinRule, 0, len(ruleTable()))
	for id, r := range ruleTable() {
		r.ID = id
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns the built-in rule with that ID.
func LookupRule(id string) (BuiltinRule, bool) {
	r, ok := ruleTable()[id]
	r.ID = id
	return r, ok
}
