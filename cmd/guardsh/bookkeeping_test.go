package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guardsh/guardsh/internal/shellargs"
)

// claudeSnapshotScriptFor is the script Claude Code 2.1.197 runs as
// `$SHELL -c -l SCRIPT` (CLAUDECODE=1) to make its shell snapshot, as its
// CLI builds it for bash with ~/.bashrc present (the function S$p of the
// installed binary, with the ripgrep alias and the PATH heredoc).
func claudeSnapshotScriptFor(snap, rc, path string) string {
	return `SNAPSHOT_FILE=` + snap + `
      source "` + rc + `" < /dev/null

      # First, create/clear the snapshot file
      echo "# Snapshot file" >| "$SNAPSHOT_FILE"

      # When this file is sourced, we first unalias to avoid conflicts
      # This is necessary because aliases get "frozen" inside function definitions at definition time,
      # which can cause unexpected behavior when functions use commands that conflict with aliases
      echo "# Unset all aliases to avoid conflicts with functions" >> "$SNAPSHOT_FILE"
      echo "unalias -a 2>/dev/null || true" >> "$SNAPSHOT_FILE"

      
      echo "# Functions" >> "$SNAPSHOT_FILE"

      # Force autoload all functions first
      declare -f > /dev/null 2>&1

      # Now get user function names - filter completion functions (single underscore prefix)
      # but keep double-underscore helpers (e.g. __zsh_like_cd from mise, __pyenv_init)
      declare -F | cut -d' ' -f3 | grep -vE '^_[^_]' | while read func; do
        # Encode the function to base64, preserving all special characters
        encoded_func=$(declare -f "$func" | base64 )
        # Write the function definition to the snapshot
        echo "eval \"\$(echo '$encoded_func' | base64 -d)\" > /dev/null 2>&1" >> "$SNAPSHOT_FILE"
      done
    
      echo "# Shell Options" >> "$SNAPSHOT_FILE"
      shopt -p | head -n 1000 >> "$SNAPSHOT_FILE"
      set -o | grep "on" | awk '{print "set -o " $1}' | head -n 1000 >> "$SNAPSHOT_FILE"
      echo "shopt -s expand_aliases" >> "$SNAPSHOT_FILE"
    
      echo "# Aliases" >> "$SNAPSHOT_FILE"
      # Filter out winpty aliases on Windows to avoid "stdin is not a tty" errors
      # Git Bash automatically creates aliases like "alias node='winpty node.exe'" for
      # programs that need Win32 Console in mintty, but winpty fails when there's no TTY
      if [[ "$OSTYPE" == "msys" ]] || [[ "$OSTYPE" == "cygwin" ]]; then
        alias | grep -v "='winpty " | sed 's/^alias //g' | sed 's/^/alias -- /' | head -n 1000 >> "$SNAPSHOT_FILE"
      else
        alias | sed 's/^alias //g' | sed 's/^/alias -- /' | head -n 1000 >> "$SNAPSHOT_FILE"
      fi
  

      # Check for rg availability
      echo "# Check for rg availability" >> "$SNAPSHOT_FILE"
      echo "if ! (unalias rg 2>/dev/null; command -v rg) >/dev/null 2>&1; then" >> "$SNAPSHOT_FILE"
  
      echo '  alias rg='"'/usr/lib/claude/rg'" >> "$SNAPSHOT_FILE"
    
      echo "fi" >> "$SNAPSHOT_FILE"
  

      # Add PATH to the file
      cat >> "$SNAPSHOT_FILE" << 'PATH_END_k2j3h4g5f6d7s8a9'
export PATH='` + path + `'
PATH_END_k2j3h4g5f6d7s8a9
  

      # Exit silently on success, only report errors
      if [ ! -f "$SNAPSHOT_FILE" ]; then
        echo "Error: Snapshot file was not created at $SNAPSHOT_FILE" >&2
        exit 1
      fi
    `
}

