package inspect

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/kado"
)

// The views of captures with every hazard (capturetest.Tangle: frames split
// anywhere, segments out of order, sent twice, overlapping and lost, bad
// payloads, IPv6, SLL, WebSocket, a connection already open) are byte for
// byte those of the reading before it was spread over two goroutines (the
// file and packets read ahead, internal/capture): the hashes are of the
// output of `toonkit inspect [--oneline|--json] FILE` at commit c561d88,
// with one worker and with two, and with two on a file that can be read
// again (the workers check the payloads at the ends of segments too, and
// the capture is read again after a bad one).
func TestTangleViewsUnchanged(t *testing.T) {
	files := map[string][]byte{
		"tangle-ethernet.pcapng": capturetest.Tangle(layers.LinkTypeEthernet, capturetest.PcapNG, 40, 12),
		"tangle-sll.pcap":        capturetest.Tangle(layers.LinkTypeLinuxSLL, capturetest.PcapNanos, 25, 16),
	}
	want := map[string]string{
		"tangle-ethernet.pcapng oneline": "d0562a6cf484d1d1",
		"tangle-ethernet.pcapng text":    "05f5f7daf545a232",
		"tangle-ethernet.pcapng json":    "2cb8ef00bbfc939d",
		"tangle-sll.pcap oneline":        "176782a9741398ac",
		"tangle-sll.pcap text":           "b59b8cf7a7f2ab45",
		"tangle-sll.pcap json":           "3f7ada46080612ec",
	}
	reopened := 0
	for name, data := range files {
		for _, f := range []struct {
			name   string
			format Format
		}{{"oneline", OneLine}, {"text", Text}, {"json", JSON}} {
			for _, workers := range []int{1, 2, -2} {
				var out bytes.Buffer
				in := New(&out, Options{Format: f.format, Workers: max(workers, -workers)})
				// as cmd gives it: through a bufio.Reader (Record.Idle)
				var copts capture.Options
				if workers < 0 {
					// a file, which can be read again: the workers check
					// the frames at the ends of segments too
					copts.Reopen = func() (io.Reader, error) {
						reopened++
						return bufio.NewReaderSize(bytes.NewReader(data), 64<<10), nil
					}
				}
				if _, err := in.InspectCapture(name, bufio.NewReaderSize(bytes.NewReader(data), 64<<10), copts); err != nil {
					t.Fatal(err)
				}
				if _, err := in.Close(); err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprintf("%x", sha256.Sum256(out.Bytes()))[:16]
				if w := want[name+" "+f.name]; got != w {
					t.Errorf("%s %s -j %d: sha256 %s, want %s (%d bytes):\n%.2000s", name, f.name, workers, got, w, out.Len(), out.String())
				}
			}
		}
	}
	if reopened == 0 {
		t.Error("no capture was read again: no frame left to the workers at the end of a segment was bad")
	}
}

// countGood counts a good frame of a capture as count counts the frame's
// report: plain and compressed frames, one with an RLE zero count (a
// warning), of two connections.
func TestCountGoodIsCount(t *testing.T) {
	raws := [][]byte{
		frame(t, kado.Instruction, 1, `{"instruction":"ping"}`, kado.CompressNever),
		frame(t, kado.Status, 3, `{"status":"analyzing","log":"`+strings.Repeat(" ", 40)+`"}`, kado.CompressAlways),
		rawFrame(1, 4, -1, 5, []byte("\x5a{\"status\":\"\xff\x41\x00ok\",\"progress\":1}")),
		frame(t, kado.Heartbeat, 4, `{}`, kado.CompressNever),
	}
	in := New(io.Discard, Options{})
	var viaCount, viaGood Summary
	rd := kado.NewReader(nil, kado.ReaderOptions{})
	warned := 0
	for i, raw := range raws {
		f := kado.Frame{Index: i, Offset: int64(100 * i), Header: kado.ParseHeader(raw), Raw: raw}
		js, err := rd.JSON(&f)
		if err != nil {
			t.Fatal(err)
		}
		src := source{conn: fmt.Sprintf("10.0.0.%d:4000>10.0.0.9:7000", i%2), dir: capture.Dir(i % 2), time: time.Unix(int64(1000+i), 0)}
		var rep report
		in.count(&viaCount, in.frameReport(&rep, &f, js, src))
		in.countGood(&viaGood, &f, len(rep.warnings), &src)
		warned += len(rep.warnings)
	}
	if warned == 0 {
		t.Fatal("no frame with a warning")
	}
	viaCount.connAt, viaGood.connAt = nil, nil
	if diff := cmp.Diff(viaCount, viaGood, cmp.AllowUnexported(Summary{})); diff != "" {
		t.Errorf("count (-) and countGood (+):\n%s", diff)
	}
}
