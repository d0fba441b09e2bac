//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBwrapArgs(t *testing.T) {
	proj := canon(t.TempDir())
	os.MkdirAll(filepath.Join(proj, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(proj, ".git", "config"), nil, 0o644)
	c := NewConfig(proj, canon(t.TempDir()), "", nil)
	args := strings.Join(BwrapArgs(c), " ")
	for _, want := range []string{
		"--unshare-net", "--unshare-pid", "--die-with-parent", "--ro-bind / /", "--dev /dev", "--proc /proc",
		"--bind " + proj + " " + proj,
		"--bind " + proj + "/.git " + proj + "/.git",
		"--ro-bind " + proj + "/.git/config " + proj + "/.git/config",
		"--ro-bind " + proj + "/.git/hooks " + proj + "/.git/hooks",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("bwrap args lack %q:\n%s", want, args)
		}
	}
	// The protected binds come after the writable ones (later mounts win).
	if strings.Index(args, "--ro-bind "+proj+"/.git/config") < strings.Index(args, "--bind "+proj+" ") {
		t.Errorf("protected path bound before the project:\n%s", args)
	}
	if strings.Contains(strings.Join(BwrapArgs(c.With(Rights{Network: true})), " "), "--unshare-net") {
		t.Error("approved network still unshared")
	}
}
