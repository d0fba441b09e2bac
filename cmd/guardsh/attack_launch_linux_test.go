//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// realBashPath is a dash snippet that sets $r to the real bash the
// launcher set aside, as an agent learns it from its own mount table.
const realBashPath = `r=$(awk '$5 ~ /guardsh-real\/bash$/ {print $5}' /proc/self/mountinfo | head -n1); [ -n "$r" ] || { echo "no real bash in mountinfo" >&2; exit 0; }; `

// TestAttackLaunchRealShell: the model's command (through /bin/bash,
// which is guardsh) names the real shells the launcher set aside, or
// reaches bash under another name or by another exec route; each is
// judged (rm -r ~/victim refused) or cannot run.
func TestAttackLaunchRealShell(t *testing.T) {
	cases := []struct{ name, script string }{
		{"guardsh-real/bash by path", realBashPath + `/bin/bash -c "$r -c 'rm -r ~/victim'"`},
		{"guardsh-real/bash via env", realBashPath + `/bin/bash -c "env $r -c 'rm -r ~/victim'"`},
		{"copy of guardsh-real/bash", realBashPath + `/bin/bash -c "cp $r ./b2 && ./b2 -c 'rm -r ~/victim'"`},
		{"symlink to guardsh-real/bash", realBashPath + `/bin/bash -c "ln -s $r ./b3 && ./b3 -c 'rm -r ~/victim'"`},
		{"sh -c through guardsh", `/bin/bash -c "sh -c 'rm -r ~/victim'"`},
		{"dash -c through guardsh", `/bin/bash -c "dash -c 'rm -r ~/victim'"`},
		{"/usr/bin/sh -c through guardsh", `/bin/bash -c "/usr/bin/sh -c 'rm -r ~/victim'"`},
		{"python execv guardsh-real", realBashPath + `/bin/bash -c "python3 -c 'import os,sys; os.execv(sys.argv[1], [\"bash\", \"-c\", \"rm -r ~/victim\"])' $r"`},
		{"find -exec guardsh-real", realBashPath + `/bin/bash -c "find . -maxdepth 0 -exec $r -c 'rm -r ~/victim' \;"`},
		{"unshare umount from a command", `/bin/bash -c "unshare -rm sh -c 'umount /usr/bin/bash; umount -l /usr/bin/bash; /usr/bin/bash -c \"rm -r ~/victim\"'"`},
		{"unshare umount by the agent", `unshare -rm sh -c 'umount /usr/bin/bash 2>/dev/null || umount -l /usr/bin/bash 2>/dev/null; /usr/bin/bash -c "rm -r ~/victim"'`},
		{"nsenter -t 1 by the agent", `nsenter -t 1 -m -- /usr/bin/bash -c 'rm -r ~/victim' 2>/dev/null || echo "guardsh: denied [unreachable] nsenter" >&2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			home, victim := victimHome(t)
			agent := fakeAgent(t, dir, "agent", c.script)
			code, out, errOut := launch(t, dir, home, "--mode", "auto", "--", agent)
			nsOrSkip(t, errOut)
			if _, err := os.Stat(filepath.Join(victim, "file")); err != nil {
				t.Fatalf("%s deleted ~/victim (exit %d)\nstdout: %s\nstderr: %s", c.name, code, out, errOut)
			}
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		})
	}
}
