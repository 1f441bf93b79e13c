package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/capturetest"
)

// inspect and validate of packet captures with -j 4 write what -j 1
// writes, byte for byte (stdout, stderr, exit status), in every view, on
// the sample captures (both directions, WebSocket, a hole, IPv6 and SLL2,
// bad frames) and on a file that only starts as a capture; from files and
// from standard input.
func TestCaptureJobsIdentical(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for _, n := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(n)
		names = append(names, filepath.Join(dir, n))
		if err := os.WriteFile(names[len(names)-1], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cut := filepath.Join(dir, "cut.pcapng")
	if err := os.WriteFile(cut, []byte("\n\r\r\nxxxxxxxx"), 0o644); err != nil {
		t.Fatal(err)
	}
	names = append(names, cut)
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, view := range [][]string{{"inspect"}, {"inspect", "-1"}, {"inspect", "--json"}, {"inspect", "--summary"},
			{"inspect", "--port", "7000"}, {"validate"}, {"validate", "--report", "json"}} {
			for _, src := range []string{name, "-"} {
				args := append(append([]string{}, view...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "-j", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %q %q\n-j 4: %d %q %q", args, one.code, one.out, one.err, four.code, four.out, four.err)
				}
				// The captures are read as captures: their connections are named.
				if name != cut && !strings.Contains(one.out, "0.0.1:") && !strings.Contains(one.out, "[fd00::") {
					t.Errorf("%v: no connection named:\n%s", args, one.out)
				}
			}
		}
	}
}
