package cmd

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/gentable"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/testbin"
	"github.com/toonkit/toonkit/toon"
)

// A 200 MB document is encoded in at most 64 MiB of resident memory, from
// a file and from standard input, and by convert --to toon (no
// --max-frame-size needed), and gives toon.FromJSON's text. The peak
// is toonkit's own high-water mark (VmHWM), read while it cannot have
// ended: the test holds back the last 256 KiB of the output, more than a
// pipe holds, so that the process is blocked writing them.
func TestEncodeTOONBoundedMemory(t *testing.T) {
	needs.Slow(t, "encodes a 200 MB document twice, through the binary")
	doc := gentable.Mixed(200 << 20)
	var want bytes.Buffer
	if err := toon.FromJSON(&want, doc, toon.MarshalOptions{}); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	path := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := testbin.Build(t, "..")
	for _, from := range []string{"file", "stdin", "convert"} {
		c := exec.Command(bin, "encode", path)
		switch from {
		case "stdin":
			c = exec.Command(bin, "encode")
			c.Stdin = bytes.NewReader(doc) // a pipe: written to a temporary file
		case "convert":
			c = exec.Command(bin, "convert", "--to", "toon", path)
		}
		c.Env = append(testbin.Env(bin), "TMPDIR="+t.TempDir())
		c.Stderr = os.Stderr
		out, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		const held = 256 << 10
		got := make([]byte, want.Len()-held)
		if _, err := io.ReadFull(out, got); err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		rss := vmHWM(c.Process.Pid)
		rest, err := io.ReadAll(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(); err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		if !bytes.Equal(append(got, rest...), want.Bytes()) {
			t.Fatalf("%s: the output (%d bytes) differs from toon.FromJSON's (%d)", from, len(got)+len(rest), want.Len())
		}
		if rss == 0 {
			t.Fatalf("%s: no VmHWM read from /proc while toonkit ran", from)
		}
		if rss > 64<<20 {
			t.Errorf("%s: peak resident set %d MiB for a %d MiB document (limit 64 MiB)", from, rss>>20, len(doc)>>20)
		}
		t.Logf("%s: %d MiB document, peak resident set %d MiB", from, len(doc)>>20, rss>>20)
	}
}
