package guardsh

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttackSymlinkedArguments: a symlink inside the project is judged by
// what it leads to, not by its name inside the project (DESIGN: every
// path a rule looks at is judged as written and as resolved, the more
// dangerous reading wins). A link to an SSH key must be a credential read,
// a link to a block device a disk write, a link to a shell rc file a
// protected write; a link to another file of the project stays a project
// path. Verdicts only: nothing runs.
func TestAttackSymlinkedArguments(t *testing.T) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(proj, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc"), 0o644)
	os.WriteFile(filepath.Join(proj, "src", "a.go"), []byte("package a"), 0o644)
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(home, ".ssh", "id_rsa"), "k")
	link(filepath.Join(home, ".ssh"), "keys")
	link(filepath.Join(home, ".bashrc"), "rc")
	link(filepath.Join(proj, "src", "a.go"), "alias.go")
	dev := ""
	for _, d := range []string{"/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda"} {
		if fi, err := os.Stat(d); err == nil && fi.Mode()&os.ModeDevice != 0 {
			dev = d
			break
		}
	}
	if dev != "" {
		link(dev, "disk")
	}
	env := CheckEnv{Dir: proj, Project: proj, Home: home}
	tests := []struct {
		src  string
		want Decision
		rule string
		dev  bool
	}{
		// controls: the same targets named directly
		{"cat ~/.ssh/id_rsa", Ask, "read.credentials", false},
		{"cp src/a.go ~/.bashrc", Deny, "", false},
		// through the links
		{"cat k", Ask, "read.credentials", false},
		{"cp k /tmp/stolen", Ask, "read.credentials", false},
		{"cat keys/id_rsa", Ask, "read.credentials", false},
		{"cp src/a.go rc", Deny, "", false},
		{"mkfs.ext4 disk", Deny, "disk.format", true},
		{"dd if=/dev/zero of=disk", Deny, idDevice.String(), true},
		// through /proc's links to the root and the working directory
		{"cat /proc/self/cwd/k", Ask, "read.credentials", false},
		{"cat /proc/thread-self/cwd/keys/id_rsa", Ask, "read.credentials", false},
		{"dd if=/dev/zero of=/proc/self/root" + dev, Deny, idDevice.String(), true},
		{"mkfs.ext4 /proc/1/root" + dev, Deny, "disk.format", true},
		// what acts on the link itself, or runs a program from where it is
		{"rm k", Allow, "", false},
		{"rm -f disk", Allow, "", true},
		{"mv rc rc.old", Allow, "", false},
		{"rm keys/id_rsa.pub", Deny, "write.protected", false}, // through the directory link: really in ~/.ssh
		{"cat alias.go", Allow, "", false},
		{"cp alias.go src/b.go", Allow, "", false},
	}
	for _, tt := range tests {
		if tt.dev && dev == "" {
			t.Logf("%q: no block device here to link to", tt.src)
			continue
		}
		sv, _ := NewPolicy(ModeAuto).CheckScript(tt.src, env)
		if sv.Decision != tt.want || tt.rule != "" && !mentions(sv, tt.rule) {
			t.Errorf("auto mode, %q: %s [%s] %s, want %s [%s]", tt.src, sv.Decision, sv.Rule, sv.Reason, tt.want, tt.rule)
		}
	}
}
