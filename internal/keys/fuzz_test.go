package keys

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseKeyring: any input gives keys or a *SyntaxError, never a panic;
// every key read has a printable id of no white space, given once, and a
// key of no white space that the input holds on its line.
func FuzzParseKeyring(f *testing.F) {
	f.Add([]byte("# comment\n2026-q4 9f86d081884c7d65\r\n\n2026-q3\t60303ae22b998861\n"))
	f.Add([]byte("a b c\n"))
	f.Add([]byte("a 1\na 2"))
	f.Add([]byte("\xff\xfe 1\n"))
	f.Add([]byte("   #\n\t\r\n id\x00 k\n"))
	f.Add([]byte("cur 1\nold 2 retired=2026-10-01T00:00:00Z\nolder 3 retired=2026-11-01T00:00:00Z\n"))
	f.Add([]byte("cur 1\nold 2 retired=2026-10-01T00:00:00.999999999+14:00\nx 3 retired=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ring, err := ParseKeyring(data)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		seen := map[string]bool{}
		lines := bytes.Split(data, []byte("\n"))
		for _, k := range ring {
			if k.ID == "" || len(k.Secret) == 0 || seen[k.ID] || !utf8.ValidString(k.ID) ||
				strings.ContainsAny(k.ID, " \t\r\n") || bytes.ContainsAny(k.Secret, " \t\r\n") {
				t.Fatalf("key %q %q", k.ID, k.Secret)
			}
			seen[k.ID] = true
			var line int
			if _, err := fmt.Sscan(k.From, &line); err != nil || line < 1 || line > len(lines) ||
				!bytes.Contains(lines[line-1], k.Secret) || !bytes.Contains(lines[line-1], []byte(k.ID)) {
				t.Fatalf("key %q from line %q", k.ID, k.From)
			}
		}
		// Retirement times go back, newest key first (Ring.Retired).
		rt := ring.Retired()
		for i := 1; i < len(rt); i++ {
			if !rt[i-1].IsZero() && rt[i].After(rt[i-1]) {
				t.Fatalf("key %d retired at %s, after key %d at %s", i, rt[i], i-1, rt[i-1])
			}
		}
	})
}
