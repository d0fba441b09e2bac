// Package e2e drives the real agent CLIs (pinned npm versions, installed
// by .ci/run) through guardsh's documented set-ups, against fake model
// servers on 127.0.0.1 that speak each provider's wire protocol and
// script the model's turns. See docs/agents.md.
package e2e

import (
	"testing"

	"github.com/guardsh/guardsh/internal/testenv"
)

// TestMain pins HOME, the XDG directories and the guardsh session
// variables (testenv.Main).
func TestMain(m *testing.M) { testenv.Main(m) }