// TestClaudeSnapshot: Claude Code's snapshot script runs under guardsh in
// every mode and writes its snapshot, which carries the user's function
// from ~/.bashrc (real bash sourcing it runs it) and the agent's PATH; the
// per-command string that sources it then has the function. The attacks:
// the model's commands cannot write the snapshot (plant code for later
// commands), Claude Code's settings or hooks, another agent's directory,
// nor get the allowance by running the same script themselves (nested in
// guardsh, or as a program with a forged descriptor); a top-level script
// whose snapshot is a link to the settings, or names another file, gets
// nothing.
func TestClaudeSnapshot(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			os.WriteFile(filepath.Join(f.home, ".bashrc"), []byte("snapfn() { echo \"snapfn ran in $PWD\"; }\nalias ll='ls -l'\n"), 0o644)
			snapDir := filepath.Join(f.home, ".claude", "shell-snapshots")
			for _, d := range []string{snapDir, filepath.Join(f.home, ".codex"), filepath.Join(f.home, ".pi", "agent")} {
				os.MkdirAll(d, 0o755)
			}
			settings := filepath.Join(f.home, ".claude", "settings.json")
			os.WriteFile(settings, []byte("{}\n"), 0o644)
			snap := filepath.Join(snapDir, "snapshot-bash-1764633600000-abc123.sh")
			agentPath := "/opt/shims:/usr/bin:/bin"
			bashrc := filepath.Join(f.home, ".bashrc")
			env := func(mode string) []string {
				e := f.env(backend, "CLAUDECODE=1")
				for i, kv := range e {
					if strings.HasPrefix(kv, "GUARDSH_MODE=") {
						e[i] = "GUARDSH_MODE=" + mode
					}
				}
				return e
			}
			for _, mode := range []string{"default", "auto", "plan"} {
				os.Remove(snap)
				_, stderr, code := f.runArgs(t, env(mode), "-c", "-l", claudeSnapshotScriptFor(snap, bashrc, agentPath))
				b, err := os.ReadFile(snap)
				if code != 0 || err != nil {
					t.Fatalf("%s mode: the snapshot script failed (exit %d, %v):\n%s", mode, code, err, stderr)
				}
				if strings.Contains(stderr, "needs approval") {
					t.Errorf("%s mode: the snapshot script asked:\n%s", mode, stderr)
				}
				if !strings.Contains(string(b), "export PATH='"+agentPath+"'") || !strings.Contains(string(b), "alias -- ll='ls -l'") {
					t.Errorf("%s mode: the snapshot lacks the PATH or the alias:\n%s", mode, b)
				}
				out, err := exec.Command("bash", "-c", "source "+snap+" && snapfn").CombinedOutput()
				if err != nil || !strings.Contains(string(out), "snapfn ran") {
					t.Errorf("%s mode: real bash sourcing the snapshot does not have snapfn: %v %s\n%s", mode, err, out, b)
				}
			}
			good, _ := os.ReadFile(snap)

			// Claude Code's per-command string sources the snapshot.
			run := func(cmd string) (string, string) {
				stdout, stderr, _ := f.runArgs(t, env("auto"), "-c", "-l", "source "+snap+" 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '"+strings.ReplaceAll(cmd, "'", `'\''`)+"' < /dev/null && pwd -P >| /tmp/claude-ab12-cwd")
				return stdout, stderr
			}
			if out, stderr := run("snapfn"); !strings.Contains(out, "snapfn ran in "+f.project) {
				t.Errorf("the snapshot's function is not defined for a command:\n%s\n%s", out, stderr)
			}

			// The attacks, as the model's commands.
			otherSnap := filepath.Join(snapDir, "snapshot-bash-1764633600001-zzz999.sh")
			for _, attack := range []string{
				"echo 'rm -rf ~' >> " + snap,
				"printf 'rm -rf ~\\n' > " + snap,
				"cp /etc/hostname " + snap,
				"echo '{\"hooks\":{}}' > " + settings,
				"mkdir -p ~/.claude/hooks && echo x > ~/.claude/hooks/pre.sh",
				"echo x > ~/.codex/config.toml",
				"echo x > ~/.pi/agent/settings.json",
				"python3 -c 'open(\"" + snap + "\",\"a\").write(\"rm -rf ~\\n\")'",
				// the snapshot script itself, nested in this guardsh
				"bash -c -l " + shellQuote(claudeSnapshotScriptFor(otherSnap, bashrc, "/evil")),
				// as a program, with the descriptor the privileged side passes forged
				"exec 7<" + snapDir + "; env CLAUDECODE=1 GUARDSH_SANDBOX_FILES=bookkeeping=7 " + f.bin + " -c -l " + shellQuote(claudeSnapshotScriptFor(otherSnap, bashrc, "/evil")),
			} {
				run(attack)
				if b, _ := os.ReadFile(snap); string(b) != string(good) {
					t.Errorf("%s: the snapshot changed:\n%s", attack, b)
					os.WriteFile(snap, good, 0o644)
				}
				if b, _ := os.ReadFile(settings); string(b) != "{}\n" {
					t.Errorf("%s: settings.json changed: %s", attack, b)
				}
				for _, p := range []string{otherSnap, filepath.Join(f.home, ".claude", "hooks", "pre.sh"), filepath.Join(f.home, ".codex", "config.toml"), filepath.Join(f.home, ".pi", "agent", "settings.json")} {
					if _, err := os.Lstat(p); err == nil {
						t.Errorf("%s: %s was written", attack, p)
						os.Remove(p)
					}
				}
			}

			// A program the model runs starts guardsh with the script and
			// an environment of its choosing: that guardsh is in the model's
			// sandbox, where the directory is read-only, so the policy
			// refuses the write too (not only the kernel).
			script := filepath.Join(f.project, "script.sh")
			os.WriteFile(script, []byte(claudeSnapshotScriptFor(otherSnap, bashrc, "/evil")), 0o644)
			py := "import os\nfd=os.open(" + strconvQuote(snapDir) + ", os.O_RDONLY)\nos.dup2(fd, 7)\n" +
				"env=dict(os.environ, CLAUDECODE='1', GUARDSH_SANDBOX_FILES='bookkeeping=7')\n" +
				"os.execve(" + strconvQuote(f.bin) + ", ['bash', '-c', '-l', open(" + strconvQuote(script) + ").read()], env)\n"
			os.WriteFile(filepath.Join(f.project, "forge.py"), []byte(py), 0o644)
			if _, stderr := run("python3 forge.py"); !strings.Contains(stderr, "needs approval [write.outside-project]: "+otherSnap) {
				t.Errorf("the policy of a guardsh the model started did not refuse the snapshot write:\n%s", stderr)
			}
			if _, err := os.Lstat(otherSnap); err == nil {
				t.Error("a guardsh the model started wrote a snapshot")
			}

			// A top-level script whose snapshot is a link to the settings.
			link := filepath.Join(snapDir, "snapshot-bash-1764633600002-lnk111.sh")
			os.Symlink(settings, link)
			f.runArgs(t, env("auto"), "-c", "-l", claudeSnapshotScriptFor(link, bashrc, "/evil"))
			if b, _ := os.ReadFile(settings); string(b) != "{}\n" {
				t.Errorf("a snapshot linked to settings.json wrote it: %s", b)
			}
			// One that names a file Claude Code would not.
			for _, target := range []string{settings, snapDir + "/../settings.json", filepath.Join(snapDir, "evil.sh")} {
				f.runArgs(t, env("auto"), "-c", "-l", claudeSnapshotScriptFor(target, bashrc, "/evil"))
				if b, _ := os.ReadFile(settings); string(b) != "{}\n" {
					t.Errorf("SNAPSHOT_FILE=%s wrote settings.json: %s", target, b)
				}
				if _, err := os.Lstat(filepath.Join(snapDir, "evil.sh")); err == nil {
					t.Errorf("SNAPSHOT_FILE=%s: evil.sh was written", target)
				}
			}
			// Without CLAUDECODE=1 it is not Claude Code's script.
			os.Remove(otherSnap)
			f.runArgs(t, f.env(backend, "GUARDSH_MODE=auto"), "-c", "-l", claudeSnapshotScriptFor(otherSnap, bashrc, "/x"))
			if _, err := os.Lstat(otherSnap); err == nil {
				t.Error("the snapshot was written without CLAUDECODE=1")
			}
		})
	}
}

