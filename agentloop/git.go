package agentloop

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/guardsh/guardsh/gitsafe"
)

// gitOut runs git in dir with the agent's fixed settings (no prompts, no
// pager, no signing) and returns its trimmed stdout. It runs outside the
// session sandbox, so it is gitsafe's git: no hook, fsmonitor, filter or
// other program the repository names runs, and a repository redirected
// elsewhere or configured to run programs is refused (a *gitsafe.Refusal).
func gitOut(dir string, args ...string) (string, error) {
	full := append([]string{
		"-c", "commit.gpgsign=false",
		"-c", "advice.detachedHead=false",
	}, args...)
	cmd, err := gitsafe.Command("", dir, append(os.Environ(), "LC_ALL=C"), full...)
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return strings.TrimSpace(out.String()), fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// gitRepo is the repository the agent works in, if any.
type gitRepo struct {
	Top         string // work tree top
	StartBranch string // "" on a detached HEAD
	StartCommit string // "" in a repository without commits
	Branch      string // guardsh/<run-id> once created
	sub         string // workdir relative to Top ("" or "sub/dir/")
	allowDirty  bool
	checkpoints int
}

// openGit returns the repository containing dir, or nil when dir is not in
// one (or git is not installed). err is set when there is a repository
// that gitsafe refuses to run git on (the agent then works without git).
func openGit(dir string) (*gitRepo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	top, err := gitOut(dir, "rev-parse", "--show-toplevel")
	if r := (*gitsafe.Refusal)(nil); errors.As(err, &r) {
		return nil, err
	}
	if err != nil || top == "" {
		return nil, nil
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	g := &gitRepo{Top: top}
	g.StartBranch, _ = gitOut(top, "symbolic-ref", "--short", "-q", "HEAD")
	g.StartCommit, _ = gitOut(top, "rev-parse", "-q", "--verify", "HEAD")
	if rel, err := filepath.Rel(top, dir); err == nil && rel != "." {
		g.sub = filepath.ToSlash(rel) + "/"
	}
	return g, nil
}

// dirty lists uncommitted changes (untracked files included).
func (g *gitRepo) dirty() (string, error) {
	return gitOut(g.Top, "status", "--porcelain", "--untracked-files=normal")
}

// ensureBranch creates guardsh/<id> from the current state the first time
// the run changes something; uncommitted changes carry over.
func (g *gitRepo) ensureBranch(id string, store *Store) error {
	if g.Branch != "" {
		return nil
	}
	name := "guardsh/" + id
	if err := store.Append(Entry{Kind: "branch", Branch: name}); err != nil {
		return err
	}
	if _, err := gitOut(g.Top, "checkout", "-q", "-b", name); err != nil {
		return err
	}
	g.Branch = name
	return nil
}

// checkpoint commits the round's changes on the run's branch: everything
// when the tree was clean at the start, else only the paths the agent's file
// tools changed (so the user's own uncommitted work is never committed).
func (g *gitRepo) checkpoint(paths []string, msg string) (bool, error) {
	if g.Branch == "" {
		return false, nil
	}
	cur, err := gitOut(g.Top, "symbolic-ref", "--short", "-q", "HEAD")
	if r := (*gitsafe.Refusal)(nil); errors.As(err, &r) {
		return false, fmt.Errorf("not committing a checkpoint: %w", r)
	}
	if cur != g.Branch {
		return false, fmt.Errorf("not committing a checkpoint: the repository is on %q, not %s (a shell command switched branches)", cur, g.Branch)
	}
	if g.allowDirty {
		if len(paths) == 0 {
			return false, nil
		}
		args := []string{"add", "-A", "--"}
		for _, p := range paths {
			args = append(args, g.sub+p)
		}
		if _, err := gitOut(g.Top, args...); err != nil {
			return false, err
		}
	} else if _, err := gitOut(g.Top, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := gitOut(g.Top, "diff", "--cached", "--quiet"); err == nil {
		return false, nil // nothing staged
	}
	g.checkpoints++
	args := []string{"commit", "-q", "--no-verify", "-m", msg}
	if name, _ := gitOut(g.Top, "config", "user.email"); name == "" {
		args = append([]string{"-c", "user.name=guardsh-agent", "-c", "user.email=guardsh-agent@localhost"}, args...)
	}
	if _, err := gitOut(g.Top, args...); err != nil {
		return false, err
	}
	return true, nil
}

// changedSince reports whether the work tree has changes not yet committed
// (used to notice files changed by shell commands).
func (g *gitRepo) changed() bool {
	out, err := g.dirty()
	return err == nil && out != ""
}

// summary is the diffstat of the run and the commands to review, merge or
// discard it.
func (g *gitRepo) summary() string {
	if g.Branch == "" {
		return "No files changed; git untouched.\n"
	}
	var sb strings.Builder
	base := g.StartCommit
	if base != "" {
		stat, _ := gitOut(g.Top, "diff", "--stat", base, g.Branch)
		if stat != "" {
			sb.WriteString(stat + "\n")
		}
	}
	start := g.StartBranch
	if start == "" {
		start = g.StartCommit
	}
	plural := "s"
	if g.checkpoints == 1 {
		plural = ""
	}
	fmt.Fprintf(&sb, "\nThe work is on branch %s (%d checkpoint commit%s).\n", g.Branch, g.checkpoints, plural)
	fmt.Fprintf(&sb, "  review:  git diff %s...%s\n", start, g.Branch)
	fmt.Fprintf(&sb, "  merge:   git checkout %s && git merge --squash %s && git commit\n", start, g.Branch)
	if g.allowDirty {
		fmt.Fprintf(&sb, "  discard: guardsh-agent undo   (keeps the uncommitted changes you started with; then: git branch -D %s)\n", g.Branch)
	} else {
		fmt.Fprintf(&sb, "  discard: guardsh-agent undo   (or: git checkout -f %s && git branch -D %s)\n", start, g.Branch)
	}
	return sb.String()
}
