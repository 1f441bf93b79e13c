package capture

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// tangles are the captures the ways of reading are compared on: every
// hazard of a real capture (capturetest.Tangle), over Ethernet in pcapng
// and over Linux cooked (SLL) in a nanosecond pcap, each of some thousand
// packets (several batches read ahead).
func tangles() map[string][]byte {
	return map[string][]byte{
		"ethernet.pcapng": capturetest.Tangle(layers.LinkTypeEthernet, capturetest.PcapNG, 40, 12),
		"sll.pcap":        capturetest.Tangle(layers.LinkTypeLinuxSLL, capturetest.PcapNanos, 25, 16),
	}
}

// dump reads a capture and writes down everything Read gives: each
// record whole, the error and the Stats. stopAt > 0 stops the reading at
// that record.
func dump(t *testing.T, data []byte, opts Options, serial bool, stopAt int) string {
	t.Helper()
	defer func(m int) { readMode = m }(readMode)
	readMode = ahead
	if serial {
		readMode = inOne
	}
	var b strings.Builder
	n := 0
	stop := errors.New("stop")
	// A small buffer, so that Record.Idle is set now and then.
	stats, err := Read(bufio.NewReaderSize(bytes.NewReader(data), 16), opts, func(r *Record) error {
		n++
		fmt.Fprintf(&b, "%d %s %s %s %v", r.Kind, r.Conn, r.Dir, TimeString(r.Time), r.Idle)
		if r.Frame != nil {
			fmt.Fprintf(&b, " frame %d@%d %+v %x", r.Frame.Index, r.Frame.Offset, r.Frame.Header, r.Frame.Raw)
		}
		fmt.Fprintf(&b, " json %s text %q unchecked %v %v", r.JSON, r.Text, r.unchecked, r.spec)
		if r.Err != nil {
			fmt.Fprintf(&b, " err %v", r.Err)
		}
		if r.Moved != nil {
			fmt.Fprintf(&b, " moved %+v", *r.Moved)
		}
		b.WriteByte('\n')
		if n == stopAt {
			return stop
		}
		return nil
	})
	if stopAt > 0 {
		// Stopped early, the reading ahead has read further: only the
		// records and the error are the same.
		fmt.Fprintf(&b, "error %v\n", err)
		return b.String()
	}
	fmt.Fprintf(&b, "error %v\nstats %+v\n", err, stats)
	return b.String()
}

// Reading ahead (the packets read and decoded on a goroutine of their
// own) gives the records, errors and Stats of reading in one goroutine,
// whatever the options, on captures with every hazard.
func TestReadAheadSameAsSerial(t *testing.T) {
	conn := ConnID{netip.MustParseAddrPort("[fd00::2]:40001"), netip.MustParseAddrPort("[fd00::9]:7000")}
	for name, data := range tangles() {
		for _, oc := range []struct {
			name string
			opts Options
		}{
			{"defaults", Options{}},
			{"ports", Options{Ports: []int{40003, 40004, 40005}}},
			{"conn", Options{Conn: conn}},
			{"no such conn", Options{Conn: ConnID{netip.MustParseAddrPort("10.1.1.1:1"), netip.MustParseAddrPort("10.1.1.2:2")}}},
			{"few conns", Options{MaxConns: 7}},
			{"small reassembly buffer", Options{ReassemblyBuffer: 1}},
			{"small frames", Options{MaxFrameSize: 40}},
		} {
			t.Run(name+"/"+oc.name, func(t *testing.T) {
				want := dump(t, data, oc.opts, true, 0)
				got := dump(t, data, oc.opts, false, 0)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("read ahead (-serial +ahead):\n%s", diff)
				}
				if strings.Count(want, "\n") < 100 && oc.name == "defaults" {
					t.Errorf("only %d records", strings.Count(want, "\n"))
				}
			})
		}
		// Cut short: the records before the damage, then the same
		// FormatError, the same packet number.
		for _, cut := range []int{len(data) / 3, len(data) - 7} {
			t.Run(fmt.Sprintf("%s/cut at %d", name, cut), func(t *testing.T) {
				want := dump(t, data[:cut], Options{}, true, 0)
				got := dump(t, data[:cut], Options{}, false, 0)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("read ahead (-serial +ahead):\n%s", diff)
				}
				if !strings.Contains(want, "error packet ") {
					t.Errorf("no FormatError:\n%s", want[max(0, len(want)-300):])
				}
			})
		}
		// Stopped by the callback, at the first record and further on.
		for _, at := range []int{1, 150} {
			t.Run(fmt.Sprintf("%s/stop at %d", name, at), func(t *testing.T) {
				want := dump(t, data, Options{}, true, at)
				got := dump(t, data, Options{}, false, at)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("read ahead (-serial +ahead):\n%s", diff)
				}
			})
		}
	}
}

