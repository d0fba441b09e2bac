//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/internal/testenv"
)

// threadStates reads NoNewPrivs, Seccomp and CapEff of every thread of
// this process, and the mount namespace each is in.
func threadStates(t *testing.T) map[string]string {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("tasks: %v", err)
	}
	out := map[string]string{}
	for _, task := range tasks {
		b, err := os.ReadFile(task + "/status")
		if err != nil {
			continue // the thread ended meanwhile
		}
		var st []string
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			switch k {
			case "NoNewPrivs", "Seccomp", "CapEff":
				st = append(st, k+"="+strings.TrimSpace(v))
			}
		}
		ns, err := os.Readlink(task + "/ns/mnt")
		if err != nil {
			continue // a thread being ended (a locked goroutine returned)
		}
		out[filepath.Base(task)] = strings.Join(st, " ") + " mnt=" + ns
	}
	return out
}

// TestStartFromThreadStaysOnItsThread: the privileged side confines one
// thread of its own to start the interpreter from. Afterwards no thread of
// the privileged side is confined (no seccomp filter, no no_new_privs, its
// capabilities and mount namespace as before: a filter loaded with TSYNC
// would have reached them all) and it can still write outside, while the child is confined from its birth: writing outside
// fails, its status shows the filter.
func TestStartFromThreadStaysOnItsThread(t *testing.T) {
	needRoot(t)
	if LandlockABI() < minLandlockABI {
		t.Skip("no Landlock")
	}
	if !threadStartable(BackendLandlock) {
		t.Skip("no CAP_SYS_ADMIN: the full level starts through the stage")
	}
	outside := testenv.Outside(t)
	selfMnt, _ := os.Readlink("/proc/self/ns/mnt")
	var capEff string
	for _, s := range threadStates(t) {
		for _, f := range strings.Fields(s) {
			if strings.HasPrefix(f, "CapEff=") {
				capEff = f
			}
		}
	}
	c := NewConfig(t.TempDir(), t.TempDir(), "", nil)
	for _, level := range []string{BackendLandlock, BackendContainer} {
		t.Run(level, func(t *testing.T) {
			target := filepath.Join(outside, level+"-child")
			cmd := exec.Command("/bin/sh", "-c", `grep -E '^(NoNewPrivs|Seccomp|CapEff):' /proc/self/status | tr -d '\t' | tr '\n' ' '; (echo x > "$1") 2>/dev/null && echo WROTE; exit 0`, "sh", target)
			var out strings.Builder
			cmd.Stdout = &out
			spec := stageSpec{Config: c, Landlock: true, MountNS: level == BackendLandlock, HostNetNS: netNSInode()}
			tid, err := startFromThread(spec, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if tid == os.Getpid() {
				t.Errorf("the main thread was confined")
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v %s", err, out.String())
			}
			for _, want := range []string{"NoNewPrivs:1", "Seccomp:2", "CapEff:0000000000000000"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("child started from the confined thread lacks %s: %s", want, out.String())
				}
			}
			if strings.Contains(out.String(), "WROTE") {
				t.Errorf("child started from the confined thread wrote outside: %s", out.String())
			}
			// The confined thread ends (its goroutine returned locked to it).
			for i := 0; ; i++ {
				if _, err := os.Stat(filepath.Join("/proc/self/task", strconv.Itoa(tid))); os.IsNotExist(err) {
					break
				}
				if i == 1000 {
					t.Fatalf("the confined thread %d still runs after 10 s", tid)
				}
				time.Sleep(10 * time.Millisecond)
			}
			// The privileged side: every thread as before.
			for tid, s := range threadStates(t) {
				if !strings.Contains(s, "NoNewPrivs=0") || !strings.Contains(s, "Seccomp=0") || !strings.Contains(s, capEff) || !strings.Contains(s, "mnt="+selfMnt) {
					t.Errorf("privileged side's thread %s changed: %s (want NoNewPrivs=0 Seccomp=0 %s mnt=%s)", tid, s, capEff, selfMnt)
				}
			}
			// Still able to write outside, from any thread.
			for i := 0; i < 8; i++ {
				done := make(chan error, 1)
				go func() {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					if err := os.WriteFile(filepath.Join(outside, "parent"), []byte("x"), 0o644); err != nil {
						done <- err
						return
					}
					done <- nil
				}()
				if err := <-done; err != nil {
					t.Errorf("the privileged side can no longer write outside: %v", err)
				}
			}
		})
	}
}
