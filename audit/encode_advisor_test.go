package audit

import (
	"encoding/json"
	"testing"
)

// The advisor's part of a record encodes exactly as encoding/json does.
func TestAppendRecordAdvisorMatchesEncodingJSON(t *testing.T) {
	zero, p := 0, 85
	recs := []Record{
		{Advisor: &Advisor{}},
		{Advisor: &Advisor{Percent: &zero}},
		{Advisor: &Advisor{Error: "advisor unavailable: no \"server\""}},
		{Advisor: &Advisor{Model: "m"}},
		{Event: "decide", Decision: "deny", Rule: "advisor.destructive", Sandbox: "off (test)",
			Advisor: &Advisor{Percent: &p, Reason: "deletes <all>", Model: "qwen2.5:0.5b", PromptTokens: 120, EvalTokens: 17, LatencyMS: 812.5, Cached: true}},
		{Advisor: &Advisor{LatencyMS: 1e-7, EvalTokens: 1}},
	}
	for i := range recs {
		want, err := json.Marshal(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRecord(nil, &recs[i]); string(got) != string(want) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
