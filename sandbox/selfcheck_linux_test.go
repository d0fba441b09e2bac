//go:build linux

package sandbox

import "testing"

// TestSelfConfinedAgreesWithStatus: the system-call check of the
// interpreter's start (selfConfined) says what /proc/self/status says, here
// unconfined (the confined side is a probe check: TestProbeBackends).
func TestSelfConfinedAgreesWithStatus(t *testing.T) {
	st, err := SelfStatus()
	if err != nil {
		t.Skip(err)
	}
	if got, want := selfConfined(), st.Confined(); got != want {
		t.Errorf("selfConfined() = %v, /proc/self/status says %v (%+v)", got, want, st)
	}
	eff, prm, err := selfCaps()
	if err != nil || eff != st.CapEff || prm != st.CapPrm {
		t.Errorf("selfCaps() = %x %x %v, /proc/self/status: CapEff=%x CapPrm=%x", eff, prm, err, st.CapEff, st.CapPrm)
	}
}
