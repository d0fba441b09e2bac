package guardsh

import "strings"

// guardshEnv denies assignments that loosen guardsh itself from inside a
// session: GUARDSH_MODE laxer than the current mode, GUARDSH_SANDBOX=off,
// GUARDSH_SANDBOX_DISABLE, GUARDSH_SANDBOX_WRITE, GUARDSH_CONFIG...
func (cx *cmdCtx) guardshEnv(assign string) {
	k, v, ok := strings.Cut(assign, "=")
	if !ok || !strings.HasPrefix(k, "GUARDSH_") {
		return
	}
	switch k {
	case "GUARDSH_MODE":
		if m, err := ParseMode(v); err == nil && laxer(m, cx.p.Mode) {
			cx.j.match(idGuardshSelf, assign)
		}
	case "GUARDSH_SANDBOX", "GUARDSH_SANDBOX_DISABLE", "GUARDSH_SANDBOX_WRITE", "GUARDSH_SANDBOX_TMP", "GUARDSH_SANDBOX_UNIX",
		"GUARDSH_CONFIG", "GUARDSH_PROJECT", "GUARDSH_TRUST", "GUARDSH_AUDIT", "GUARDSH_SANDBOX_RUN":
		cx.j.match(idGuardshSelf, assign)
	}
}

// laxer reports whether mode a allows more than mode b.
func laxer(a, b Mode) bool {
	rank := func(m Mode) int {
		switch m {
		case ModeStrict:
			return -1
		case ModePlan:
			return 0
		case ModeEdits:
			return 2
		case ModeAuto:
			return 3
		case ModeBypass:
			return 4
		}
		return 1
	}
	return rank(a) > rank(b)
}

// hGuardsh: a nested guardsh keeps the session's mode and sandbox.
func hGuardsh(cx *cmdCtx, name string, args []string) {
	cx.j.atLeast(kDev)
	for k, a := range args[1:] {
		switch {
		case a == "--mode" && k+2 < len(args):
			cx.guardshEnv("GUARDSH_MODE=" + args[k+2])
		case strings.HasPrefix(a, "--mode="):
			cx.guardshEnv("GUARDSH_MODE=" + a[len("--mode="):])
		case a == "--no-sandbox" || a == "--trust" || strings.HasPrefix(a, "--trust="):
			cx.j.match(idGuardshSelf, a)
		case strings.HasPrefix(strings.TrimLeft(a, "-"), "admin") && strings.HasPrefix(a, "-"):
			cx.j.match(idGuardshAdmin, a)
		}
	}
}
