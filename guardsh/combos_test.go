package guardsh

import (
	"strings"
	"testing"
)

// TestCatastrophicCombinations: catastrophic commands behind every wrapper,
// inside every kind of nesting, are denied even in bypass mode.
func TestCatastrophicCombinations(t *testing.T) {
	cores := []string{"rm -rf /", "rm -rf ~", "rm -rf $HOME", "mkfs.ext4 /dev/sda", "dd if=/dev/zero of=/dev/sda", "chmod -R 777 /", "chown -R nobody ~", "shred /dev/sda", "find / -delete", "mv ~ /dev/null", "rm -rf /home/user/project", "kill -9 -1", "shutdown now", "wipefs -a /dev/sda"}
	wrappers := []string{"", "sudo ", "sudo -E ", "doas ", "env ", "env -i ", "nice ", "nice -n 5 ", "nohup ", "timeout 9 ", "timeout -k 1 9 ", "time ", "stdbuf -o0 ", "setsid -f ", "ionice -c 3 ", "chrt -r 1 ", "taskset -c 0 ", "command ", "exec ", "builtin ", "FOO=bar ", "\\", "/usr/bin/", "/bin/", "./../../../usr/bin/", "busybox ", "xargs -0 ", "watch -n1 ", "flock /tmp/x ", "unbuffer ", "strace -f ", "systemd-run --scope ", "nsenter -a -t 1 ", "unshare -m ", "chroot / ", "sudo -u root -- ", "env -- ", "nice -- ", "command -p ", "exec -a x "}
	shells := []string{"%s", "sh -c '%s'", "bash -c '%s'", "bash -lc '%s'", "eval '%s'", "echo '%s' | sh", "bash <<< '%s'", "sh -c \"sh -c '%s'\"", "$(echo %s)", "(%s)", "{ %s; }", "true && %s", "false || %s", "%s &", "if true; then %s; fi", "f(){ %s; }; f", "x(){ %s; }; x; x", "watch '%s'", "xargs -I{} sh -c '%s' <<< x", "find . -maxdepth 0 -exec sh -c '%s' \\;", "python3 -c \"import os; os.system('%s')\"", "perl -e \"system('%s')\"", "su -c '%s'", "script -c '%s'", "tmux new -d '%s'", "nohup sh -c '%s' &"}
	if testing.Short() {
		t.Skip("14,000 combinations")
	}
	n, miss := 0, 0
	for _, c := range cores {
		for _, w := range wrappers {
			for _, s := range shells {
				cmd := strings.Replace(s, "%s", w+c, 1)
				if strings.Contains(s, "'") && strings.Contains(w+c, "'") {
					continue
				}
				n++
				sv, _ := NewPolicy(ModeBypass).CheckScript(cmd, testEnv)
				if sv.Decision != Deny {
					miss++
					if miss < 50 {
						t.Errorf("bypass mode: %q = %s [%s] %s", cmd, sv.Decision, sv.Rule, sv.Reason)
					}
				}
			}
		}
	}
	if miss > 0 {
		t.Errorf("%d of %d combinations not denied", miss, n)
	}
}

// TestCatastrophicArgv: the same at run time, on argv after expansion
// (home /h, project /p), as is and inside bash -c.
func TestCatastrophicArgv(t *testing.T) {
	cores := []string{"rm -rf /", "rm -rf /h", "rm -rf /h/x", "mkfs.ext4 /dev/sda", "dd if=/dev/zero of=/dev/sda", "chmod -R 777 /", "chown -R nobody /h", "shred /dev/sda", "find / -delete", "find /h -delete", "mv /h /dev/null", "rm -rf /p", "kill -9 -1", "shutdown now", "rm -r -f /etc", "rm -fr /usr"}
	wrappers := []string{"", "sudo ", "sudo -E ", "doas ", "env ", "env -i ", "nice ", "nice -n 5 ", "nohup ", "timeout 9 ", "timeout -k 1 9 ", "time ", "stdbuf -o0 ", "setsid -f ", "ionice -c 3 ", "chrt -r 1 ", "taskset -c 0 ", "command ", "exec ", "builtin ", "busybox ", "watch -n1 ", "flock /tmp/x ", "unbuffer ", "strace -f ", "systemd-run --scope ", "nsenter -a -t 1 ", "unshare -m ", "chroot / ", "sudo -u root -- ", "env -- ", "nice -- ", "command -p ", "exec -a x ", "/usr/bin/env ", "sudo env ", "sudo nice timeout 5 ", "xargs ", "parallel "}
	n, miss := 0, 0
	for _, c := range cores {
		for _, w := range wrappers {
			args := strings.Fields(w + c)
			for _, shell := range []bool{false, true} {
				a := args
				if shell {
					a = []string{"bash", "-c", w + c}
				}
				n++
				v := NewPolicy(ModeBypass).Classify(Command{Args: a, Dir: "/p", Project: "/p", Home: "/h"})
				if v.Decision != Deny {
					miss++
					t.Errorf("bypass mode: %q = %s [%s] %s", a, v.Decision, v.Rule, v.Reason)
				}
			}
		}
	}
	if miss > 0 {
		t.Errorf("%d of %d not denied", miss, n)
	}
}
