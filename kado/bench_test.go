package kado_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/kado"
)

// Benchmarks of the hot paths of decode and encode. Inputs are built here,
// deterministically; scripts/bench.sh measures the whole commands.
//
//	go test -run '^$' -bench . -benchmem ./kado

// benchRecords returns a compact TOOL_RESULT payload of about n bytes: an array
// of records, with no long runs of one byte (RLE does not pay).
func benchRecords(rng *rand.Rand, n int) []byte {
	b := []byte(`{"success":true,"data":[`)
	for i := 0; len(b) < n-40; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"%s","email":"user%d@example.com","active":%t,"score":%d.%02d,"tags":["alpha","beta"],"city":"Zürich"}`,
			731562+i*7, []string{"Alice Martin", "Bob Nakamura", "Chloé Dubois", "José García"}[rng.IntN(4)],
			rng.IntN(1000), rng.IntN(2) == 0, rng.IntN(100), rng.IntN(100))
	}
	return fmt.Appendf(b, `],"duration":%d}`, rng.IntN(5000))
}

// benchSource returns a compact CONTEXT_RESPONSE payload of about n bytes: a
// source file indented with spaces, so that RLE pays.
func benchSource(rng *rand.Rand, n int) []byte {
	var s strings.Builder
	depth := 0
	for s.Len() < n-80 {
		s.WriteString(strings.Repeat("    ", depth))
		switch r := rng.IntN(6); {
		case r < 2 && depth < 5:
			s.WriteString("function handleRequest(req: Request) {")
			depth++
		case r < 3 && depth > 0:
			s.WriteString("}")
			depth--
		case r < 4:
			s.WriteString(`// "quoted" comment, café ` + strings.Repeat("-", 20))
		default:
			s.WriteString("userService.fetchUser(id, " + strconv.Itoa(rng.IntN(1000)) + ");")
		}
		s.WriteByte('\n')
	}
	b := []byte(`{"type":"file","path":"src/services/user.ts","content":`)
	b = strconv.AppendQuote(b, s.String())
	return append(b, '}')
}

type benchPayload struct {
	typ  kado.MessageType
	json []byte
}

// benchPayloadsOf returns count compact payloads of 1-64 KB, log-uniform, half of
// them with runs.
func benchPayloadsOf(count int) []benchPayload {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]benchPayload, count)
	for i := range out {
		n := 1024 << rng.IntN(7) // 1, 2, 4, ..., 64 KB
		n = n/2 + rng.IntN(n/2)
		if i%2 == 0 {
			out[i] = benchPayload{kado.ToolResult, benchRecords(rng, n)}
		} else {
			out[i] = benchPayload{kado.ContextResponse, benchSource(rng, n)}
		}
		// Canonical compact form, as toonkit writes it.
		c, err := jsonv.AppendCompact(nil, out[i].json)
		if err != nil {
			panic(err)
		}
		out[i].json = c
	}
	return out
}

// benchStreamOf returns a capture of frames of the payloads, with CompressAuto.
func benchStreamOf(ps []benchPayload) []byte {
	var b []byte
	for i, p := range ps {
		var err error
		b, _, err = kado.AppendFrame(b, kado.Header{Version: 1, Type: p.typ, Timestamp: 1735689600123 + uint64(i), SequenceID: uint32(i + 1)}, p.json, kado.CompressAuto)
		if err != nil {
			panic(err)
		}
	}
	return b
}

var (
	benchPayloads = benchPayloadsOf(256) // about 4 MB of JSON
	benchStream   = benchStreamOf(benchPayloads)
)

