package guardsh

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCatalogueRows: every ruleID has a row with a unique ID, and every
// rule that objects says why and what to do instead.
func TestCatalogueRows(t *testing.T) {
	if idNone.String() != "" {
		t.Errorf("idNone has ID %q", idNone.String())
	}
	seen := map[string]ruleID{}
	for id := idNone + 1; id < numRules; id++ {
		r := id.rule()
		if r.ID == "" {
			t.Errorf("ruleID %d has no row in builtinRules", id)
			continue
		}
		if prev, dup := seen[r.ID]; dup {
			t.Errorf("rule ID %s is used by ruleIDs %d and %d", r.ID, prev, id)
		}
		seen[r.ID] = id
		if r.Decision != Allow && (r.Reason == "" || r.Hint == "") {
			t.Errorf("rule %s needs a reason and a hint", r.ID)
		}
		if r.Catastrophic && r.Decision != Deny {
			t.Errorf("rule %s is catastrophic but decides %s", r.ID, r.Decision)
		}
	}
	if got := len(catalogue()); got != int(numRules)-1 {
		t.Errorf("catalogue() has %d rules, want %d", got, numRules-1)
	}
}

// builtinByID maps a printed rule ID to its row.
func builtinByID() map[string]*BuiltinRule {
	m := map[string]*BuiltinRule{}
	for id := idNone + 1; id < numRules; id++ {
		m[id.String()] = id.rule()
	}
	return m
}

// decisionExempt says why verdict v, whose rule is the built-in rule r,
// may decide other than r's row, or "" when it may not.
func decisionExempt(mode Mode, v Verdict, r *BuiltinRule) string {
	switch {
	case v.Rule == idPrivSudo.String() && v.Decision == Deny && strings.Contains(v.Reason, "runs a command that is itself denied ["):
		return "a privilege wrapper decides as the denied command it runs"
	case mode == ModeStrict && v.Decision == Deny && r.Decision == Ask && strings.HasSuffix(v.Reason, strictAskNote):
		return "strict mode refuses what would be asked"
	case mode == ModeStrict && v.Rule == idStrictEnv.String() && v.Decision == Allow:
		return "a note: the variable is not passed on"
	}
	return ""
}

// TestRuleDecisions: the decision a handler produces is the catalogue's
// for the rule the verdict names, in every mode (the modes answer with
// their own rules: mode.default, mode.plan, mode.bypass). Fed by every
// command of catalogueTests, must and must-not alike, and by the commands
// below whose handlers once replaced or renamed an earlier finding.
func TestRuleDecisions(t *testing.T) {
	rows := builtinByID()
	inputs := map[Mode][]string{}
	for _, tt := range catalogueTests {
		modes := []Mode{tt.mode}
		if tt.mode == "" {
			modes = allModes
		}
		for _, m := range modes {
			inputs[m] = append(inputs[m], tt.match...)
			inputs[m] = append(inputs[m], tt.notMatch...)
		}
	}
	for _, m := range allModes {
		inputs[m] = append(inputs[m], extraDecisionCases...)
	}
	n := 0
	for mode, srcs := range inputs {
		for _, src := range srcs {
			n += checkDecisions(t, rows, mode, src, testEnv)
		}
	}
	if n < 1000 {
		t.Errorf("only %d verdicts checked", n)
	}
}

// TestRuleDecisionsCorpus is TestRuleDecisions on every command of the
// corpus (guardsh/corpus_test.go), in every mode.
func TestRuleDecisionsCorpus(t *testing.T) {
	corpus, _ := loadCorpus(t)
	rows := builtinByID()
	n := 0
	for _, mode := range allModes {
		for _, r := range corpus {
			n += checkDecisions(t, rows, mode, r.Command, corpusEnv)
		}
	}
	t.Logf("%d verdicts of %d commands in %d modes", n, len(corpus), len(allModes))
}

// checkDecisions checks that every verdict of script src (the script's and
// each command's) decides as its built-in rule's row says, and returns how
// many verdicts named a built-in rule.
func checkDecisions(t *testing.T, rows map[string]*BuiltinRule, mode Mode, src string, env CheckEnv) int {
	t.Helper()
	sv, _ := NewPolicy(mode).CheckScript(src, env)
	vs := []Verdict{sv.Verdict}
	for _, c := range sv.Commands {
		vs = append(vs, c.Verdict)
	}
	n := 0
	for _, v := range vs {
		r := rows[v.Rule]
		if r == nil {
			continue // a configured rule
		}
		n++
		if v.Decision != r.Decision && decisionExempt(mode, v, r) == "" {
			t.Errorf("%s mode: %q: %s [%s] %s, but the catalogue's decision for %s is %s", mode, src, v.Decision, v.Rule, v.Reason, v.Rule, r.Decision)
		}
	}
	return n
}

