package kado

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

func seedFrames(f *testing.F) {
	var stream []byte
	for i, p := range []string{`{"instruction":"x"}`, `{}`, `{"success":true,"data":"` + string(bytes.Repeat([]byte{'a'}, 1500)) + `","duration":1}`} {
		stream, _, _ = AppendFrame(stream, Header{Version: 1, Type: MessageType(i%8 + 1), SequenceID: uint32(i)}, []byte(p), CompressAuto)
	}
	f.Add(stream)
	f.Add(stream[:30])
	f.Add([]byte{1, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add(append([]byte{1, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0x5A, 0xFF, 0x7B))
	f.Add([]byte(`{"instruction":"x"}`))
}

// FuzzReader: no input makes the frame reader panic, loop, or hand out a
// frame that disagrees with its header; payloads given as JSON are valid.
func FuzzReader(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 16
		r := NewReader(bytes.NewReader(in), ReaderOptions{MaxFrameSize: limit})
		var consumed int64
		for steps := 0; steps <= len(in)+1; steps++ {
			fr, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var fe *FrameError
				if !errors.As(err, &fe) {
					t.Fatalf("non-frame error from a byte slice: %v", err)
				}
				skipped, _ := r.Resync()
				if skipped <= 0 {
					t.Fatalf("Resync made no progress")
				}
				consumed += skipped
				continue
			}
			if fr.Offset != consumed || fr.Size() != HeaderSize+int(fr.Header.PayloadLength) {
				t.Fatalf("frame at %d (want %d) size %d header %+v", fr.Offset, consumed, fr.Size(), fr.Header)
			}
			consumed += int64(fr.Size())
			if js, err := r.JSON(fr); err == nil {
				if len(js) > limit || !jsonv.Valid(js) {
					t.Fatalf("bad JSON handed out: %q", js)
				}
			}
		}
		t.Fatalf("reader did not finish in %d steps", len(in)+1)
	})
}

// FuzzDecompress: any body decompresses without panicking, within the limit.
func FuzzDecompress(f *testing.F) {
	f.Add([]byte{0xFF, 'A', 0xFF, 0xFF, 'A', 4})
	f.Add([]byte{0xFF})
	f.Add([]byte{'a', 0xFF, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		const limit = 4096
		out, err := AppendUnRLE(nil, body, limit)
		if err == nil && len(out) > limit {
			t.Fatalf("output of %d bytes passes the limit", len(out))
		}
		if err == nil && len(out) != UnRLELen(body) {
			t.Fatalf("UnRLELen = %d, output %d bytes", UnRLELen(body), len(out))
		}
		if err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		RLEOddities(body)
	})
}

// FuzzCompressRoundTrip: decompress∘compress is the identity, in every mode,
// and compression never emits an oddity the decoder would flag.
func FuzzCompressRoundTrip(f *testing.F) {
	f.Add([]byte("AAAA"), uint8(0))
	f.Add(bytes.Repeat([]byte{0xFF}, 300), uint8(1))
	f.Add(bytes.Repeat([]byte{'x'}, 2000), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		body := AppendRLE(nil, in)
		if odd := RLEOddities(body); len(odd) > 0 {
			t.Fatalf("encoder wrote oddities %v", odd)
		}
		back, err := AppendUnRLE(nil, body, 0)
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("round trip failed: %v", err)
		}
		wire, compressed := AppendPayload(nil, in, CompressMode(mode%3))
		if compressed != IsCompressed(wire) && len(in) > 0 && in[0] == CompressionMagic {
			return // an uncompressed payload that starts with the magic is ambiguous; JSON never does
		}
		back, err = AppendDecompressed(nil, wire, 0)
		if err != nil || !bytes.Equal(back, in) {
			t.Fatalf("payload round trip failed in mode %d: %v", mode%3, err)
		}
	})
}

