package sandbox

import (
	"fmt"
	"os"
)

// confinementKey describes the confinement the calling process is already
// under (no_new_privs, seccomp, capabilities, user namespace), for the
// probe cache: a result proved outside another sandbox (a shell of an
// agent confined by guardsh --launch --confine, a container sharing the
// same home) does not hold inside it, where the namespaces it used may be
// refused.
func confinementKey() string {
	st, err := SelfStatus()
	if err != nil {
		return "unknown"
	}
	userns, _ := os.Readlink("/proc/self/ns/user")
	return fmt.Sprintf("nnp=%v seccomp=%d eff=%x bnd=%x %s", st.NoNewPrivs, st.Seccomp, st.CapEff, st.CapBnd, userns)
}