// decode's records of the tangles (Stream, as `toonkit decode --keep-going
// FILE` writes them) are byte for byte those of the reading before it read
// ahead: the hashes are of that command's output at commit c561d88. With
// one worker and two (the payloads checked on the workers, a read again
// with one worker after a frame checked there is not JSON), reading ahead
// and not.
func TestTangleDecodeUnchanged(t *testing.T) {
	defer func(m int) { readMode = m }(readMode)
	want := map[string]string{"ethernet.pcapng": "7d536ac5b36611c7", "sll.pcap": "f85cf4fa96911e2c"}
	for name, data := range tangles() {
		for _, mode := range []int{inOne, ahead} {
			readMode = mode
			for _, workers := range []int{1, 2} {
				var out bytes.Buffer
				opts := StreamOptions{Workers: workers, Append: func(dst []byte, r *Record) []byte {
					return append(AppendRecord(dst, r), '\n')
				}}
				opts.Reopen = func() (io.Reader, error) { return bufio.NewReaderSize(bytes.NewReader(data), 64<<10), nil }
				err := Stream(context.Background(), bufio.NewReaderSize(bytes.NewReader(data), 64<<10), opts, StreamHandler{
					Records: func(b []byte, ends []int, frames int) error { out.Write(b); return nil },
					Other:   func(r *Record) error { return nil },
				})
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprintf("%x", sha256.Sum256(out.Bytes()))[:16]; got != want[name] {
					t.Errorf("%s mode %d -j %d: sha256 %s, want %s", name, mode, workers, got, want[name])
				}
			}
		}
	}
}

// Whatever the capture, reading ahead gives what reading in one goroutine
// gives: the records, the error and the Stats.
func FuzzReadAhead(f *testing.F) {
	f.Add(capturetest.Tangle(layers.LinkTypeEthernet, capturetest.PcapNG, 5, 3))
	f.Add(capturetest.Tangle(layers.LinkTypeLinuxSLL2, capturetest.PcapBig, 4, 3))
	f.Add(capturetest.Tangle(layers.LinkTypeRaw, capturetest.Pcap, 4, 3))
	for _, name := range capturetest.SampleNames() {
		data, _ := capturetest.Sample(name)
		f.Add(data)
	}
	for _, s := range capturetest.HugeRecords() {
		f.Add(s)
	}
	frag := &capturetest.Builder{Fragment: 24, FragmentsBackwards: true}
	c := frag.Conn("[fd00::1]:51234", "[fd00::2]:7000")
	c.Handshake()
	c.Send(capturetest.C2S, 0, capturetest.Frame(1, 1, `{"fragmented":"into pieces of 24 bytes"}`))
	f.Add(frag.Bytes())
	opts := Options{MaxFrameSize: 1 << 16, MaxConns: 8, ReassemblyBuffer: 1 << 14}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := dump(t, data, opts, true, 0)
		if got := dump(t, data, opts, false, 0); got != want {
			t.Errorf("read ahead (-serial +ahead):\n%s", cmp.Diff(want, got))
		}
	})
}

