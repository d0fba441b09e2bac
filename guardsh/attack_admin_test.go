package guardsh

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttackAdminGrantSwapped: the admin context names a device or image
// by what it is when the human grants it. A model that replaces the named
// image (in a directory the session can write, such as /tmp) with a
// symlink to another file or to a real disk must not move the grant
// there: names matches the granted file's identity, not its name, and the
// session's grant (built from its argv) does not follow a symlink planted
// at the granted name. Verdicts only.
func TestAttackAdminGrantSwapped(t *testing.T) {
	dir := t.TempDir()
	img, other := filepath.Join(dir, "disk.img"), filepath.Join(dir, "other.img")
	os.WriteFile(img, make([]byte, 4096), 0o644)
	os.WriteFile(other, make([]byte, 4096), 0o644)
	g, err := NewAdminGrant([]string{img}, "--admin-device "+img)
	if err != nil {
		t.Fatal(err)
	}
	if !g.names(img) {
		t.Fatal("the granted image is not named")
	}
	session := &AdminGrant{Devices: g.Devices, Source: g.Source} // as sessionMain builds it
	// The swap: the image is gone, a symlink to another file in its place.
	if err := os.Remove(img); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, img); err != nil {
		t.Fatal(err)
	}
	if g.names(other) {
		t.Error("the grant moved to the file a symlink planted at the granted name points to")
	}
	if session.names(other) {
		t.Error("the session's grant moved to the file a symlink planted at the granted name points to")
	}
	dev := ""
	for _, d := range []string{"/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda"} {
		if fi, err := os.Stat(d); err == nil && fi.Mode()&os.ModeDevice != 0 {
			dev = d
			break
		}
	}
	if dev == "" {
		t.Log("no block device here: the disk half is not checked")
		return
	}
	os.Remove(img)
	if err := os.Symlink(dev, img); err != nil {
		t.Fatal(err)
	}
	for _, grant := range []*AdminGrant{g, session} {
		p := NewPolicy(ModeAuto)
		p.Admin = grant
		for _, src := range []string{"mkfs.ext4 " + img, "dd if=/dev/zero of=" + img, "mkfs.ext4 " + dev} {
			if sv, _ := p.CheckScript(src, CheckEnv{Dir: dir, Project: dir, Home: filepath.Join(dir, "home")}); sv.Decision != Deny {
				t.Errorf("granted image swapped for a symlink to %s: %q is %s [%s] %s, want deny", dev, src, sv.Decision, sv.Rule, sv.Reason)
			}
		}
	}
}
