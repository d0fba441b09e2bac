package shellargs

import (
	"reflect"
	"testing"
)

// TestParse: bash's command line in any bundling and order.
func TestParse(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		argv []string
		want Invocation
	}{
		{[]string{"-c", "echo", "a", "b"}, Invocation{Command: str("echo"), Name: "a", Params: []string{"b"}}},
		{[]string{"-lc", "echo"}, Invocation{Command: str("echo"), Name: "sh0", Login: true}},
		{[]string{"-c", "-l", "echo"}, Invocation{Command: str("echo"), Name: "sh0", Login: true}},
		{[]string{"-l", "-c", "echo"}, Invocation{Command: str("echo"), Name: "sh0", Login: true}},
		{[]string{"-euo", "pipefail", "-c", "x"}, Invocation{Command: str("x"), Name: "sh0", Opts: []string{"-e", "-u", "-o", "pipefail"}}},
		{[]string{"-c", "x", "-l"}, Invocation{Command: str("x"), Name: "-l"}},
		{[]string{"script.sh", "-x", "y"}, Invocation{Script: "script.sh", Name: "script.sh", Params: []string{"-x", "y"}}},
		{[]string{"-s", "a", "b"}, Invocation{Stdin: true, Name: "sh0", Params: []string{"a", "b"}}},
		{nil, Invocation{Stdin: true, Name: "sh0"}},
		{[]string{"--login", "--norc", "--noprofile", "--posix", "-i"}, Invocation{Stdin: true, Name: "sh0", Login: true, NoRC: true, NoProfile: true, Posix: true, Interactive: true}},
		{[]string{"+H", "-m", "-c", "x"}, Invocation{Command: str("x"), Name: "sh0"}},
		{[]string{"-x", "--", "s.sh"}, Invocation{Script: "s.sh", Name: "s.sh", Opts: []string{"-x"}}},
		{[]string{"--mode", "auto", "-c", "x"}, Invocation{Command: str("x"), Name: "sh0", Long: []string{"--mode=auto"}}},
		{[]string{"--mode=plan", "-c", "x"}, Invocation{Command: str("x"), Name: "sh0", Long: []string{"--mode=plan"}}},
	}
	for _, tc := range tests {
		got, err := Parse(tc.argv, "sh0", map[string]bool{"--mode": true})
		if err != nil {
			t.Errorf("%q: %v", tc.argv, err)
			continue
		}
		if len(got.Params) == 0 {
			got.Params = nil
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *got, tc.want)
		}
	}
	for _, bad := range [][]string{{"-Z"}, {"-c"}, {"--nosuch"}, {"-o"}} {
		if _, err := Parse(bad, "sh0", nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
