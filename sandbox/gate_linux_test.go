//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// envGateMark names the file the re-executed test binary writes when it
// runs as the confined interpreter of a StartGated session.
const envGateMark = "GUARDSH_TEST_GATE_MARK"

func init() {
	// The interpreter side of TestStartGated: confined by the stage, it
	// writes the mark (inside the session's temporary directory, which did
	// not exist when the stage started) and exits.
	if mark := os.Getenv(envGateMark); mark != "" {
		if _, confined := os.LookupEnv(EnvRun); confined {
			st, err := SelfStatus()
			if err != nil || !st.Confined() {
				os.Exit(5)
			}
			if err := os.WriteFile(mark, []byte("ran\n"), 0o600); err != nil {
				os.Exit(4)
			}
			os.Exit(0)
		}
	}
}

// TestStartGated: a gated stage starts before the session's temporary
// directory exists, confines itself only when released (the directory is
// then writable inside the sandbox: Landlock and the mounts saw it), and
// ends without running anything when aborted.
func TestStartGated(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	for _, tt := range []struct {
		name    string
		release bool
		status  int
	}{
		{"released: confines itself, then runs", true, 0},
		{"aborted: runs nothing", false, 126},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			project := filepath.Join(base, "project")
			if err := os.Mkdir(project, 0o755); err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(base, "session-tmp") // made after the start
			c := NewConfig(project, tmp, "", nil)
			c.SharedTmp = false
			mark := filepath.Join(c.TmpDir, "mark")
			env := append(withoutStage(os.Environ()), envGateMark+"="+mark)
			s, err := StartGated(BackendLandlock, c, "test", env, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.gate == nil {
				t.Fatal("landlock session started without a gate")
			}
			if err := os.Mkdir(c.TmpDir, 0o700); err != nil {
				s.Abort()
				t.Fatal(err)
			}
			if !tt.release {
				s.Abort()
			} else {
				if err := s.Release(); err != nil {
					t.Fatal(err)
				}
				s.Cmd.Wait()
			}
			got := s.Cmd.ProcessState.ExitCode()
			if got != tt.status {
				t.Errorf("exit status %d, want %d", got, tt.status)
			}
			_, err = os.Stat(mark)
			if tt.release && err != nil {
				t.Errorf("the interpreter did not write inside the session's temporary directory: %v", err)
			}
			if !tt.release && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an aborted stage ran the interpreter (mark: %v)", err)
			}
		})
	}
}

// TestReleaseUngated: a session started without a gate (bubblewrap sets up
// its confinement when it starts; Start) has nothing to release.
func TestReleaseUngated(t *testing.T) {
	s := &Session{}
	if err := s.Release(); err != nil {
		t.Fatalf("Release of an ungated session: %v", err)
	}
}
