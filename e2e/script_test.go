package e2e

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// step is one tool call the scripted model asks the agent's shell tool to
// make, with what the tool result it then receives must contain.
type step struct {
	name string
	cmd  string
	want []string // every string must appear in the tool result
	// input, when set, is the tool call's input for the tool offered
	// (instead of the agent's toolSpec.args for cmd).
	input func(tool string) map[string]any
}

// stepResult is what the model received for one step.
type stepResult struct {
	output  string
	elapsed time.Duration // from the reply asking for the call to the request carrying its result
	got     bool
}

// script is the model's side of one agent session: the steps in order, and
// what came back for each. Every provider's fake server drives one.
type script struct {
	mu       sync.Mutex
	steps    []step
	results  []stepResult
	sentAt   []time.Time
	requests int      // agent-loop requests (with the shell tool)
	other    int      // other requests (titles, quota checks, token counts...)
	notes    []string // protocol surprises, reported by the test
	done     bool     // the final text was sent
	// onDone runs once, when the last result arrives, while the agent
	// still runs (what it keeps only during a session, e.g. Claude Code's
	// shell snapshot, is there to look at).
	onDone func()
	first  time.Time // the first agent-loop request
	doneAt time.Time // the request carrying the last result
}

func newScript(steps []step) *script {
	return &script{steps: steps, results: make([]stepResult, len(steps)), sentAt: make([]time.Time, len(steps))}
}

// callID names step i's tool call, so its result can be found in the
// conversation by id where the protocol carries one.
func callID(i int) string { return fmt.Sprintf("call_e2e_%d", i) }

// stepOf returns the step index of a call id, or -1.
func stepOf(id string) int {
	var i int
	if _, err := fmt.Sscanf(id, "call_e2e_%d", &i); err != nil {
		return -1
	}
	return i
}

// next records the tool results found in a request (by step index) and
// returns the step to ask for now, or -1 when every step has its result
// (the model then ends the session with text). The next step is the first
// without a result.
func (s *script) next(results map[int]string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	now := time.Now()
	if s.first.IsZero() {
		s.first = now
	}
	for i, out := range results {
		if i < 0 || i >= len(s.steps) || s.results[i].got {
			continue
		}
		s.results[i] = stepResult{output: out, got: true}
		if !s.sentAt[i].IsZero() {
			s.results[i].elapsed = now.Sub(s.sentAt[i])
		}
	}
	for i := range s.steps {
		if !s.results[i].got {
			if s.sentAt[i].IsZero() {
				s.sentAt[i] = now
			}
			return i
		}
	}
	if !s.done {
		s.doneAt = now
		if s.onDone != nil {
			s.onDone()
		}
	}
	s.done = true
	return -1
}

func (s *script) note(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notes) < 20 {
		s.notes = append(s.notes, fmt.Sprintf(format, args...))
	}
}

func (s *script) countOther() {
	s.mu.Lock()
	s.other++
	s.mu.Unlock()
}

// finalText is the model's last message once every step has its result.
const finalText = "All four commands are done."

// problem is one failed check of a session: the step it belongs to
// ("" for the session, "home" and "after" for what it left behind).
type problem struct {
	step, msg string
}

// check returns what is wrong with the session's steps.
func (s *script) check() []problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	var bad []problem
	for i, st := range s.steps {
		r := s.results[i]
		if !r.got {
			bad = append(bad, problem{st.name, fmt.Sprintf("step %s (%q): no tool result reached the model", st.name, st.cmd)})
			continue
		}
		for _, w := range st.want {
			if !strings.Contains(r.output, w) {
				bad = append(bad, problem{st.name, fmt.Sprintf("step %s (%q): the tool result lacks %q; it was:\n%s", st.name, st.cmd, w, indent(r.output))})
				break
			}
		}
	}
	return bad
}

func indent(s string) string {
	if n := 3000; len(s) > n && os.Getenv("GUARDSH_E2E_DEBUG") == "" {
		s = s[:n] + "\n[...]"
	}
	return "\t| " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t| ")
}

// pending returns the step waiting for its result longest, and for how
// long (-1 when none waits).
func (s *script) pending(now time.Time) (int, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.steps {
		if !s.results[i].got && !s.sentAt[i].IsZero() {
			return i, now.Sub(s.sentAt[i])
		}
	}
	return -1, 0
}

// sinceDone is how long ago the last result arrived (0 before).
func (s *script) sinceDone(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.doneAt.IsZero() {
		return 0
	}
	return now.Sub(s.doneAt)
}
