package capture_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// seedCaptures are small captures of every kind, for the fuzzers' corpus.
func seedCaptures() [][]byte {
	var out [][]byte
	for i, file := range []capturetest.File{capturetest.Pcap, capturetest.PcapNanos, capturetest.PcapBig, capturetest.PcapNG} {
		link := []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeRaw}[i]
		b := &capturetest.Builder{File: file, Link: link}
		c := b.Conn(client, server)
		c.Handshake()
		stream := frames("c2s", 1, 3)
		c.Send(capturetest.C2S, 30, stream[30:])
		c.Send(capturetest.C2S, 0, stream[:35])
		c.Send(capturetest.S2C, 0, []byte(wsResponse))
		c.Fin(capturetest.C2S, len(stream))
		out = append(out, b.Bytes())
	}
	// A WebSocket direction with a hole.
	{
		mask := []byte{1, 2, 3, 4}
		ws := []byte(wsRequest)
		for i := 1; i < 4; i++ {
			ws = append(ws, capturetest.WSFrame(true, 2, frame("c2s", i), mask)...)
		}
		b := &capturetest.Builder{}
		c := b.Conn(client, server)
		c.Handshake()
		c.Send(capturetest.C2S, 0, ws[:len(wsRequest)+20])
		c.Send(capturetest.C2S, len(wsRequest)+40, ws[len(wsRequest)+40:])
		out = append(out, b.Bytes())
	}
	// IP fragments, IPv4 and IPv6, one of them out of order.
	for _, v6 := range []bool{false, true} {
		b := &capturetest.Builder{Fragment: 24, FragmentsBackwards: v6}
		c := b.Conn(client, server)
		if v6 {
			c = b.Conn("[fd00::1]:51234", "[fd00::2]:7000")
		}
		c.Handshake()
		c.Send(capturetest.C2S, 0, frames("c2s", 1, 3))
		out = append(out, b.Bytes())
	}
	out = append(out, capturetest.HugeRecords()...)
	return out
}

// No capture makes Read panic, hang or hold more than its bounds; a
// record is always stamped with a connection, but for those about the
// capture as a whole (a record over the size limit, the packets not read).
func FuzzRead(f *testing.F) {
	for _, s := range seedCaptures() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = capture.Read(bytes.NewReader(data), capture.Options{MaxFrameSize: 1 << 16, MaxConns: 8, ReassemblyBuffer: 1 << 14}, func(r *capture.Record) error {
			var se *capture.SkipError
			var re *capture.RecordSizeError
			whole := r.Kind != capture.Frame && r.Kind != capture.Text && (errors.As(r.Err, &se) || errors.As(r.Err, &re))
			if r.Conn == "" && !whole || r.Conn != "" && whole || r.Kind == capture.Frame && (r.Frame == nil || r.JSON == nil) {
				t.Fatalf("record %+v", r)
			}
			return nil
		})
	})
}
