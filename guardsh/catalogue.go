package guardsh

// BuiltinRule describes one rule of the built-in catalogue. Every verdict
// guardsh gives names one of these IDs (or a configured rule's ID).
type BuiltinRule struct {
	ID       string   `json:"id"`
	Decision Decision `json:"decision"` // the decision in default and auto mode
	// Catastrophic rules deny even in bypass mode.
	Catastrophic bool `json:"catastrophic,omitempty"`
	// ByDestination rules ask only because the command uses the network:
	// in a session whose connections go through its proxy (Policy.NetProxy)
	// the proxy decides each connection by destination instead, and the
	// rule does not ask.
	ByDestination bool `json:"by_destination,omitempty"`
	// Destination rules decide the connections a command opens through the
	// session's proxy (network.go), not commands.
	Destination bool   `json:"destination,omitempty"`
	Reason      string `json:"reason"`
	Hint        string `json:"hint"`
}

// ruleID names a built-in rule: an index into builtinRules. The zero value,
// idNone, names no rule.
//
// A built-in rule is a ruleID constant (idRmRoot, idGitPush, ...) and its
// row of builtinRules: the ID as printed ("rm.root"), the decision, whether
// it is catastrophic, and the reason and hint the model is told. The row is
// the only place that says what the rule decides; handlers name the rule:
//
//   - j.match(id, detail): rule id applies to the command, with its row's
//     decision (ask or deny); the strongest finding of the command stays.
//   - j.other(id, detail): the same, and the command is more than reading.
//   - j.matchOver(id, detail): the same, replacing an earlier finding of
//     the same decision with this more precise one.
//   - j.unsure(id, detail): ask, naming deny rule id, when guardsh cannot
//     tell before the command runs whether id applies (a target known only
//     at run time); the one finding that departs from its row.
//   - verdictOf(id, detail, eff): a verdict with the row's decision;
//     judged(kind, id, detail): a judgement that id applies to.
//
// A verdict departs from its rule's row only where a mode, a context or a
// wrapper says so: plan, default and bypass mode answer with rules of their
// own (mode.plan, mode.default, mode.bypass); strict mode refuses what would
// be asked, keeping the rule; the admin context asks what most rules deny
// (admin.go); a session whose connections go through its proxy does not
// ask for the ByDestination rules (Policy.NetProxy; the proxy decides each
// connection by the Destination rules); a privilege wrapper (sudo ...) of a
// denied command is denied
// under priv.sudo; and strict.env's note on an assignment allows it.
// TestRuleDecisions checks every other verdict (decisionExempt in
// catalogue_test.go lists the exemptions).
//
// ruleID is not a string, so a misspelt or made-up ID does not compile:
// j.match("rm.root", "") is a type error, j.match(idRmRoot, "") is right.
// Verdict.Rule holds the printed ID (id.String()); configured rules
// ([[rule]] id = "..." in config.toml) and the advisor keep string IDs of
// their own there.
//
// A new rule is a constant below, its row in builtinRules (TestCatalogueRows
// fails without one), an entry with commands it must and must not match in
// policy_test.go's catalogueTests (TestCatalogue, and TestRuleDecisions checks
// that the handlers decide as the row says), and docs/rules.md regenerated:
// GUARDSH_UPDATE_DOCS=1 go test ./guardsh -run TestRulesDoc.
type ruleID uint16