func BenchmarkReaderNext(b *testing.B) {
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	br := bytes.NewReader(benchStream)
	for b.Loop() {
		br.Reset(benchStream)
		rd := kado.NewReader(br, kado.ReaderOptions{})
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReaderJSON is Next then JSON (decompress and compact the payload)
// per frame; bytes are frame bytes.
func BenchmarkReaderJSON(b *testing.B) {
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	br := bytes.NewReader(benchStream)
	for b.Loop() {
		br.Reset(benchStream)
		rd := kado.NewReader(br, kado.ReaderOptions{})
		for {
			f, err := rd.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			if _, err := rd.JSON(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeLoop is the loop of `toonkit decode`: Next, JSON and
// AppendRecord per frame; bytes are frame bytes.
func BenchmarkDecodeLoop(b *testing.B) {
	b.SetBytes(int64(len(benchStream)))
	b.ReportAllocs()
	br := bytes.NewReader(benchStream)
	var line []byte
	for b.Loop() {
		br.Reset(benchStream)
		rd := kado.NewReader(br, kado.ReaderOptions{})
		for {
			f, err := rd.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			js, err := rd.JSON(f)
			if err != nil {
				b.Fatal(err)
			}
			line = kado.AppendRecord(line[:0], f.Header, f.Compressed(), js)
			line = append(line, '\n')
		}
	}
}

func benchRLEInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	return map[string][]byte{
		"runs":   benchSource(rng, 32<<10),
		"noruns": benchRecords(rng, 32<<10),
		"ff":     bytes.Repeat([]byte{'a', 0xFF, 'b', 'b', 'b', 'b', 'b', 'b'}, 4<<10),
	}
}

func BenchmarkAppendRLE(b *testing.B) {
	for _, name := range []string{"runs", "noruns", "ff"} {
		src := benchRLEInputs()[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				dst = kado.AppendRLE(dst[:0], src)
			}
		})
	}
}

// BenchmarkAppendUnRLE decompresses RLE bodies; bytes are decompressed bytes.
func BenchmarkAppendUnRLE(b *testing.B) {
	for _, name := range []string{"runs", "noruns", "ff"} {
		src := benchRLEInputs()[name]
		body := kado.AppendRLE(nil, src)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				var err error
				if dst, err = kado.AppendUnRLE(dst[:0], body, kado.DefaultMaxFrameSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendFrame writes frames with CompressAuto: "runs" compresses,
// "noruns" tries RLE and keeps the plain payload, "small" is under the
// threshold; bytes are payload bytes.
func BenchmarkAppendFrame(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name string
		p    []byte
	}{
		{"runs", benchSource(rng, 32<<10)},
		{"noruns", benchRecords(rng, 32<<10)},
		{"small", benchRecords(rng, 900)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.p)))
			b.ReportAllocs()
			h := kado.Header{Version: 1, Type: kado.ToolResult, Timestamp: 1735689600123, SequenceID: 7}
			var dst []byte
			for b.Loop() {
				var err error
				if dst, _, err = kado.AppendFrame(dst[:0], h, c.p, kado.CompressAuto); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendRecord(b *testing.B) {
	p := benchPayloads[0].json
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	h := kado.Header{Version: 1, Type: kado.ToolResult, PayloadLength: uint32(len(p)), Timestamp: 1735689600123, SequenceID: 7}
	var dst []byte
	for b.Loop() {
		dst = kado.AppendRecord(dst[:0], h, false, p)
	}
}

// benchNDJSON is what `toonkit decode` prints for benchStream.
var benchNDJSON = func() []byte {
	var out []byte
	rd := kado.NewReader(bytes.NewReader(benchStream), kado.ReaderOptions{})
	for {
		f, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			panic(err)
		}
		js, err := rd.JSON(f)
		if err != nil {
			panic(err)
		}
		out = kado.AppendRecord(out, f.Header, f.Compressed(), js)
		out = append(out, '\n')
	}
}()

// BenchmarkParseRecord parses decode's {"header":...,"payload":...} form, as
// encode does for every value; bytes are record bytes.
func BenchmarkParseRecord(b *testing.B) {
	line := benchNDJSON[:bytes.IndexByte(benchNDJSON, '\n')]
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		rec, err := kado.ParseRecord(line)
		if err != nil || !rec.IsRecord {
			b.Fatal(err)
		}
	}
}

func BenchmarkInferType(b *testing.B) {
	p := benchPayloads[0].json
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if t, err := kado.InferType(p); err != nil || t != kado.ToolResult {
			b.Fatal(t, err)
		}
	}
}

// BenchmarkEncodeLoop is the loop of `toonkit encode --to binary` over
// decode's NDJSON: jsonv.Reader.Next, ParseRecord, AppendCompact and
// Writer.WriteFrame per value; bytes are NDJSON bytes.
func BenchmarkEncodeLoop(b *testing.B) {
	b.SetBytes(int64(len(benchNDJSON)))
	b.ReportAllocs()
	br := bytes.NewReader(benchNDJSON)
	var payload []byte
	for b.Loop() {
		br.Reset(benchNDJSON)
		jr := jsonv.NewReader(br, jsonv.Options{})
		w := kado.NewWriter(io.Discard, kado.CompressAuto)
		for {
			v, _, err := jr.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			rec, err := kado.ParseRecord(v)
			if err != nil {
				b.Fatal(err)
			}
			h := kado.Header{Version: *rec.Version, Type: *rec.Type, Timestamp: *rec.Timestamp, SequenceID: *rec.SequenceID}
			if payload, err = jsonv.AppendCompact(payload[:0], rec.Payload); err != nil {
				b.Fatal(err)
			}
			if _, err := w.WriteFrame(h, payload); err != nil {
				b.Fatal(err)
			}
		}
	}
}
