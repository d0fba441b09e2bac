package interp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
)

// TestAttackAdvisorDryRunWrites: under threshold 0 (the dry run) nothing
// the rules allowed may change a file. Builtins the runner treats as
// effect-free are not rated, so the only thing between them and the
// project's files is the redirection: appending, opening read-write and
// >| must be refused like the truncating ">".
func TestAttackAdvisorDryRunWrites(t *testing.T) {
	for _, src := range []string{
		"echo appended >> data.db",
		"printf appended >> data.db",
		"exec 3<>data.db; echo XX >&3",
		"echo clobbered >| data.db",
		"echo new > fresh.txt",
	} {
		t.Run(src, func(t *testing.T) {
			srv := advisortest.New(t, fakeRatings)
			u, _ := url.Parse(srv.URL)
			adv, err := advisor.New(advisor.Config{Model: "tiny:1b", Host: u, Timeout: time.Second, DryRun: true})
			if err != nil || adv.Threshold() != 0 {
				t.Fatalf("advisor: %v", err)
			}
			s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, time.Second, nil)
			s.r.cfg.Advisor = adv
			s.run(context.Background(), src)
			if b, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(b) != "precious" {
				t.Errorf("dry run changed data.db: %q\nstderr: %s", b, s.stderr.String())
			}
			if _, err := os.Stat(filepath.Join(s.dir, "fresh.txt")); err == nil {
				t.Errorf("dry run created fresh.txt\nstderr: %s", s.stderr.String())
			}
		})
	}
}

// TestAttackAdvisorDryRunKill: kill is a builtin; under the dry run it may
// not stop a process the rules would let it stop.
func TestAttackAdvisorDryRunKill(t *testing.T) {
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer victim.Process.Kill()
	done := make(chan struct{})
	go func() { victim.Wait(); close(done) }()
	srv := advisortest.New(t, fakeRatings)
	u, _ := url.Parse(srv.URL)
	adv, _ := advisor.New(advisor.Config{Model: "tiny:1b", Host: u, Timeout: time.Second, DryRun: true})
	s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, time.Second, nil)
	s.r.cfg.Advisor = adv
	s.run(context.Background(), fmt.Sprintf("kill -TERM %d", victim.Process.Pid))
	select {
	case <-done:
		t.Errorf("the dry run let kill stop process %d (stderr: %s)", victim.Process.Pid, s.stderr.String())
	case <-time.After(300 * time.Millisecond):
	}
}
