package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, gcMaxPct},    // 16x would be 1500%: capped
		{2 << 20, gcMaxPct},    // 700% capped too
		{4 << 20, 300},         // 16/4 MiB: 400%, less the 100 Go adds
		{8 << 20, 100},         // half of gcMinHeap and above: Go's default
		{512 << 20, 100},       // a big live heap never takes more than 2x
		{gcMinHeap/2 - 1, 100}, // rounding: never below 100
		{gcMinHeap / 3, 200},   // 16/5.33 MiB
	}
	for _, tt := range tests {
		if got := gcPercent(tt.live); got != tt.want {
			t.Errorf("gcPercent(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestGCTuneFollowsCollections: after a collection the percentage is set
// from the live heap (the finalizer chain stays armed).
func TestGCTuneFollowsCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	armGCTune()
	for range 3 {
		debug.SetGCPercent(123)
		runtime.GC()
		runtime.GC() // the finalizer runs after the collection that frees its object
		deadline := time.Now().Add(5 * time.Second)
		for {
			if p := debug.SetGCPercent(123); p != 123 {
				debug.SetGCPercent(p)
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("GC percentage not re-tuned after a collection")
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
	}
}
