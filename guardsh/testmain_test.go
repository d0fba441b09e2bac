package guardsh

import (
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestMain runs the tests with HOME, the XDG directories and GUARDSH_*
// pinned to a directory of this test process (testenv.Main): no test
// reads the invoking user's configuration or writes their audit log.
func TestMain(m *testing.M) { testenv.Main(m) }