func strconvQuote(s string) string { return strconv.Quote(s) }

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestClaudeSnapshotScriptRecognised: which command lines are Claude
// Code's snapshot script, and the file each may write; the value of
// SNAPSHOT_FILE is what real bash assigns.
func TestClaudeSnapshotScriptRecognised(t *testing.T) {
	home := "/home/u"
	dir := home + "/.claude/shell-snapshots"
	good := dir + "/snapshot-bash-1764633600000-abc123.sh"
	script := func(first string) string {
		return strings.Replace(claudeSnapshotScriptFor(good, home+"/.bashrc", "/usr/bin"), "SNAPSHOT_FILE="+good, first, 1)
	}
	env := map[string]string{"HOME": home, "CLAUDECODE": "1"}
	for _, tc := range []struct {
		name   string
		script string
		login  bool
		env    map[string]string
		want   string // "" not recognised
	}{
		{"as Claude Code writes it", script("SNAPSHOT_FILE=" + good), true, env, good},
		{"single-quoted", script("SNAPSHOT_FILE='" + good + "'"), true, env, good},
		{"backslash escapes (shell-quote)", script(`SNAPSHOT_FILE=/home/u/.claude/shell\-snapshots/snapshot\-bash\-1764633600000\-abc123.sh`), true, env, good},
		{"without -l", script("SNAPSHOT_FILE=" + good), false, env, ""},
		{"without CLAUDECODE", script("SNAPSHOT_FILE=" + good), true, map[string]string{"HOME": home}, ""},
		{"an expansion", script("SNAPSHOT_FILE=$HOME/.claude/shell-snapshots/snapshot-bash-1-abc.sh"), true, env, ""},
		{"a command substitution", script("SNAPSHOT_FILE=$(echo " + good + ")"), true, env, ""},
		{"another directory", script("SNAPSHOT_FILE=" + home + "/.claude/snapshot-bash-1-abc.sh"), true, env, ""},
		{"dot-dot", script("SNAPSHOT_FILE=" + dir + "/../settings.json"), true, env, ""},
		{"another name", script("SNAPSHOT_FILE=" + dir + "/evil.sh"), true, env, ""},
		{"a command first", "rm -rf ~; " + script("SNAPSHOT_FILE="+good), true, env, ""},
		{"no markers", "SNAPSHOT_FILE=" + good + "\necho x >| \"$SNAPSHOT_FILE\"\n", true, env, ""},
		{"CLAUDE_CONFIG_DIR", script("SNAPSHOT_FILE=/cfg/shell-snapshots/snapshot-zsh-1-a1.sh"), true,
			map[string]string{"HOME": home, "CLAUDECODE": "1", "CLAUDE_CONFIG_DIR": "/cfg"}, "/cfg/shell-snapshots/snapshot-zsh-1-a1.sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.script
			inv := &invocation{Invocation: &shellargs.Invocation{Command: &s, Login: tc.login}}
			got := ""
			if b := claudeSnapshotScript(inv, func(k string) string { return tc.env[k] }); b != nil {
				got = b.file
			}
			if got != tc.want {
				t.Errorf("recognised %q, want %q", got, tc.want)
			}
			if tc.want != "" { // what bash assigns
				first := strings.SplitN(s, "\n", 2)[0]
				out, err := exec.Command("bash", "-c", first+`; printf %s "$SNAPSHOT_FILE"`).Output()
				if err != nil || string(out) != tc.want {
					t.Errorf("bash assigns %q (%v), guardsh read %q", out, err, tc.want)
				}
			}
		})
	}
}

