package codec

import (
	"slices"
	"testing"
)

// The keys DetectProtocol reads are members of the messages of the
// protocol they tell, and no list names a member twice.
func TestMembersHoldTheDetectionKeys(t *testing.T) {
	for _, p := range DetectionKeys {
		f := p.Format
		keys := p.Keys
		if p.Version != "" {
			keys = append([]string{"version"}, keys...)
		}
		for _, k := range keys {
			if !slices.Contains(Members[f][""], k) {
				t.Errorf("%s: detection key %q is not in Members", f, k)
			}
		}
	}
	for f, lists := range Members {
		for path, list := range lists {
			seen := map[string]bool{}
			for _, k := range list {
				if seen[k] {
					t.Errorf("%s %q: %q twice", f, path, k)
				}
				seen[k] = true
			}
		}
	}
	// Each detection key set tells its protocol from the start of a
	// message that has those members.
	for _, p := range DetectionKeys {
		f, msg := p.Format, "{"
		if p.Version != "" {
			msg += `"version":"` + p.Version + `",`
		}
		for i, k := range p.Keys {
			if i > 0 {
				msg += ","
			}
			msg += `"` + k + `":1`
		}
		if d := DetectProtocol([]byte(msg + "}")); d.Format != f {
			t.Errorf("%s: DetectProtocol(%s) = %q (%s)", f, msg, d.Format, d.Why)
		}
	}
}