// FuzzFrameRoundTrip: decode∘encode is the identity on header and payload.
func FuzzFrameRoundTrip(f *testing.F) {
	f.Add(uint8(1), uint64(1735689600123), uint32(1), []byte(`{"instruction":"x"}`), uint8(0))
	f.Add(uint8(3), uint64(1<<63), uint32(1<<31), []byte(`{"success":true,"data":"`+string(bytes.Repeat([]byte{' '}, 2000))+`"}`), uint8(0))
	f.Fuzz(func(t *testing.T, typ uint8, ts uint64, seq uint32, payload []byte, mode uint8) {
		compact, err := jsonv.AppendCompact(nil, payload)
		if err != nil {
			return
		}
		h := Header{Version: 1, Type: MessageType(typ%8 + 1), Timestamp: ts, SequenceID: seq}
		frame, written, err := AppendFrame(nil, h, compact, CompressMode(mode%3))
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader(bytes.NewReader(frame), ReaderOptions{})
		fr, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if fr.Header != written || written.Type != h.Type || written.Timestamp != ts || written.SequenceID != seq {
			t.Fatalf("header %+v, wrote %+v", fr.Header, written)
		}
		js, err := r.JSON(fr)
		if err != nil || !bytes.Equal(js, compact) {
			t.Fatalf("payload %q, want %q (%v)", js, compact, err)
		}
	})
}

// FuzzParseRecord: the structural split of a record finds what the decoder
// finds, and a record reads the same (header fields, payload compacted,
// error or not) compact and indented with CRLF line ends, as json.dumps
// writes it.
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"header":{"version":1,"type":4,"typeName":"STATUS","timestamp":5,"sequenceId":2,"compressed":true},"payload":{"status":"a","progress":1}}`))
	f.Add([]byte("{\"header\": {\"type\": 9}, \"payload\": [1, 2]}"))
	f.Add([]byte("{\r\n  \"payload\": \"x\",\r\n  \"header\": {}\r\n}"))
	f.Add([]byte(`{"header":{},"payload":1,"x":2}`))
	f.Add([]byte(`{"he\u0061der":{},"payload":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := jsonv.AppendCompact(nil, in)
		if err != nil {
			return
		}
		if h, ha, p, pa, ok := splitRecord(c); ok {
			sh, sha, sp, spa := splitRecordSlow(c)
			if !bytes.Equal(h, sh) || !bytes.Equal(p, sp) || (h != nil && ha != sha) || (p != nil && pa != spa) {
				t.Fatalf("%s: split %q %q, the decoder %q %q", c, h, p, sh, sp)
			}
		}
		read := func(v []byte) string {
			rec, err := ParseRecord(v)
			if err != nil {
				return "error"
			}
			s := fmt.Sprintf("%v %s", rec.IsRecord, jsonv.CompactInPlace(bytes.Clone(rec.Payload)))
			for _, p := range []any{rec.Version, rec.Type, rec.Timestamp, rec.SequenceID} {
				s += fmt.Sprintf(" %v", reflect.ValueOf(p).Elem())
			}
			return s
		}
		pretty := bytes.ReplaceAll(jsonv.AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n"))
		if a, b := read(c), read(pretty); a != b {
			t.Fatalf("compact %s reads as %s, indented as %s", c, a, b)
		}
	})
}

// FuzzEach: Each with keepGoing ends on any input, hands out valid JSON and
// frames in order, and moves on past every bad frame; a move that skipped
// bytes has one or two notes.
func FuzzEach(f *testing.F) {
	seedFrames(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 16
		r := NewReader(bytes.NewReader(in), ReaderOptions{MaxFrameSize: limit})
		calls, next := 0, 0
		errTooMany := errors.New("too many calls")
		err := r.Each(true, FrameHandler{
			Good: func(fr *Frame, js []byte) error {
				if fr.Index != next || len(js) > limit || !jsonv.Valid(js) {
					t.Fatalf("frame %d (want %d): %q", fr.Index, next, js)
				}
				next++
				if calls++; calls > len(in)+1 {
					return errTooMany
				}
				return nil
			},
			Bad: func(err error) error {
				if !IsFrameError(err) {
					t.Fatalf("Bad got %v", err)
				}
				next++
				if calls++; calls > len(in)+1 {
					return errTooMany
				}
				return nil
			},
			Moved: func(err error, m Moved) {
				if n := len(m.Notes(err)); n < 1 && m.Skipped > 0 || n > 2 {
					t.Fatalf("%d notes for %+v after %v", n, m, err)
				}
			},
		})
		if err != nil {
			t.Fatalf("Each: %v", err)
		}
	})
}
