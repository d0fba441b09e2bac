package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The interpreter allocates a little for every command it runs (mvdan's
// word expansion, about 1 KiB per simple command) and keeps a small live
// heap (a few MiB). With Go's default GOGC=100 a loop of builtins collects
// every 4 MiB, and the collector's marking and write barriers cost ~10% of
// its time (a loop of builtins: GOGC=400 took 10-15% of its CPU time off,
// bench/profile_test.go and valgrind instruction counts agree). gcTune lets
// the heap grow to gcMinHeap before a collection while the live heap is
// small, and falls back to GOGC=100 as it grows, so a script holding a lot
// of data does not take GOGC times its size. A GOGC set by the user wins.
//
// Go's smallest heap goal is 4 MiB × GOGC/100, so GOGC=400 alone puts the
// first collections at 16 MiB: gcMaxPct is that, not more.
const (
	gcMinHeap = 16 << 20
	gcMaxPct  = 400
)

func init() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcPercent(2 << 20)) // before the first collection: a small heap
	armGCTune()
}

// gcPercent is the GOGC that puts the next collection at gcMinHeap for a
// live heap of live bytes: between 100 and gcMaxPct.
func gcPercent(live uint64) int {
	if live == 0 || live >= gcMinHeap/2 {
		return 100
	}
	return min(gcMaxPct, int(gcMinHeap*100/live)-100)
}

type gcSentinel struct{ _ [16]byte }

// armGCTune re-tunes after every collection: a finalizer runs once per
// cycle that frees its object, then arms the next one.
func armGCTune() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			debug.SetGCPercent(gcPercent(s[0].Value.Uint64()))
		}
		armGCTune()
	})
}
