package guardsh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminContext: in the admin context only the irreversible-delete rules
// (and guardsh's own protection) still deny; disk work on a device the human
// named asks instead of being denied, in every mode but plan, and stays an
// ask even in bypass mode; a device nobody named is still denied. Verdicts
// only: nothing here runs.
func TestAdminContext(t *testing.T) {
	grant := &AdminGrant{Devices: []string{"/dev/loop7"}, Source: "--admin-device /dev/loop7"}
	tests := []struct {
		src          string
		plain, admin Decision // auto mode
		rule         string
	}{
		{"mkfs.ext4 /dev/loop7", Deny, Ask, "disk.format"},
		{"dd if=/dev/zero of=/dev/loop7 bs=1M", Deny, Ask, idDevice.String()},
		{"cat /dev/loop7 > /dev/null", Ask, Ask, "disk.read-raw"},
		{"sudo mkfs.ext4 /dev/loop7", Deny, Ask, ""},
		{"mkfs.ext4 /dev/sdb", Deny, Deny, "disk.format"},
		{"dd if=/dev/zero of=/dev/sda", Deny, Deny, idDevice.String()},
		{"git reset --hard", Deny, Ask, "git.reset-hard"},
		{"rm -rf /", Deny, Deny, idRmRoot.String()},
		{"rm -rf --no-preserve-root /", Deny, Deny, ""},
		{"rm -rf ~", Deny, Deny, idRmHome.String()},
		{"rm -rf /usr", Deny, Deny, idRmSystem.String()},
		{"rm -rf " + testEnv.Project, Deny, Deny, idRmProjectRoot.String()},
		{"guardsh-agent --admin-device /dev/sda x", Deny, Deny, idGuardshAdmin.String()},
		{"GUARDSH_MODE=bypass guardsh -c ls", Deny, Deny, "guardsh.self"},
		{"ls", Allow, Allow, "read.only"},
	}
	for _, tt := range tests {
		for _, admin := range []bool{false, true} {
			p := NewPolicy(ModeAuto)
			want := tt.plain
			if admin {
				p.Admin, want = grant, tt.admin
			}
			sv, _ := p.CheckScript(tt.src, testEnv)
			if sv.Decision != want || tt.rule != "" && !mentions(sv, tt.rule) {
				t.Errorf("admin=%v %q: %s [%s] %s, want %s [%s]", admin, tt.src, sv.Decision, sv.Rule, sv.Reason, want, tt.rule)
			}
			if admin && sv.Decision == Ask && want == Ask && tt.plain == Deny && !strings.HasPrefix(tt.src, "sudo") && !strings.Contains(sv.Reason, "admin context (--admin-device /dev/loop7)") {
				t.Errorf("%q: the lifted ask does not state the admin context: %s", tt.src, sv.Reason)
			}
		}
	}
	// Bypass mode does not turn a lifted deny into an allow; plan mode
	// lifts nothing.
	for _, m := range []Mode{ModeBypass, ModeDefault, ModeEdits} {
		p := NewPolicy(m)
		p.Admin = grant
		if sv, _ := p.CheckScript("mkfs.ext4 /dev/loop7", testEnv); sv.Decision != Ask {
			t.Errorf("%s mode: mkfs.ext4 on the named device: %s [%s]", m, sv.Decision, sv.Rule)
		}
	}
	p := NewPolicy(ModePlan)
	p.Admin = grant
	if sv, _ := p.CheckScript("mkfs.ext4 /dev/loop7", testEnv); sv.Decision != Deny {
		t.Errorf("plan mode lifted a deny: %s [%s]", sv.Decision, sv.Rule)
	}
	// The lifted verdict names the device as the one extra right.
	p.Mode = ModeAuto
	v := p.Classify(Command{Args: []string{"mkfs.ext4", "/dev/loop7"}, Dir: testEnv.Dir, Project: testEnv.Project, Home: testEnv.Home})
	if len(v.Effects.Writes) != 1 || v.Effects.Writes[0] != "/dev/loop7" {
		t.Errorf("effects of the lifted mkfs: %+v", v.Effects)
	}
}

// TestAdminGrant: a grant names existing devices or image files, resolved.
func TestAdminGrant(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "loop.img")
	os.WriteFile(img, make([]byte, 1024), 0o644)
	os.Symlink(img, filepath.Join(dir, "by-id"))
	g, err := NewAdminGrant([]string{filepath.Join(dir, "by-id")}, "--admin-device")
	if err != nil || len(g.Devices) != 1 || g.Devices[0] != mustReal(t, img) {
		t.Fatalf("grant: %+v, %v", g, err)
	}
	if !g.names(img) || g.names(filepath.Join(dir, "other.img")) {
		t.Error("names does not match by resolved identity")
	}
	for _, bad := range []string{"relative.img", filepath.Join(dir, "missing"), dir} {
		if _, err := NewAdminGrant([]string{bad}, "x"); err == nil {
			t.Errorf("NewAdminGrant(%q) accepted", bad)
		}
	}
}

func mustReal(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
