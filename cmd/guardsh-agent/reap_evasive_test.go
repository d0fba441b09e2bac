package main

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAgentReapEvasive: programs that try to outlive the
// call's timeout and the run: one that ignores SIGTERM after setsid and a
// double fork, one that answers SIGTERM by starting a replacement, one
// that moves to a new process group, and a "pid hopper" (each generation
// starts the next in the background and exits at once). None is left
// when the run has ended.
func TestAgentReapEvasive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("subreaper and /proc: Linux")
	}
	const evasive = `setsid sh -c '(trap "" TERM; while :; do sleep 4.0391; done) &' >/dev/null 2>&1 &
sh -c 'trap "sleep 4.0392 & exit" TERM; sleep 4.0393 & wait; wait' >/dev/null 2>&1 &
setsid sh -c 'sleep 4.0394' >/dev/null 2>&1 &
sh -c 'h() { sleep 0.01; : hop4.0395; h & }; h' >/dev/null 2>&1 &
sleep 10; echo not-killed`
	const check = `sleep 0.3; n=0; for p in /proc/[0-9]*/cmdline; do if tr '\0' ' ' <"$p" 2>/dev/null | grep -q '4.039[1-5]'; then n=$((n+1)); fi; done; echo "alive=$n"`
	for _, flag := range []string{"", "--no-sandbox"} {
		var args []string
		if flag != "" {
			args = []string{flag}
		}
		out, errs, _, noSandbox := agentRunTry(t, "", []string{shellTurn(evasive, 1), shellTurn(check, 0)}, args...)
		if noSandbox {
			t.Logf("%q: no sandbox here", flag)
			continue
		}
		if !strings.Contains(out, "exit 124 in ") || !strings.Contains(out, "alive=") {
			t.Fatalf("%q: unexpected run:\n%s\n%s", flag, out, errs)
		}
		if !strings.Contains(out, "alive=0") {
			t.Errorf("%q: evasive processes still ran after the call's timeout:\n%s", flag, out)
		}
		time.Sleep(200 * time.Millisecond)
		var alive []int
		for _, m := range []string{"4.0391", "4.0392", "4.0393", "4.0394", "hop4.0395"} {
			alive = append(alive, procsWith(m)...)
		}
		if len(alive) > 0 {
			t.Errorf("%q: processes outlive the run: %v", flag, alive)
			for _, p := range alive {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
}
