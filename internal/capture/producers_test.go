package capture_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/needs"
)

// Wireshark's editcap rewrites the samples as pcapng and as nanosecond
// pcap with its own writer (its section and interface blocks, its
// options): the records read back are the same.
func TestEditcapRewrites(t *testing.T) {
	editcap := needs.Program(t, "editcap", "Wireshark's editcap writes the captures compared here (apt-get install tshark)")
	dir := t.TempDir()
	for _, name := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(name)
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, _, err := collect(t, data, capture.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(want) == 0 {
			t.Fatalf("%s: no records", name)
		}
		for _, format := range []string{"pcapng", "nsecpcap"} {
			out := filepath.Join(dir, name+"."+format)
			if b, err := exec.Command(editcap, "-F", format, in, out).CombinedOutput(); err != nil {
				t.Fatalf("editcap -F %s %s: %v\n%s", format, name, err, b)
			}
			rewritten, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := collect(t, rewritten, capture.Options{})
			if err != nil {
				t.Fatalf("%s as %s: %v", name, format, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s as %s by editcap (-ours +editcap's):\n%s", name, format, diff)
			}
		}
	}
}

// tcpdump -r ... -w ... writes the capture as libpcap writes it (with
// nanosecond timestamps, as the sample has them).
func TestTcpdumpRewrites(t *testing.T) {
	tcpdump := needs.Program(t, "tcpdump", "libpcap's writer is compared here (apt-get install tcpdump)")
	dir := t.TempDir()
	data, _ := capturetest.Sample("lost.pcap")
	in, out := filepath.Join(dir, "in.pcap"), filepath.Join(dir, "out.pcap")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(tcpdump, "--time-stamp-precision=nano", "-r", in, "-w", out, "tcp").CombinedOutput(); err != nil {
		t.Fatalf("tcpdump: %v\n%s", err, b)
	}
	rewritten, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := collect(t, data, capture.Options{})
	got, _, err := collect(t, rewritten, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-ours +tcpdump's):\n%s", diff)
	}
}

// Wireshark's own reassembly (tshark -z follow,tcp,raw) gives the same
// bytes, direction by direction, as the frames read here, on a stream with
// a frame split across segments, segments out of order and sent twice.
func TestTsharkFollowSameBytes(t *testing.T) {
	tshark := needs.Program(t, "tshark", "Wireshark's reassembly is compared here (apt-get install tshark)")
	data, _ := capturetest.Sample("session.pcapng")
	sameAsTshark(t, tshark, data)
}
