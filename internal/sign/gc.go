package sign

import "github.com/toonkit/toonkit/internal/pipeline"

// parallelGCPercent is the collector's GOGC while events are signed or
// verified on several workers.
//
// Once the batches in flight have been made, the workers allocate nothing:
// the engine recycles the batches, buffers and all. What they allocate is
// made in the first few batches, and at the default GOGC of 100 the heap's
// minimum goal (4 MB) is passed there: the collector ran once or twice in
// the first tenth of a second, its assists taken from the workers, where
// with one worker it ran on the idle second core. At 200 the goal is 8 MB,
// which the batches of two workers stay under (sign -j 2 of 100 MB of 1 KB
// events: no collection, peak RSS 24 MB, where 100 made one or two and
// 30-33 MB). An input that holds more than that, a large event carried
// across batches, has a goal of three times what it holds instead of two.
const parallelGCPercent = 200

// tuneGC sets parallelGCPercent for a run on workers goroutines and
// returns the function that restores the collector: with one worker, or
// with GOGC in the environment (which wins), it changes nothing.
func tuneGC(workers int) (restore func()) {
	if workers <= 1 {
		return func() {}
	}
	return pipeline.SetGCPercent(parallelGCPercent, nil)
}
