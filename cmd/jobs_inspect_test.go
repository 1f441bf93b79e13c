package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/kado"
)

// inspect --json -j 4 writes what -j 1 writes, byte for byte: stdout,
// stderr, exit status; on good, damaged, truncated and large captures and
// on a compression bomb, with --frame, --skip, --length and a small
// --max-frame-size; from files and from standard input.
func TestInspectJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs inspect -j 1 and -j 4 over every input")
	names := jobsCaptures(t)
	dir := t.TempDir()
	// A bomb: a small frame whose payload decompresses past the limit.
	bomb, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Status}, []byte(`{"data":"`+strings.Repeat("z", 3<<20)+`"}`), kado.CompressAlways)
	bomb, _, _ = kado.AppendFrame(bomb, kado.Header{Version: 1, Type: kado.Heartbeat, SequenceID: 1}, []byte(`{}`), kado.CompressNever)
	path := filepath.Join(dir, "bomb.bin")
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	names = append(names, path)
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, flags := range [][]string{nil, {"--frame", "3"}, {"--frame", "100000"}, {"--skip", "1001"}, {"--skip", "77", "--length", "20000"},
			{"--length", "300"}, {"--max-frame-size", "2KiB"}} {
			for _, src := range []string{name, "-"} {
				args := append(append([]string{"inspect", "--json"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q\n-j 4: %d %d bytes %.300q", args,
						one.code, len(one.out), one.err, four.code, len(four.out), four.err)
				}
			}
		}
	}
	// Several inputs, one summary; a missing one among them.
	args := append(append([]string{"inspect", "--json"}, names...), filepath.Join(dir, "missing.bin"))
	one := runJobs(t, nil, dir, append(args, "-j", "1")...)
	four := runJobs(t, nil, dir, append(args, "-j", "4")...)
	if one != four || one.code != cli.ExitIO {
		t.Errorf("several inputs: -j 4 differs from -j 1 (exit %d, %d; %.300q, %.300q)", one.code, four.code, one.err, four.err)
	}
}
