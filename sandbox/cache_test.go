package sandbox

import "testing"

// TestPickCacheDir: the probe cache goes to the first candidate outside
// (and not above) every writable root; HOME under /tmp falls back to the
// runtime directory or /run, and nothing is chosen where all are writable.
func TestPickCacheDir(t *testing.T) {
	roots := []string{"/tmp", "/var/tmp", "/dev/shm", "/home/u/proj"}
	tests := []struct {
		cands []string
		want  string
	}{
		{[]string{"/home/u/.cache"}, "/home/u/.cache/guardsh"},
		{[]string{"/tmp/h/.cache", "/run/user/1000"}, "/run/user/1000/guardsh"},
		{[]string{"/tmp/h/.cache", "", "relative", "/run"}, "/run/guardsh"},
		{[]string{"/home/u/proj/.cache"}, ""},    // inside the project
		{[]string{"/home"}, "/home/guardsh"},     // beside it: fine
		{[]string{"/var/tmp/x", "/dev/shm"}, ""}, // all writable
		{nil, ""},
	}
	for _, tt := range tests {
		if got := pickCacheDir(tt.cands, roots); got != tt.want {
			t.Errorf("pickCacheDir(%q) = %q, want %q", tt.cands, got, tt.want)
		}
	}
	// A root above the candidate: the candidate is inside it.
	if got := pickCacheDir([]string{"/home/u/.cache"}, []string{"/home/u"}); got != "" {
		t.Errorf("a cache inside a writable home was chosen: %q", got)
	}
	// A candidate above a root would contain it.
	if got := pickCacheDir([]string{"/home/u/proj/.."}, []string{"/home/u/proj/x"}); got != "/home/u/guardsh" {
		t.Errorf("got %q", got)
	}
}
