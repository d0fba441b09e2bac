//go:build !linux

package interp

import "time"

// BecomeSubreaper is BecomeSubreaper of reap_linux.go; elsewhere a
// program that leaves its process group is not followed (README Limits).
func BecomeSubreaper() error { return nil }

// ProcKey names one process over time: its pid and its start time.
type ProcKey struct {
	Pid   int
	Start uint64
}

// Descendants is Descendants of reap_linux.go; elsewhere it finds none.
func Descendants(root int) map[ProcKey]bool { return nil }

// KillDescendants is KillDescendants of reap_linux.go; elsewhere it stops
// nothing.
func KillDescendants(root int, keep, pass map[ProcKey]bool, grace time.Duration) []StoppedProc {
	return nil
}

// StoppedProc is a process KillDescendants signalled, with its name.
type StoppedProc struct {
	ProcKey
	Name   string
	Zombie bool
}

func reapAdopted(ps []StoppedProc, started map[int]bool) {}

// StopSurvivors does nothing here (no subreaper).
func StopSurvivors(grace time.Duration) {}
