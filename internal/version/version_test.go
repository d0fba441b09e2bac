package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name, set string
		info      *debug.BuildInfo // nil: no build info
		want      string
	}{
		{"set by the build", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-x"}}, "v1.2.3"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"pseudo-version of a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201214556-07a71cf8790d+dirty"}, Settings: vcs("07a71cf8790d00bae5628cbdba28cb5976a8b797", "true")}, "v0.0.0-20261201214556-07a71cf8790d+dirty"},
		{"revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("07a71cf8790d00bae5628cbdba28cb5976a8b797", "false")}, "devel-07a71cf8790d"},
		{"dirty revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("07a71cf8790d00bae5628cbdba28cb5976a8b797", "true")}, "devel-07a71cf8790d-dirty"},
		{"short revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "false")}, "devel-abc"},
		{"no vcs (-buildvcs=false)", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build info", "", nil, "devel"},
	}
	for _, tt := range tests {
		got := fromBuildInfo(tt.set, func() (*debug.BuildInfo, bool) { return tt.info, tt.info != nil })
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestOf: this test binary has build info; Of never returns "".
func TestOf(t *testing.T) {
	if v := Of(""); v == "" {
		t.Error("Of(\"\") is empty")
	}
	if v := Of("v9"); v != "v9" {
		t.Errorf("Of(\"v9\") = %q", v)
	}
}
