// Package raceflag tells whether the program (or test) was built with the
// race detector (go test -race). The race build changes allocation counts:
// the instrumentation allocates, and sync.Pool drops items at random, so
// tests that assert an allocation budget skip that assertion under it,
// saying so (the behaviour around it is still checked).
package raceflag
