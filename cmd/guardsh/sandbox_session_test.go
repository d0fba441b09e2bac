package main

import (
	"slices"
	"testing"
)

func TestStripNoSandbox(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
		off  bool
	}{
		{[]string{"guardsh", "--no-sandbox", "-c", "echo hi"}, []string{"guardsh", "-c", "echo hi"}, true},
		{[]string{"guardsh", "-e", "--no-sandbox", "script.sh"}, []string{"guardsh", "-e", "script.sh"}, true},
		{[]string{"guardsh", "--mode", "auto", "--no-sandbox"}, []string{"guardsh", "--mode", "auto"}, true},
		// After the command, the script or "--", it is an argument.
		{[]string{"guardsh", "-c", "echo", "--no-sandbox"}, []string{"guardsh", "-c", "echo", "--no-sandbox"}, false},
		{[]string{"guardsh", "script.sh", "--no-sandbox"}, []string{"guardsh", "script.sh", "--no-sandbox"}, false},
		{[]string{"guardsh", "--", "--no-sandbox"}, []string{"guardsh", "--", "--no-sandbox"}, false},
		{[]string{"guardsh", "--mode", "--no-sandbox"}, []string{"guardsh", "--mode", "--no-sandbox"}, false},
	}
	for _, tt := range tests {
		noSandboxFlag = false
		got := stripNoSandbox(tt.argv)
		if !slices.Equal(got, tt.want) || noSandboxFlag != tt.off {
			t.Errorf("stripNoSandbox(%q) = %q, off=%v; want %q, off=%v", tt.argv, got, noSandboxFlag, tt.want, tt.off)
		}
	}
	noSandboxFlag = false
}
