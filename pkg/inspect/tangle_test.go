package inspect

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/pkg/capture"
)

// The views of captures with every hazard (capturetest.Tangle: frames split
// anywhere, segments out of order, sent twice, overlapping and lost, bad
// payloads, IPv6, SLL, WebSocket, a connection already open) are byte for
// byte those of the reading before it was spread over two goroutines (the
// file and packets read ahead, pkg/capture): the hashes are of the
// output of `toonkit inspect [--oneline|--json] FILE` at commit c561d88,
// with one worker and with two.
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
	for name, data := range files {
		for _, f := range []struct {
			name   string
			format Format
		}{{"oneline", OneLine}, {"text", Text}, {"json", JSON}} {
			for _, workers := range []int{1, 2} {
				var out bytes.Buffer
				in := New(&out, Options{Format: f.format, Workers: workers})
				// as cmd gives it: through a bufio.Reader (Record.Idle)
				if _, err := in.InspectCapture(name, bufio.NewReaderSize(bytes.NewReader(data), 64<<10), capture.Options{}); err != nil {
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
}