// TestAttackClaudeSnapshotForgedTopLevel: a guardsh started at the top
// level (not inside a session's sandbox) with a command line shaped like
// Claude Code's snapshot script. With the hook route the model's commands
// run in the agent's own bash, and `guardsh -c -l '<script>'` is allowed by
// the hook in auto mode (guardsh judges its commands): the model writes the
// script, CLAUDECODE=1 is already in the agent's environment. Such a script
// must not alter the snapshot the agent already sources before every
// command (code planted there runs in the agent's real bash, unjudged): not
// by naming it as SNAPSHOT_FILE, nor by a program it runs in the directory
// the session could write.
func TestAttackClaudeSnapshotForgedTopLevel(t *testing.T) {
	for _, backend := range backendsUnderTest(t) {
		t.Run(backend, func(t *testing.T) {
			f := newFixture(t)
			snapDir := filepath.Join(f.home, ".claude", "shell-snapshots")
			os.MkdirAll(snapDir, 0o755)
			current := filepath.Join(snapDir, "snapshot-bash-1764633600000-abc123.sh")
			good := "# Snapshot file\nexport PATH='/usr/bin:/bin'\n"
			os.WriteFile(current, []byte(good), 0o644)
			// the hook's verdict on the model's command
			forged := func(snap, body string) string {
				return "SNAPSHOT_FILE=" + snap + "\n" +
					"echo \"# Snapshot file\" >| \"$SNAPSHOT_FILE\"\n" + body + "\n" +
					"echo \"Error: Snapshot file was not created at $SNAPSHOT_FILE\" >&2\n"
			}
			check := exec.Command(f.bin, "--check", "--mode", "auto", "-c", "guardsh -c -l "+shellQuote(forged(current, "")))
			check.Dir, check.Env = f.project, f.env(backend)
			if out, err := check.CombinedOutput(); err != nil {
				t.Logf("the hook no longer allows the command (%v): %s", err, out)
			}
			// a program the policy cannot see into: a copy of tee in the project
			tee, err := exec.LookPath("tee")
			if err != nil {
				t.Skip("no tee")
			}
			b, _ := os.ReadFile(tee)
			os.WriteFile(filepath.Join(f.project, "t2"), b, 0o755)
			env := f.env(backend, "CLAUDECODE=1")
			for i, kv := range env {
				if strings.HasPrefix(kv, "GUARDSH_MODE=") {
					env[i] = "GUARDSH_MODE=auto"
				}
			}
			// the user runs with the sandbox off: the policy alone
			off := append([]string{}, env...)
			for i, kv := range off {
				if strings.HasPrefix(kv, "GUARDSH_SANDBOX=") {
					off[i] = "GUARDSH_SANDBOX=off"
				}
			}
			fresh := filepath.Join(snapDir, "snapshot-bash-1764633600009-fff999.sh")
			for _, run := range []struct {
				env    []string
				script string
			}{
				{env, forged(current, `echo 'touch ~/PWNED' >> "$SNAPSHOT_FILE"`)},
				{env, forged(fresh, "echo 'touch ~/PWNED' | ./t2 -a "+current)},
				{off, forged(current, `echo 'touch ~/PWNED' >> "$SNAPSHOT_FILE"`)},
			} {
				os.Remove(fresh)
				f.runArgs(t, run.env, "-c", "-l", run.script)
				if b, _ := os.ReadFile(current); string(b) != good {
					t.Errorf("a forged snapshot script changed the current snapshot:\n%s\n--- script:\n%s", b, run.script)
					os.WriteFile(current, []byte(good), 0o644)
				}
			}
		})
	}
}
