package interp

import (
	"os"
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestMain runs the tests with HOME, the XDG directories and the guardsh
// session variables pinned (testenv.Main): no test reads the invoking
// user's configuration or writes their audit log or caches.
func TestMain(m *testing.M) {
	if os.Getenv("GUARDSH_TEST_INITENV") == "child" {
		// TestClearInitialEnviron's helper process: its environment
		// is the test's subject, and it ends with os.Exit.
		os.Exit(m.Run())
	}
	testenv.Main(m)
}
