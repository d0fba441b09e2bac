package guardsh

import "testing"

// TestGitDiscardEquivalents: a git command line that discards what another
// one discards gets that one's decision in every mode (and its rule): the
// spelling does not matter, the effect does. Each row failed before (most
// were read.only or edit.project, so they ran in auto and some in plan).
func TestGitDiscardEquivalents(t *testing.T) {
	tests := []struct{ cmd, same, rule string }{
		{"git -c clean.requireForce=false clean -dx", "git clean -fdx", "git.clean-force"},
		{"git -c clean.requireforce=0 clean -d", "git clean -fdx", "git.clean-force"},
		{"git clean -dx", "git clean -fdx", "git.clean-force"}, // the user's config may have requireForce off
		{"git read-tree -u --reset HEAD", "git reset --hard", "git.reset-hard"},
		{"git read-tree --reset -u HEAD~1", "git reset --hard", "git.reset-hard"},
		{"git worktree remove --force ../wt", "git reset --hard", "git.reset-hard"},
		{"git checkout-index -a -f", "git checkout -- .", "git.checkout-discard"},
		{"git checkout-index --force -- src/a.go", "git checkout -- .", "git.checkout-discard"},
		{"git stash; git update-ref -d refs/stash", "git stash clear", "git.stash-drop"},
		{"git update-ref -d refs/stash", "git stash clear", "git.stash-drop"},
		{"git update-ref -d refs/heads/main", "git branch -D main", "git.branch-force-delete"},
		{"git update-ref --delete HEAD", "git branch -D main", "git.branch-force-delete"},
		{"rm -f .git/refs/heads/main", "git branch -D main", "git.branch-force-delete"},
		{"rm -f .git/refs/stash", "git stash clear", "git.stash-drop"},
		{"rm -f .git/logs/HEAD", "git reflog expire --expire=now --all", "git.reflog-expire"},
		{"rm -rf .git/logs", "git reflog expire --expire=now --all", "git.reflog-expire"},
		{"rm -rf .git/objects/pack", "git gc --prune=now", "git.gc-prune"},
		{"git -c gc.pruneExpire=now gc", "git gc --prune=now", "git.gc-prune"},
		{"git -c gc.pruneExpire=1.second.ago gc", "git gc --prune=now", "git.gc-prune"},
		{"git -c gc.pruneExpire=now commit -m x", "git gc --prune=now", "git.gc-prune"}, // may start an automatic gc
		{"git gc --prune=5.minutes.ago", "git gc --prune=now", "git.gc-prune"},
		{"git -c gc.reflogExpire=now -c gc.reflogExpireUnreachable=now gc", "git reflog expire --expire=now --all", "git.reflog-expire"},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.pruneExpire GIT_CONFIG_VALUE_0=now git gc", "git gc --prune=now", "git.gc-prune"},
		{"echo -fdx | xargs git clean", "git clean -fdx", "git.clean-force"},
		{"xargs git clean <<< -fdx", "git clean -fdx", "git.clean-force"},
		{"git reflog expire --expire=now --all", "git reflog expire --expire=now --all", "git.reflog-expire"},
		{"git branch -D feature", "git branch -D main", "git.branch-force-delete"},
		{"git branch --delete --force feature", "git branch -D main", "git.branch-force-delete"},
		{"git restore .", "git checkout -- .", ""},
		{"git checkout -- .", "git reset --hard", ""},
		{"git update-ref refs/heads/main HEAD~3", "git branch -f main HEAD~3", "git.branch-force"},
		{"git branch -M other main", "git branch -f main HEAD~3", "git.branch-force"},
	}
	for _, tt := range tests {
		for _, m := range []Mode{ModeDefault, ModePlan, ModeAuto, ModeBypass} {
			got, want := check(t, m, tt.cmd), check(t, m, tt.same)
			if got.Decision != want.Decision {
				t.Errorf("%s: %q = %s [%s], but %q = %s [%s]", m, tt.cmd, got.Decision, got.Rule, tt.same, want.Decision, want.Rule)
			}
			if tt.rule != "" && m != ModeBypass && want.Rule != idModePlan.String() && !mentions(got, tt.rule) {
				t.Errorf("%s: %q = %s [%s], want rule %s", m, tt.cmd, got.Decision, got.Rule, tt.rule)
			}
		}
	}
	// what stays allowed: the safe forms of the same commands
	for _, cmd := range []string{"git clean -n -dx", "git read-tree HEAD", "git read-tree -m -u HEAD", "git checkout-index -a",
		"git update-ref -d refs/tags/v1", "git gc", "git gc --prune=2.weeks.ago", "git -c gc.pruneExpire=never gc", "rm -f .git/index.lock",
		"git worktree remove ../wt", "git branch -d feature", "git stash"} {
		if v := check(t, ModeAuto, cmd); v.Decision == Deny {
			t.Errorf("auto: %q = deny [%s]", cmd, v.Rule)
		}
	}
}
