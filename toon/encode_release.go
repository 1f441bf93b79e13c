package toon

// This file holds the encoder's side of toonx.EncodeOptions.Release: the
// calls that let a caller whose value is a file mapped in memory let go of
// the pages gone through, so that a document of any size is encoded in
// bounded memory.

// defaultReleaseEvery is the bytes gone through between calls of Release
// when toonx.EncodeOptions.ReleaseEvery is 0.
const defaultReleaseEvery = 8 << 20

// releaseSteps is the most steps (elements and members moved past) between
// calls of Release, however little of the value they went through: a walk
// over a value that changed after it was checked may go round in circles,
// and Release is where the caller finds out that it changed.
const releaseSteps = 1 << 20

// releaser calls Release when the offsets gone through since its last
// call span every bytes or more, or after releaseSteps steps. The span
// (lo to hi) holds every page read since then but for the bounded
// look-ahead of skip.
type releaser struct {
	fn     func()
	every  int
	lo, hi int
	steps  int
}

// reset starts a new span at offset p.
func (r *releaser) reset(p int) {
	if r != nil {
		r.lo, r.hi, r.steps = p, p, 0
	}
}

// moved notes a step to offset p, and calls Release when it is time.
func (r *releaser) moved(p int) {
	r.steps++
	r.lo, r.hi = min(r.lo, p), max(r.hi, p)
	if r.hi-r.lo >= r.every || r.steps >= releaseSteps {
		r.fn()
		r.lo, r.hi, r.steps = p, p, 0
	}
}
