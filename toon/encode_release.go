package toon

// This file holds the encoder's side of toonx.EncodeOptions.Release: the
// calls that let a caller whose value is a file mapped in memory let go of
// the pages gone through, so that a document of any size is encoded in
// bounded memory.

// defaultReleaseEvery is the bytes gone through between calls of Release
// when toonx.EncodeOptions.ReleaseEvery is 0.
const defaultReleaseEvery = 8 << 20

// stepBytes is what each step (an element or member moved past) counts for,
// however little of the value it went through: a walk over a value that
// changed after it was checked may go round in circles, and Release is where
// the caller finds out that it changed. So Release comes at least every
// ReleaseEvery/stepBytes steps (half a million by default).
const stepBytes = 16

// releaser calls Release when the distance gone forwards since its last
// call, with stepBytes for each step, reaches every bytes: every page read
// since then was read going forwards (after a jump back too), but for the
// bounded look-ahead of skip.
type releaser struct {
	fn    func()
	every int
	last  int // the offset of the last step
	span  int // the distance forwards since the last call
}

// reset starts a new span at offset p.
func (r *releaser) reset(p int) {
	if r != nil {
		r.last, r.span = p, 0
	}
}

// moved notes a step to offset p, and reports whether Release is due
// (call). It is small enough to be inlined in the walk's every step.
func (r *releaser) moved(p int) bool {
	d := p - r.last
	r.last = p
	r.span += max(d, 0) + stepBytes // forwards: a walk reads pages going forwards
	return r.span >= r.every
}

// call calls Release and starts a new span at offset p.
//
//go:noinline
func (r *releaser) call(p int) {
	r.fn()
	r.last, r.span = p, 0
}
