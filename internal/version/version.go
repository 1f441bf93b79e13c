// Package version tells which version of toonkit is running.
//
// The answer comes from the first of these that is known:
//
//   - Stamped, set at link time: make build passes
//     `git describe --tags --always --dirty` as
//     -ldflags "-X github.com/toonkit/toonkit/internal/version.Stamped=...",
//     which is the tag on a tagged commit (v0.2.0), the tag, the number of
//     commits since it and the commit after it (v0.2.0-3-gabc1234), the
//     commit alone when no tag is reachable, and "-dirty" when the work tree
//     had changes;
//   - the main module's version in the binary's build info, which the go
//     command records for a module-aware build:
//     `go install github.com/toonkit/toonkit@v0.2.0` reports v0.2.0, and
//     since Go 1.24 a plain `go build` in a git checkout reports a
//     pseudo-version made from the last tag and the commit
//     (v0.2.1-0.20261125083511-fb80e029f66e, "+dirty" when changed);
//   - for a development build whose build info has no module version
//     (Main.Version "(devel)": older go commands), "devel" with the first 12
//     digits of the commit and "-dirty" from the vcs.revision and
//     vcs.modified build settings: devel+0baba40c1e2f-dirty;
//   - "devel".
package version

import "runtime/debug"

// Stamped is the version set at link time; empty when none was.
var Stamped = ""

// String returns the version of the running program.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return From(Stamped, bi)
}

// From returns the version given the link-time stamp (may be empty) and the
// build info (may be nil), by the rules of the package comment.
func From(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel+" + rev[:min(12, len(rev))] + dirty
}
