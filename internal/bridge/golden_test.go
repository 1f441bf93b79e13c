package bridge

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The spec documents' examples, as the demo files hold them, and what they
// convert to (with Deterministic, so that the ids are stable).
var goldens = []struct {
	input    string
	from, to Protocol
}{
	{"chiffon.ndjson", Chiffon, Trace},
	{"chiffon.ndjson", Chiffon, Kado},
	{"session.ndjson", Kado, Chiffon},
	{"session.ndjson", Kado, Trace},
	{"tool-events.ndjson", Narratoria, Trace},
	{"trace.ndjson", Trace, Chiffon},
	{"trace.ndjson", Trace, Narratoria},
	{"trace.ndjson", Trace, Kado},
}

// TestGolden converts the examples and compares with testdata/golden
// (make golden rewrites them); warnings are part of the result.
func TestGolden(t *testing.T) {
	for _, g := range goldens {
		name := fmt.Sprintf("%s-to-%s", strings.TrimSuffix(g.input, ".ndjson"), g.to)
		t.Run(name, func(t *testing.T) {
			dir := "../../testdata/demo"
			if g.input == "trace.ndjson" {
				dir = "testdata" // audit.ndjson holds NaN, which JSON does not
			}
			in, err := os.ReadFile(filepath.Join(dir, g.input))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			c, err := New(Options{From: g.from, To: g.to, Deterministic: true, Now: fixedNow,
				Warn: func(where, msg string) { fmt.Fprintf(&got, "warning: %s: %s\n", where, msg) }})
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(in))
			sc.Buffer(nil, 1<<20)
			for line := 1; sc.Scan(); line++ {
				err := c.Convert(sc.Bytes(), func() string { return fmt.Sprintf("%s:%d", g.input, line) }, func(b []byte) error {
					got.Write(b)
					got.WriteByte('\n')
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := c.End(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+".ndjson")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (make golden writes it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s differs from %s:\n%s", name, path, got.String())
			}
		})
	}
}
