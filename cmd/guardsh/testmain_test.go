package main

import (
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestMain runs the tests with HOME, the XDG directories and the guardsh
// session variables pinned (testenv.Main): no test reads the invoking
// user's configuration or writes their audit log or caches.
func TestMain(m *testing.M) { testenv.Main(m) }