// Record.Idle marks the records after which the input has nothing more
// buffered: read from a bufio.Reader of 64 KiB, a pcapng of small frames
// has about one such place per 64 KiB, and the last record has it. (Behind
// a second buffer of pcapgo's own, Buffered would say "nothing" for every
// packet that buffer still held: a batch cut and a flush for each.)
func TestIdleWhereTheInputIsDrained(t *testing.T) {
	data := capturetest.SmallFrames(2 << 20)
	for _, mode := range []int{inOne, ahead} {
		defer func(m int) { readMode = m }(readMode)
		readMode = mode
		n, idle, last := 0, 0, false
		_, err := Read(bufio.NewReaderSize(bytes.NewReader(data), 64<<10), Options{}, func(r *Record) error {
			n++
			if r.Idle {
				idle++
			}
			last = r.Idle
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if most := len(data)/(64<<10) + 2; idle > most || !last || n < 5000 {
			t.Errorf("mode %d: %d of %d records idle (at most %d), the last idle: %v", mode, idle, n, most, last)
		}
	}
}

// A pcapng on a pipe (tcpdump -w - | ...), read through a bufio.Reader:
// each frame is given, marked Idle, as soon as the packet that completes
// it has been written, while the pipe stays open (in one goroutine and
// reading ahead).
func TestPcapngOnAPipeAsItComes(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn("10.0.0.1:40000", "10.0.0.2:7000")
	c.Handshake()
	off := 0
	for i := 1; i <= 3; i++ {
		f := capturetest.Frame(1, i, fmt.Sprintf(`{"step":%d}`, i))
		c.Send(capturetest.C2S, off, f)
		off += len(f)
	}
	data := b.Bytes()
	var blocks [][]byte // section header, interface, then a block a packet
	for at := 0; at < len(data); {
		n := int(data[at+4]) | int(data[at+5])<<8 | int(data[at+6])<<16 | int(data[at+7])<<24
		blocks = append(blocks, data[at:at+n])
		at += n
	}
	if len(blocks) != 2+3+3 {
		t.Fatalf("%d blocks", len(blocks))
	}
	defer func(m int) { readMode = m }(readMode)
	for _, mode := range []int{inOne, ahead} {
		readMode = mode
		pr, pw := io.Pipe()
		got := make(chan string, 8)
		done := make(chan error, 1)
		go func() {
			_, err := Read(bufio.NewReaderSize(pr, 64<<10), Options{}, func(r *Record) error {
				if r.Kind == Frame {
					got <- fmt.Sprintf("%d %v", r.Frame.Header.SequenceID, r.Idle)
				}
				return nil
			})
			done <- err
		}()
		for i, blk := range blocks {
			if _, err := pw.Write(blk); err != nil {
				t.Fatal(err)
			}
			if i < 5 {
				continue // the headers and the handshake
			}
			select {
			case s := <-got:
				if want := fmt.Sprintf("%d true", i-4); s != want {
					t.Errorf("mode %d: record %q, want %q", mode, s, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("mode %d: frame %d not given while the pipe stays open", mode, i-4)
			}
		}
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TimeCache appends what AppendTime appends, whatever the times before.
func TestTimeCacheIsAppendTime(t *testing.T) {
	var c TimeCache
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	times := []time.Time{
		base, base.Add(1), base.Add(999999999), base.Add(time.Second), base.Add(time.Second + 7),
		base.Add(-1), base, base.In(time.FixedZone("x", 3600)).Add(5), base.Add(24 * time.Hour),
		time.Date(10000, 1, 1, 0, 0, 0, 5, time.UTC), base.Add(3), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), base,
	}
	for i, tm := range times {
		want := string(AppendTime([]byte("x"), tm))
		if got := string(c.Append([]byte("x"), tm)); got != want {
			t.Errorf("time %d: %q, want %q", i, got, want)
		}
	}
}
