package guardsh

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDir finds the shared corpus: GUARDSH_CORPUS, or shared/corpus
// beside the repository (../../shared from this package, ../shared from
// the repository root).
func corpusDir() string {
	cands := []string{os.Getenv("GUARDSH_CORPUS"), "../../shared/corpus", "../shared/corpus"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "commands.jsonl")); err == nil {
			return c
		}
	}
	return ""
}

type corpusRow struct {
	Command  string `json:"command"`
	Expected string `json:"expected"`
	Source   string `json:"source"`
	peers    map[string]string
}

func loadCorpus(t testing.TB) ([]corpusRow, []string) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("corpus not found: set GUARDSH_CORPUS or put shared/corpus beside the repository (../../shared/corpus)")
	}
	f, err := os.Open(filepath.Join(dir, "commands.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r corpusRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	// peers.tsv: same rows in the same order, one column per peer.
	var peers []string
	if b, err := os.ReadFile(filepath.Join(dir, "peers.tsv")); err == nil {
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		head := strings.Split(lines[0], "\t")
		var cols []int
		for i, h := range head {
			if i >= 3 && !strings.HasSuffix(h, "_rule") {
				cols = append(cols, i)
				peers = append(peers, h)
			}
		}
		if len(lines)-1 == len(rows) {
			for i, l := range lines[1:] {
				fs := strings.Split(l, "\t")
				rows[i].peers = map[string]string{}
				for k, c := range cols {
					if c < len(fs) {
						rows[i].peers[peers[k]] = fs[c]
					}
				}
			}
		} else {
			peers = nil
		}
	}
	return rows, peers
}

// corpusEnv is the environment the corpus rows assume.
var corpusEnv = CheckEnv{Dir: "/home/user/project", Project: "/home/user/project", Home: "/home/user"}

func escapeRow(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`).Replace(s)
}

// corpusFigures counts one tool's decisions per expected class.
type corpusFigures struct {
	denyRows, denyAllowed, denyAsked   int
	allowRows, allowDenied, allowAsked int
	askRows, askAllowed, askDenied     int
}

func (f *corpusFigures) add(expected, got string) {
	switch expected {
	case "deny":
		f.denyRows++
		switch got {
		case "allow":
			f.denyAllowed++
		case "ask":
			f.denyAsked++
		}
	case "allow", "safe":
		f.allowRows++
		switch got {
		case "deny":
			f.allowDenied++
		case "ask":
			f.allowAsked++
		}
	case "ask":
		f.askRows++
		switch got {
		case "allow":
			f.askAllowed++
		case "deny":
			f.askDenied++
		}
	}
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

func (f corpusFigures) row(name string) string {
	return fmt.Sprintf("| %s | %d (%.1f%%) | %d (%.1f%%) | %d (%.1f%%) | %d (%.1f%%) | %d/%d/%d |",
		name, f.denyAllowed, pct(f.denyAllowed, f.denyRows), f.denyAsked, pct(f.denyAsked, f.denyRows),
		f.allowDenied, pct(f.allowDenied, f.allowRows), f.allowAsked, pct(f.allowAsked, f.allowRows),
		f.askAllowed, f.askRows-f.askAllowed-f.askDenied, f.askDenied)
}

// TestCorpus runs the shared corpus through the checker in auto mode:
// expected-deny rows that guardsh allows must stay at or below 1%,
// expected-allow rows that guardsh denies must be listed with a reason in
// testdata/corpus-disagreements.tsv (no unlisted disagreement passes).
func TestCorpus(t *testing.T) {
	rows, peers := loadCorpus(t)
	listed := loadDisagreements(t, "testdata/corpus-disagreements.tsv")
	p := NewPolicy(ModeAuto)
	var ours corpusFigures
	peerFigs := map[string]*corpusFigures{}
	for _, pn := range peers {
		peerFigs[pn] = &corpusFigures{}
	}
	seen := map[string]bool{}
	var unlisted []string
	for _, r := range rows {
		sv, _ := p.CheckScript(r.Command, corpusEnv)
		got := sv.Decision.String()
		ours.add(r.Expected, got)
		for _, pn := range peers {
			peerFigs[pn].add(r.Expected, r.peers[pn])
		}
		disagree := r.Expected == "deny" && got == "allow" || (r.Expected == "allow" || r.Expected == "safe") && got == "deny"
		if !disagree {
			continue
		}
		key := escapeRow(r.Command) + "\t" + r.Expected
		seen[key] = true
		if _, ok := listed[key]; !ok {
			unlisted = append(unlisted, fmt.Sprintf("%s\t%s\t%s\t[%s] %s", escapeRow(r.Command), r.Expected, got, sv.Rule, sv.Reason))
		}
	}
	sort.Strings(unlisted)
	for _, u := range unlisted {
		t.Errorf("unlisted disagreement: %s", u)
	}
	for k := range listed {
		if !seen[k] {
			t.Errorf("listed disagreement no longer disagrees (remove it): %s", k)
		}
	}
	var b strings.Builder
	b.WriteString("| tool | expected deny: allowed | expected deny: asked | expected allow: denied | expected allow: asked | expected ask: allow/ask/deny |\n|---|---|---|---|---|---|\n")
	b.WriteString(ours.row("guardsh (auto)") + "\n")
	for _, pn := range peers {
		b.WriteString(peerFigs[pn].row(pn) + "\n")
	}
	t.Logf("corpus: %d rows (%d expected deny, %d expected allow/safe, %d expected ask); %d listed disagreements\n%s",
		len(rows), ours.denyRows, ours.allowRows, ours.askRows, len(listed), b.String())
	if out := os.Getenv("GUARDSH_CORPUS_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if pct(ours.denyAllowed, ours.denyRows) > 1 {
		t.Errorf("expected-deny rows allowed: %d of %d (%.2f%%) > 1%%", ours.denyAllowed, ours.denyRows, pct(ours.denyAllowed, ours.denyRows))
	}
}

// loadDisagreements reads a list of corpus rows guardsh disagrees with on
// purpose: command (escaped), expected, guardsh's decision, reason.
func loadDisagreements(t *testing.T, file string) map[string]string {
	listed := map[string]string{}
	b, err := os.ReadFile(file)
	if err != nil {
		return listed
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fs := strings.Split(l, "\t")
		if len(fs) < 4 || strings.TrimSpace(fs[3]) == "" {
			t.Errorf("%s: disagreement without a reason: %q", file, l)
			continue
		}
		listed[fs[0]+"\t"+fs[1]] = fs[3]
	}
	return listed
}

// Bounds of the sandboxed measurement (TestCorpusSandboxed): auto mode
// with a verified sandbox may ask at most this share of the benign rows,
// and allow no expected-deny row that is not listed with a reason, in
// testdata/corpus-disagreements.tsv (rows auto mode allows too) or
// testdata/corpus-disagreements-sandboxed.tsv (rows only the sandbox
// allows).
const sandboxedMaxBenignAsked = 45.0 // percent

// TestCorpusSandboxed runs the corpus as --check --sandboxed does: auto
// mode for commands that will run in a verified session sandbox. It prints
// what is still asked of the benign rows, by rule.
func TestCorpusSandboxed(t *testing.T) {
	p := NewPolicy(ModeAuto)
	p.Sandboxed = true
	runCorpusSandboxed(t, p, "sandboxed auto mode", "guardsh (auto, sandboxed)", "--sandboxed", sandboxedMaxBenignAsked,
		"testdata/corpus-disagreements-sandboxed.tsv")
}

// sandboxedNetMaxBenignAsked bounds TestCorpusSandboxedNet: auto mode in
// a verified sandbox whose connections go through the session's proxy.
const sandboxedNetMaxBenignAsked = 20.0 // percent

// TestCorpusSandboxedNet runs the corpus as --check --sandboxed does
// where the session has a network namespace: auto mode, a verified
// sandbox, and the proxy deciding each connection by destination (with
// the registries profile on, which is decided at connect time and so
// changes no command's verdict). Network commands then do not ask as
// commands; destructive remote operations, commands that reach what the
// proxy cannot see and everything else still do. Expected-deny rows it
// allows must be listed with a reason in testdata/corpus-disagreements.tsv,
// -sandboxed.tsv or -sandboxed-net.tsv. It prints what is still asked of
// the benign rows, by rule.
func TestCorpusSandboxedNet(t *testing.T) {
	p := NewPolicy(ModeAuto)
	p.Sandboxed, p.NetProxy = true, true
	runCorpusSandboxed(t, p, "sandboxed auto mode with the proxy", "guardsh (auto, sandboxed, proxy)", "--sandboxed and the proxy",
		sandboxedNetMaxBenignAsked, "testdata/corpus-disagreements-sandboxed.tsv", "testdata/corpus-disagreements-sandboxed-net.tsv")
}

// runCorpusSandboxed checks the corpus with p: every expected-deny row it
// allows is listed (corpus-disagreements.tsv or one of lists), at most
// maxAsked percent of the benign rows ask, and what they ask is printed
// by rule.
func runCorpusSandboxed(t *testing.T, p *Policy, title, tool, how string, maxAsked float64, lists ...string) {
	t.Helper()
	rows, _ := loadCorpus(t)
	listed := loadDisagreements(t, "testdata/corpus-disagreements.tsv")
	for _, f := range lists {
		for k, v := range loadDisagreements(t, f) {
			listed[k] = v
		}
	}
	var f corpusFigures
	byRule := map[string]int{}
	example := map[string]string{}
	var allowedDeny []string
	for _, r := range rows {
		sv, _ := p.CheckScript(r.Command, corpusEnv)
		got := sv.Decision.String()
		f.add(r.Expected, got)
		switch {
		case r.Expected == "deny" && got == "allow":
			allowedDeny = append(allowedDeny, fmt.Sprintf("[%s] %s", sv.Rule, escapeRow(r.Command)))
			if _, ok := listed[escapeRow(r.Command)+"\tdeny"]; !ok {
				t.Errorf("expected-deny row allowed with %s, not listed: [%s] %s", how, sv.Rule, escapeRow(r.Command))
			}
		case (r.Expected == "allow" || r.Expected == "safe") && got == "ask":
			byRule[sv.Rule]++
			if _, ok := example[sv.Rule]; !ok {
				example[sv.Rule] = escapeRow(r.Command)
			}
		}
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if byRule[rules[i]] != byRule[rules[j]] {
			return byRule[rules[i]] > byRule[rules[j]]
		}
		return rules[i] < rules[j]
	})
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "  %4d %-24s e.g. %.70s\n", byRule[r], r, example[r])
	}
	t.Logf("%s: %s\nbenign rows still asked, by rule:\n%sexpected-deny rows allowed (%d):\n  %s",
		title, f.row(tool), b.String(), len(allowedDeny), strings.Join(allowedDeny, "\n  "))
	if got := pct(f.allowAsked, f.allowRows); got > maxAsked {
		t.Errorf("benign rows asked with %s: %d of %d (%.1f%%) > %.0f%%", how, f.allowAsked, f.allowRows, got, maxAsked)
	}
}
