package interp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardsh/guardsh/guardsh"
	"github.com/guardsh/guardsh/guardsh/advisor"
	"github.com/guardsh/guardsh/guardsh/advisor/advisortest"
)

// TestAdvisorDryRun: threshold 0 refuses every command the rules allowed
// (and a truncating redirection), without asking the model; what the rules
// deny is still their denial.
func TestAdvisorDryRun(t *testing.T) {
	srv := advisortest.New(t, fakeRatings)
	u, _ := url.Parse(srv.URL)
	cfg := guardsh.AdvisorConfig{Enabled: true, Model: "tiny:1b", DryRun: true}
	if cfg.Limit() != 0 {
		t.Fatalf("Limit = %d, want 0", cfg.Limit())
	}
	adv, err := advisor.New(advisor.Config{Model: "tiny:1b", Host: u, Timeout: time.Second, Threshold: cfg.Limit(), DryRun: cfg.DryRun})
	if err != nil || adv.Threshold() != 0 {
		t.Fatalf("advisor: %v, threshold %d", err, adv.Threshold())
	}
	s := newAdvisedSession(t, guardsh.ModeAuto, srv.URL, time.Second, nil)
	s.r.cfg.Advisor = adv
	if st := s.run(context.Background(), "ls; ls > listing.txt; echo ran > ran.txt; : > data.db"); st == 0 {
		t.Errorf("status 0")
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "listing.txt")); len(b) != 0 {
		t.Errorf("ls ran in a dry run: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "data.db")); string(b) != "precious" {
		t.Errorf("data.db truncated in a dry run: %q", b)
	}
	if !strings.Contains(s.stderr.String(), "[advisor.dry-run]") {
		t.Errorf("stderr lacks the dry-run refusal:\n%s", s.stderr.String())
	}
	if r := s.record(t, "ls"); r.Decision != "deny" || r.Rule != RuleAdvisorDryRun || r.Advisor == nil || !strings.Contains(r.Advisor.Reason, "dry run") {
		t.Errorf("audit record of ls: %+v", r)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times in a dry run", n)
	}
}