// extraDecisionCases are commands whose handler used to overwrite what
// an earlier part of the command found (the deny of a GUARDSH_*
// assignment, the read of a credentials tree), or to decide otherwise than
// the rule it named (a redirection from a disk denied under disk.read-raw).
var extraDecisionCases = []string{
	"cat < /dev/sda",
	"GUARDSH_SANDBOX=off ssh host",
	"GUARDSH_SANDBOX=off rsync -a src/ build/",
	"GUARDSH_SANDBOX=off scp f host:/tmp/",
	"rsync -a ~/.ssh/ ./x/",
	"rsync -a /etc/ ./x/",
	"rsync -n -a ~/.ssh/ ./x/",
}

// TestHandlersKeepFindings: a handler adds what it finds to what the rest
// of the command found; it does not replace a deny of the command's
// assignments, nor the read of a credentials tree, with its own verdict.
func TestHandlersKeepFindings(t *testing.T) {
	tests := []struct {
		src  string
		want Decision
		rule ruleID
	}{
		{"GUARDSH_SANDBOX=off ssh host", Deny, idGuardshSelf},
		{"GUARDSH_SANDBOX=off rsync -a src/ build/", Deny, idGuardshSelf},
		{"GUARDSH_MODE=bypass rsync -a src/ build/", Deny, idGuardshSelf},
		{"GUARDSH_SANDBOX=off scp f host:/tmp/", Deny, idGuardshSelf},
		{"rsync -a ~/.ssh/ ./x/", Ask, idReadCredentials},
		{"rsync -a /etc/ ./x/", Ask, idReadCredentials},
		// unchanged: a remote shell, a local copy, a dry run lists names
		{"ssh host", Ask, idNetRemoteShell},
		{"rsync -a . host:/srv/", Ask, idNetRemoteShell},
		{"rsync -a src/ build/", Allow, idEditProject},
		{"rsync -n -a ~/.ssh/ ./x/", Allow, idReadOnly},
	}
	for _, tt := range tests {
		sv := check(t, ModeAuto, tt.src)
		if sv.Decision != tt.want || sv.Rule != tt.rule.String() {
			t.Errorf("%q = %s [%s] %s, want %s [%s]", tt.src, sv.Decision, sv.Rule, sv.Reason, tt.want, tt.rule)
		}
	}
	// a venv install keeps what the assignments found
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".venv", "bin"), 0o755)
	for _, args := range [][]string{
		{"GUARDSH_SANDBOX=off", ".venv/bin/pip", "install", "x"},
		{"GUARDSH_MODE=bypass", ".venv/bin/python", "-m", "pip", "install", "x"},
	} {
		v := NewPolicy(ModeAuto).Classify(Command{Args: args, Dir: proj, Project: proj, Home: "/home/u"})
		if v.Decision != Deny || v.Rule != idGuardshSelf.String() {
			t.Errorf("%q = %s [%s] %s, want deny [%s]", args, v.Decision, v.Rule, v.Reason, idGuardshSelf)
		}
	}
	v := NewPolicy(ModeAuto).Classify(Command{Args: []string{".venv/bin/pip", "install", "x"}, Dir: proj, Project: proj, Home: "/home/u"})
	if v.Decision != Allow || v.Rule != idInstallVenv.String() {
		t.Errorf(".venv/bin/pip install x = %s [%s], want allow [%s]", v.Decision, v.Rule, idInstallVenv)
	}
}

// TestRulesDoc: the generated tables of docs/rules.md (the catalogue and
// the strict profile) are what the code says. GUARDSH_UPDATE_DOCS=1
// rewrites them.
func TestRulesDoc(t *testing.T) {
	const file = "../docs/rules.md"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	out := doc
	for _, tab := range []struct{ header, body string }{
		{"| rule | default/auto |", catalogueMarkdown()},
		{"| command | flags |", strictProfileMarkdown()},
	} {
		i := strings.Index(out, "\n"+tab.header)
		if i < 0 {
			t.Fatalf("%s: no table starting %q", file, tab.header)
		}
		i++
		end := strings.Index(out[i:], "\n\n")
		if end < 0 {
			end = len(out) - i
		} else {
			end++
		}
		out = out[:i] + tab.body + out[i+end:]
	}
	if out == doc {
		return
	}
	if os.Getenv("GUARDSH_UPDATE_DOCS") != "" {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/rules.md is stale: its rule tables differ from the catalogue; run GUARDSH_UPDATE_DOCS=1 go test ./guardsh -run TestRulesDoc")
}

// catalogue lists the built-in rules sorted by ID.
func catalogue() []BuiltinRule {
	out := make([]BuiltinRule, 0, numRules-1)
	out = append(out, builtinRules[idNone+1:]...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
