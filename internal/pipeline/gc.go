package pipeline

import (
	"os"
	"runtime/debug"
)

// SetGCPercent sets the collector's GOGC to percent for a run and returns
// the function that restores it. It changes nothing when percent is 0 or
// when GOGC is in the environment, which wins (gogcSet; nil looks it up
// with os.LookupEnv).
//
// A run's batches are recycled by the engine, so that once the first
// batches exist the workers allocate little: a higher GOGC then saves
// collections the workers would pay for in assists. Each caller says when
// that holds for its work (sign and verify on several workers, query on
// one).
func SetGCPercent(percent int, gogcSet func() bool) (restore func()) {
	if gogcSet == nil {
		gogcSet = func() bool { _, set := os.LookupEnv("GOGC"); return set }
	}
	if percent == 0 || gogcSet() {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}