// The built-in rules; each has its row in builtinRules.
const (
	idNone ruleID = iota
	idRmRoot
	idRmHome
	idRmSystem
	idRmProjectRoot
	idRmSharedTemp
	idRmOutside
	idRmProject
	idRmDynamic
	idRmXargs
	idRmNoPreserveRoot
	idRmDestroyData
	idRmSystemFile
	idFindDeleteOutside
	idMvDevnull
	idMvCatastrophic
	idDevice
	idDiskFormat
	idDiskReadRaw
	idPermsRecursiveSystem
	idPermsSetuid
	idPipeShell
	idShellStdin
	idInlineCode
	idCodeEvalDynamic
	idDynamicCommand
	idForkBomb
	idGuardshSelf
	idGuardshAdmin
	idPrivSudo
	idGitResetHard
	idGitCleanForce
	idGitPushForce
	idGitPushDelete
	idGitPush
	idGitBranchForceDelete
	idGitCheckoutDiscard
	idGitRestoreWorktree
	idGitSwitchDiscard
	idGitStashDrop
	idGitHistoryRewrite
	idGitReflogExpire
	idGitGcPrune
	idGitBranchForce
	idGitRefDelete
	idGitRmForce
	idGitRestorePatch
	idGitAbort
	idGitConfigExec
	idGitConfigWrite
	idGitNetwork
	idGitRmAll
	idSysShutdown
	idProcKillAll
	idProcKill
	idSysCrontabRemove
	idSysService
	idWriteProtected
	idWriteOutside
	idWriteAgentConfig
	idReadCredentials
	idReadOutside
	idNetwork
	idNetRemoteShell
	idNetReverseShell
	idContainerHostMount
	idContainerPrivileged
	idNetCloud
	idNetRemoteDestructive
	idNetUnproxied
	idNetHostAllowed
	idNetHostUnlisted
	idNetHostDenied
	idNetPrivateAddress
	idInstall
	idInstallVenv
	idInstallProject
	idUnknown
	idCmdOpen
	idSandboxContained
	idModeDefault
	idModePlan
	idParse
	idNesting
	idTooLarge
	idCodeInData
	idShellHook
	idStrictUnlisted
	idStrictFlag
	idStrictValue
	idStrictPath
	idStrictProgram
	idStrictWord
	idStrictDynamic
	idStrictInput
	idStrictArg
	idStrictEnv
	idSysSystemWrite
	idContainerDestructive
	idReadOnly
	idEditProject
	idAgentBookkeeping
	idDevRoutine
	idShellBuiltin
	idModeBypass
	numRules // the number of ruleIDs, idNone included
)

// String returns the rule's ID as guardsh prints it, e.g. "rm.root"; ""
// for idNone.
func (id ruleID) String() string { return builtinRules[id].ID }

// rule returns the catalogue's row for id.
func (id ruleID) rule() *BuiltinRule { return &builtinRules[id] }

// builtinRules is the built-in rule table, indexed by ruleID. Reasons are
// written for the model: what the command would do and why guardsh stops
// it; hints name the legitimate way. It holds only constants, so it costs
// nothing at start-up.
var builtinRules = [numRules]BuiltinRule{
	// Catastrophic deletes.
	idRmRoot:            {ID: "rm.root", Decision: Deny, Catastrophic: true, Reason: "recursive delete of the root file system", Hint: "delete only the specific paths inside the project you mean, e.g. rm -r ./build"},
	idRmHome:            {ID: "rm.recursive-home", Decision: Deny, Catastrophic: true, Reason: "recursive delete of an absolute path in your home directory or of home itself", Hint: "delete only paths inside the project (e.g. rm -r ./build); a human must remove anything else"},
	idRmSystem:          {ID: "rm.recursive-system", Decision: Deny, Catastrophic: true, Reason: "recursive delete of a system directory", Hint: "system directories are not the agent's to delete; delete only paths inside the project"},
	idRmProjectRoot:     {ID: "rm.project-root", Decision: Deny, Catastrophic: true, Reason: "recursive delete of the whole project root", Hint: "delete the specific generated directories instead, e.g. rm -r build dist"},
	idRmSharedTemp:      {ID: "rm.shared-temp", Decision: Deny, Catastrophic: true, Reason: "recursive delete of everything in a shared temp dir (/tmp, /var/tmp, /dev/shm): other sessions', programs' and users' files, not this session's", Hint: "this session's own temp dir is $TMPDIR; delete what the session made there by name, e.g. rm -rf \"$TMPDIR\"/build"},
	idRmOutside:         {ID: "rm.recursive-outside", Decision: Deny, Reason: "recursive delete of an absolute path outside the project", Hint: "delete only paths inside the project or its temp dir; ask the human to remove other directories"},
	idRmProject:         {ID: "rm.recursive-project", Decision: Ask, Reason: "recursive delete of project sources, which guardsh cannot undo", Hint: "build artifacts (build, dist, target, node_modules, __pycache__, .venv ...) can be removed without approval; for sources use git rm so the change is reversible"},
	idRmDynamic:         {ID: "rm.recursive-unknown", Decision: Ask, Reason: "recursive delete of targets guardsh cannot see before it runs", Hint: "name the paths literally, e.g. rm -r -- ./build ./dist"},
	idRmXargs:           {ID: "rm.xargs", Decision: Deny, Catastrophic: true, Reason: "recursive delete of paths read from standard input (xargs/parallel), which no rule can inspect", Hint: "list the paths literally (rm -r -- ./a ./b) or use find ./dir -name PATTERN -delete inside the project"},
	idRmNoPreserveRoot:  {ID: "rm.no-preserve-root", Decision: Deny, Catastrophic: true, Reason: "rm --no-preserve-root disables the last protection against deleting /", Hint: "never needed; delete specific paths inside the project"},
	idRmDestroyData:     {ID: "rm.destroy-data", Decision: Ask, Reason: "destroys file contents for good (shred, truncate)", Hint: "delete with rm or git rm so the change can be reviewed; a human must approve destroying data"},
	idRmSystemFile:      {ID: "rm.system-file", Decision: Deny, Reason: "delete of a file in a system directory", Hint: "system files are managed by the package manager or the administrator; change files inside the project instead"},
	idFindDeleteOutside: {ID: "find.delete-outside", Decision: Deny, Catastrophic: true, Reason: "find deleting below the root file system, home or a system directory", Hint: "run find -delete only on a directory inside the project, e.g. find ./build -name '*.o' -delete"},
	idMvDevnull:         {ID: "mv.devnull", Decision: Deny, Catastrophic: true, Reason: "moving a file onto /dev/null destroys it (and as root replaces the device)", Hint: "to delete a file inside the project use rm FILE; to empty it use : > FILE"},
	idMvCatastrophic:    {ID: "mv.catastrophic", Decision: Deny, Catastrophic: true, Reason: "moving away the root file system, home or a system directory", Hint: "move only files inside the project"},
	// Disks.
	idDevice:      {ID: "disk.device", Decision: Deny, Catastrophic: true, Reason: "writing to a block device destroys the file system on it", Hint: "write images to a file inside the project, e.g. dd if=x.iso of=./out.img"},
	idDiskFormat:  {ID: "disk.format", Decision: Deny, Catastrophic: true, Reason: "formatting or repartitioning a disk device", Hint: "to build a file system image, target a file inside the project, e.g. mkfs.ext4 ./disk.img"},
	idDiskReadRaw: {ID: "disk.read-raw", Decision: Ask, Reason: "reading a raw block device exposes every file on it, including other users' secrets", Hint: "read files through the file system instead"},
	// Permissions.
	idPermsRecursiveSystem: {ID: "perms.recursive-system", Decision: Deny, Catastrophic: true, Reason: "recursive chmod/chown/chgrp of the root file system, home or a system directory", Hint: "change permissions only on paths inside the project, e.g. chmod -R u+w ./build"},
	idPermsSetuid:          {ID: "perms.setuid", Decision: Ask, Reason: "setting the setuid/setgid bit creates a privilege escalation path", Hint: "a human must approve setuid binaries"},
	// Code from elsewhere.
	idPipeShell:       {ID: "pipe.to-shell", Decision: Deny, Catastrophic: true, Reason: "pipe into a shell: runs code fetched from the network or decoded at run time, which no one has read", Hint: "download the script to a file in the project, read it, then run it as its own command (bash ./install.sh)"},
	idShellStdin:      {ID: "shell.unknown-script", Decision: Ask, Reason: "a shell or interpreter runs a script guardsh cannot see before it runs", Hint: "write the script to a file inside the project and run it (bash ./script.sh), or pass the commands directly"},
	idInlineCode:      {ID: "code.inline", Decision: Ask, Reason: "inline interpreter code deletes files, starts processes or uses the network", Hint: "put the code in a file inside the project so it can be reviewed, or do the step with plain shell commands"},
	idCodeEvalDynamic: {ID: "code.eval-dynamic", Decision: Ask, Reason: "eval/source of text that is only known at run time", Hint: "run the commands directly instead of building them as strings"},
	idDynamicCommand:  {ID: "dynamic.command", Decision: Ask, Reason: "the command name is not known before the script runs", Hint: "call the program by its name, e.g. rm instead of $cmd"},
	idForkBomb:        {ID: "proc.fork-bomb", Decision: Deny, Catastrophic: true, Reason: "fork bomb: a function that starts copies of itself until the machine stops", Hint: "never needed"},
	idGuardshSelf:     {ID: "guardsh.self", Decision: Deny, Reason: "loosens guardsh itself from inside a session (a laxer GUARDSH_MODE or --mode, the sandbox off, other guardsh settings)", Hint: "the mode and the sandbox are the human's choice; ask them to restart guardsh with other settings"},
	idGuardshAdmin:    {ID: "guardsh.admin", Decision: Deny, Catastrophic: true, Reason: "enters guardsh's admin context (--admin, --admin-device) from inside a session", Hint: "the admin context is a human's flag when they start guardsh-agent; ask the human"},
	// Privilege.
	idPrivSudo: {ID: "priv.sudo", Decision: Ask, Reason: "privilege escalation: runs a command as another user (root)", Hint: "guardsh runs without new privileges; ask the human to run it, or do the work inside the project without root"},
	// Destructive git.
	idGitResetHard:         {ID: "git.reset-hard", Decision: Deny, Reason: "git reset --hard discards uncommitted changes for good", Hint: "commit or stash first (git stash push -m WIP), or use git reset --soft / --mixed"},
	idGitCleanForce:        {ID: "git.clean-force", Decision: Deny, Reason: "git clean -f deletes untracked files for good", Hint: "preview with git clean -n, then delete the specific files with rm"},
	idGitPushForce:         {ID: "git.push-force", Decision: Deny, Reason: "force push rewrites history on the remote", Hint: "push normally (git push), or ask the human to force-push with --force-with-lease"},
	idGitPushDelete:        {ID: "git.push-delete", Decision: Ask, Reason: "deleting a remote branch or tag", Hint: "a human must approve changes to the remote"},
	idGitPush:              {ID: "git.push", Decision: Ask, Reason: "git push publishes commits to a remote", Hint: "a human must approve pushes; commit locally and report"},
	idGitBranchForceDelete: {ID: "git.branch-force-delete", Decision: Deny, Reason: "git branch -D deletes a branch even if it is not merged", Hint: "use git branch -d, which refuses to delete unmerged work"},
	idGitCheckoutDiscard:   {ID: "git.checkout-discard", Decision: Deny, Reason: "git checkout of paths discards uncommitted changes in the working tree", Hint: "stash first (git stash push PATH) or commit; to switch branches use git switch BRANCH"},
	idGitRestoreWorktree:   {ID: "git.restore-worktree", Decision: Deny, Reason: "git restore of the working tree discards uncommitted changes", Hint: "use git restore --staged PATH to unstage, or git stash push PATH to keep a copy"},
	idGitSwitchDiscard:     {ID: "git.switch-discard", Decision: Deny, Reason: "switching with --force/--discard-changes throws away uncommitted changes", Hint: "commit or stash first, then git switch BRANCH"},
	idGitStashDrop:         {ID: "git.stash-drop", Decision: Deny, Reason: "git stash drop/clear deletes stashed work for good", Hint: "keep the stash; use git stash list / git stash show to inspect it"},
	idGitHistoryRewrite:    {ID: "git.history-rewrite", Decision: Deny, Reason: "rewriting history (filter-branch, filter-repo) cannot be undone", Hint: "a human must rewrite history"},
	idGitReflogExpire:      {ID: "git.reflog-expire", Decision: Deny, Reason: "expiring the reflog removes the last way to recover lost commits", Hint: "leave the reflog alone"},
	idGitGcPrune:           {ID: "git.gc-prune", Decision: Deny, Reason: "git gc --prune=now deletes unreachable commits immediately", Hint: "run plain git gc, which keeps recent unreachable objects"},
	idGitBranchForce:       {ID: "git.branch-force", Decision: Ask, Reason: "moves an existing branch by force, orphaning its commits", Hint: "create a new branch instead (git branch NEW)"},
	idGitRefDelete:         {ID: "git.ref-delete", Decision: Ask, Reason: "deletes a tag or ref", Hint: "a human must approve deleting refs"},
	idGitRmForce:           {ID: "git.rm-force", Decision: Ask, Reason: "git rm --force removes files together with their uncommitted changes", Hint: "commit or stash the changes first, or use git rm --cached to stop tracking"},
	idGitRestorePatch:      {ID: "git.restore-patch", Decision: Ask, Reason: "interactive restore (-p) can discard changes in every file", Hint: "restore named paths, after stashing them"},
	idGitAbort:             {ID: "git.abort", Decision: Ask, Reason: "aborting a merge/rebase/cherry-pick throws away the resolution in progress", Hint: "finish the operation or ask the human"},
	idGitConfigExec:        {ID: "git.config-exec", Decision: Ask, Reason: "git -c or git config with a key that runs a program (pager, editor, ssh command, hooks path, alias, filter)", Hint: "run git without overriding these keys"},
	idGitConfigWrite:       {ID: "git.config-write", Decision: Ask, Reason: "git config writes .git/config or ~/.gitconfig, which guardsh protects", Hint: "ask the human to change git configuration"},
	idGitNetwork:           {ID: "git.network", Decision: Ask, ByDestination: true, Reason: "git fetch/pull/clone and other remote operations use the network", Hint: "a human must approve network access"},
	idGitRmAll:             {ID: "git.rm-all", Decision: Ask, Reason: "git rm -r -f of the whole tree", Hint: "remove specific paths"},
	// System.
	idSysShutdown:      {ID: "sys.shutdown", Decision: Deny, Catastrophic: true, Reason: "shutting down or rebooting the machine", Hint: "never needed for development work"},
	idProcKillAll:      {ID: "proc.kill-all", Decision: Deny, Catastrophic: true, Reason: "killing every process you own (kill -1, killall5) or by name (killall)", Hint: "kill the specific process by PID, e.g. kill 12345"},
	idProcKill:         {ID: "proc.kill", Decision: Ask, Reason: "signalling processes guardsh did not start", Hint: "a human must approve killing processes; for jobs of this shell use kill %1"},
	idSysCrontabRemove: {ID: "sys.crontab-remove", Decision: Deny, Reason: "crontab -r deletes all your cron jobs without confirmation", Hint: "edit single entries with crontab -e (human)"},
	idSysService:       {ID: "sys.service", Decision: Ask, Reason: "starting, stopping or changing system services", Hint: "a human must approve changes to system services"},
	// Files.
	idWriteProtected:   {ID: "write.protected", Decision: Deny, Reason: "writing a protected file: shell start-up files, ~/.ssh, git's config, hooks and the files that point git elsewhere (commondir, alternates, ...), .gitmodules and guardsh's own config run code or grant access later (docs/sandbox.md lists them)", Hint: "these files are changed by the human only; describe the change you need"},
	idWriteOutside:     {ID: "write.outside-project", Decision: Ask, Reason: "writes outside the project", Hint: "write inside the project or its temp dir ($TMPDIR); a human must approve anything else"},
	idWriteAgentConfig: {ID: "write.agent-config", Decision: Ask, Reason: "writing an AI agent's settings (.claude/settings.json, hooks) changes what the agent is allowed to do", Hint: "a human must approve changes to agent settings"},
	idReadCredentials:  {ID: "read.credentials", Decision: Ask, Reason: "reading credentials (SSH keys, cloud credentials, .netrc, keyrings, browser profiles)", Hint: "the agent should not need secrets; ask the human to run the step that needs them"},
	idReadOutside:      {ID: "read.outside-project", Decision: Ask, Reason: "reading outside the project", Hint: "work with files inside the project; a human must approve reading elsewhere"},
	// Network and installs.
	idNetwork:              {ID: "net.command", Decision: Ask, ByDestination: true, Reason: "uses the network", Hint: "a human must approve network access (allow once or for this session)"},
	idNetRemoteShell:       {ID: "net.remote-shell", Decision: Ask, Reason: "runs commands on another machine (ssh) or copies files there", Hint: "a human must approve remote access"},
	idNetReverseShell:      {ID: "net.reverse-shell", Decision: Deny, Catastrophic: true, Reason: "reverse shell: connects a shell to a network socket, handing the machine to whoever listens", Hint: "never needed; run the command you need directly"},
	idContainerHostMount:   {ID: "container.host-mount", Decision: Deny, Catastrophic: true, Reason: "bind-mounts the root file system, home, a system directory or the docker socket into a container, which then has root access to it", Hint: "mount only directories inside the project, e.g. -v \"$PWD\":/work"},
	idContainerPrivileged:  {ID: "container.privileged", Decision: Ask, Reason: "privileged container or host namespaces", Hint: "a human must approve privileged containers"},
	idNetCloud:             {ID: "net.cloud", Decision: Ask, Reason: "cloud, cluster or database CLI acting on remote resources", Hint: "a human must approve changes to remote infrastructure"},
	idNetUnproxied:         {ID: "net.unproxied", Decision: Ask, Reason: "a network client that does not go through the session's HTTP proxy (raw sockets, DNS, ICMP, git or other tools over ssh, tunnels and VPNs): in the sandbox it reaches nothing", Hint: "a human approves it to run with the network; for HTTP(S) use a client that honours HTTPS_PROXY (curl, wget, git over https)"},
	idNetRemoteDestructive: {ID: "net.remote-destructive", Decision: Ask, Reason: "deletes or overwrites remote state (an HTTP DELETE, PUT or PATCH, a POST to a delete/close/purge endpoint, a remote store's sync, move or delete), whatever host the proxy allows", Hint: "a human must approve destructive remote operations; reads and downloads run without asking"},
	// Destinations: decided per connection by the session's proxy
	// (network.go), not per command.
	idNetHostAllowed:    {ID: "net.host-allowed", Decision: Allow, Destination: true, Reason: "a destination the configuration allows", Hint: ""},
	idNetHostUnlisted:   {ID: "net.host-unlisted", Decision: Ask, Destination: true, Reason: "a connection to a host no [network] rule allows", Hint: "a human approves it, or adds the host to the user config"},
	idNetHostDenied:     {ID: "net.host-denied", Decision: Deny, Destination: true, Reason: "a connection to a host denied by", Hint: "this destination is refused by the configuration; use an allowed host"},
	idNetPrivateAddress: {ID: "net.private-address", Decision: Deny, Destination: true, Reason: "a connection to a private, loopback or link-local address", Hint: "the host's and its network's own services are reached only when a rule names them"},
	idInstall:           {ID: "install.package", Decision: Ask, Reason: "installs packages outside a project virtual environment (network and writes outside the project)", Hint: "create a project venv (python -m venv .venv) and use .venv/bin/pip, or ask the human to install it"},
	idInstallVenv:       {ID: "install.venv", Decision: Allow, Reason: "installs into the project's virtual environment", Hint: ""},
	idInstallProject:    {ID: "install.project", Decision: Allow, Reason: "installs the project's packages into the project (node_modules) inside the verified sandbox, each download decided by the proxy by destination", Hint: ""},
	// Modes and the rest.
	idCmdOpen:          {ID: "cmd.open", Decision: Ask, Reason: "hands files or URLs to the desktop's programs, which run outside the sandbox", Hint: "a human must approve opening it; read the file with cat or less instead"},
	idSandboxContained: {ID: "sandbox.contained", Decision: Allow, Reason: "runs inside the verified session sandbox (no network, writes only in the project and temp dirs)", Hint: "if it needs more, a human approves the escalation"},
	idUnknown:          {ID: "cmd.unknown", Decision: Ask, Reason: "command guardsh does not know as routine development work", Hint: "a human must approve it once or for this session; a rule in ~/.config/guardsh/config.toml can allow it"},
	idModeDefault:      {ID: "mode.default", Decision: Ask, Reason: "default mode asks before running shell commands", Hint: "approve it, or run guardsh --mode auto to allow routine development commands"},
	idModePlan:         {ID: "mode.plan", Decision: Deny, Reason: "plan mode allows only reading", Hint: "switch to default or auto mode to make changes"},
	idParse:            {ID: "parse.error", Decision: Ask, Reason: "the script does not parse, so guardsh cannot see what it runs", Hint: "fix the quoting or syntax"},
	idNesting:          {ID: "nesting.too-deep", Decision: Ask, Reason: "commands nested too deeply to check", Hint: "run the inner command directly"},
	idTooLarge:         {ID: "check.too-large", Decision: Deny, Catastrophic: true, Reason: "the command is too large or too deeply nested to check, so guardsh cannot say what it does", Hint: "split it into smaller commands, or write the script to a file in the project and run it (bash ./script.sh)"},
	idCodeInData:       {ID: "bash.code-in-data", Decision: Ask, Reason: "bash runs text as code here (arithmetic, an array subscript, ${!x}, ${x@P}, a nameref) and guardsh cannot read that text before it runs", Hint: "use literal numbers and variable names; do not evaluate text read from files or command output"},
	idShellHook:        {ID: "bash.shell-hook", Decision: Ask, Reason: "sets a bash hook that runs code guardsh does not see (BASH_ENV, ENV, SHELLOPTS, PS4, PROMPT_COMMAND, hash -p, BASH_CMDS, enable -f)", Hint: "run the commands directly instead of through bash's start-up and lookup hooks"},
	// The strict profile (--mode strict, strict.go): verdicts carry a
	// precise reason and the allowed form; these are the generic texts.
	idStrictUnlisted:       {ID: "strict.unlisted", Decision: Deny, Reason: "strict mode: the command is not on the allowlist", Hint: "use a listed command, or ask the human to add a [[strict.command]] entry to the user config"},
	idStrictFlag:           {ID: "strict.flag", Decision: Deny, Reason: "strict mode: a flag the allowlist entry does not list", Hint: "use only the listed flags; a human adds flags to the entry's flags or value_flags"},
	idStrictValue:          {ID: "strict.value-flag", Decision: Deny, Reason: "strict mode: a flag that takes a value is not listed (it changes what the next argument means, e.g. grep -f FILE)", Hint: "use only the listed value flags; a human adds them to the entry's value_flags"},
	idStrictPath:           {ID: "strict.path", Decision: Deny, Reason: "strict mode: a path argument or the working directory lies outside the project (symlinks and .. followed)", Hint: "work only inside the project"},
	idStrictProgram:        {ID: "strict.program", Decision: Deny, Reason: "strict mode: programs run only from the system program directories, never from the project", Hint: "call the program by its name (grep, not ./grep)"},
	idStrictWord:           {ID: "strict.word", Decision: Deny, Reason: "strict mode: one word holds what were plainly meant as several arguments", Hint: "pass arguments as separate words, e.g. grep -n 'foo$' app.js"},
	idStrictDynamic:        {ID: "strict.dynamic", Decision: Deny, Reason: "strict mode: a word is only known at run time", Hint: "write it literally; at run time the expanded command is decided again"},
	idStrictInput:          {ID: "strict.input", Decision: Deny, Reason: "strict mode: arguments read from standard input (xargs, parallel) cannot be checked", Hint: "pass the arguments literally"},
	idStrictArg:            {ID: "strict.argument", Decision: Deny, Reason: "strict mode: an argument makes a listed command read files no argument names or change the machine (jq import/include, date MMDDhhmm, diff of a directory following its symlinks)", Hint: "pass the files as arguments (jq -s '.[0] * .[1]' a.json b.json), print with date +FORMAT, diff --no-dereference for directories"},
	idStrictEnv:            {ID: "strict.env", Decision: Deny, Reason: "strict mode: a variable that makes programs run other code (LD_PRELOAD, GIT_*, PAGER, HOME ...) is set for a program", Hint: "run the command without it, or ask the human to add it to [strict] env"},
	idSysSystemWrite:       {ID: "sys.system-write", Decision: Ask, Reason: "changes system state (users, packages, kernel modules, firewall)", Hint: "a human must approve this"},
	idContainerDestructive: {ID: "container.destructive", Decision: Ask, Reason: "removes containers, images or volumes", Hint: "a human must approve this"},
	// Allow-side descriptions (used as the rule ID of allowed verdicts).
	idReadOnly:         {ID: "read.only", Decision: Allow, Reason: "read-only command"},
	idEditProject:      {ID: "edit.project", Decision: Allow, Reason: "changes files inside the project"},
	idAgentBookkeeping: {ID: "agent.bookkeeping", Decision: Allow, Reason: "the agent's own bookkeeping file (Claude Code's shell snapshot), written by the agent's snapshot script and by nothing else"},
	idDevRoutine:       {ID: "dev.routine", Decision: Allow, Reason: "routine development command (build, test, lint, run project code)"},
	idShellBuiltin:     {ID: "shell.builtin", Decision: Allow, Reason: "shell builtin without side effects"},
	idModeBypass:       {ID: "mode.bypass", Decision: Allow, Reason: "bypass mode allows everything but the catastrophic rules"},
}
