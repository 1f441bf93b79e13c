package jsonv_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/gentable"
)

// Benchmarks of the JSON hot paths of encode and decode. Inputs are built
// here, deterministically; scripts/bench.sh measures the whole commands.
//
//	go test -run '^$' -bench . -benchmem ./internal/codec/jsonv

// benchPayload returns a compact JSON payload of about n bytes: an array of
// records and a string with escapes and non-ASCII text.
func benchPayload(rng *rand.Rand, n int) []byte {
	b := []byte(`{"success":true,"data":[`)
	for i := 0; len(b) < n-200; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"%s","active":%t,"score":%d.%02d,"tags":["alpha","beta"],"note":"line one\nline \"two\"\tcafé 日本語"}`,
			731562+i*7, []string{"Alice Martin", "Bob Nakamura", "Chloé Dubois", "José García"}[rng.IntN(4)],
			rng.IntN(2) == 0, rng.IntN(100), rng.IntN(100))
	}
	return fmt.Appendf(b, `],"log":"%s","duration":%d}`, strings.Repeat(`    indented\n`, 8), rng.IntN(5000))
}

// benchNDJSON is about 4 MB of lines in the shape `toonkit decode` prints,
// with payloads of 1-64 KB.
var benchNDJSON = func() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []byte
	for i := 0; len(out) < 4<<20; i++ {
		n := 1024 << rng.IntN(7)
		p := benchPayload(rng, n/2+rng.IntN(n/2))
		out = fmt.Appendf(out, `{"header":{"version":1,"type":3,"typeName":"TOOL_RESULT","payloadLength":%d,"timestamp":%d,"sequenceId":%d,"compressed":false},"payload":`,
			len(p), 1735689600123+i, i+1)
		out = append(out, p...)
		out = append(out, "}\n"...)
	}
	return out
}()

func BenchmarkReaderNext(b *testing.B) {
	b.SetBytes(int64(len(benchNDJSON)))
	b.ReportAllocs()
	br := bytes.NewReader(benchNDJSON)
	for b.Loop() {
		br.Reset(benchNDJSON)
		r := jsonv.NewReader(br, jsonv.Options{})
		for {
			if _, _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAppendCompact compacts a 32 KB value that is already compact
// (encode's and decode's case) and one that is indented.
func BenchmarkAppendCompact(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	compact := benchPayload(rng, 32<<10)
	var indented bytes.Buffer
	if err := benchIndent(&indented, compact); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  []byte
	}{{"compact", compact}, {"indented", indented.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				var err error
				if dst, err = jsonv.AppendCompact(dst[:0], c.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchIndent writes src with two-space indentation, one member per line.
func benchIndent(w *bytes.Buffer, src []byte) error {
	depth, inString, escaped := 0, false, false
	newline := func() {
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", depth))
	}
	for _, c := range src {
		if inString {
			w.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			w.WriteByte(c)
		case '{', '[':
			depth++
			w.WriteByte(c)
			newline()
		case '}', ']':
			depth--
			newline()
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			newline()
		case ':':
			w.WriteString(": ")
		default:
			w.WriteByte(c)
		}
	}
	if depth != 0 || inString {
		return fmt.Errorf("unbalanced JSON")
	}
	return nil
}

// BenchmarkChecker checks and compacts 32 KB values, compact and indented,
// as binary.Reader.JSON does: Checker.Compacted against Check then
// Compacted (two passes).
func BenchmarkChecker(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	compact := benchPayload(rng, 32<<10)
	var indented bytes.Buffer
	if err := benchIndent(&indented, compact); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  []byte
	}{{"compact", compact}, {"indented", indented.Bytes()}} {
		b.Run(c.name+"/Checker", func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			var chk jsonv.Checker
			var dst []byte
			for b.Loop() {
				out, err := chk.Compacted(dst, c.src)
				if err != nil {
					b.Fatal(err)
				}
				if &out[0] != &c.src[0] {
					dst = out
				}
			}
		})
		b.Run(c.name+"/Check+Compacted", func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				if err := jsonv.Check(c.src); err != nil {
					b.Fatal(err)
				}
				if out := jsonv.Compacted(dst, c.src); &out[0] != &c.src[0] {
					dst = out
				}
			}
		})
	}
}

// BenchmarkReaderTable reads the bench's table input (gentable: a JSON
// array of flat objects of ten keys) element by element, as a worker of
// convert --to tabular -j N does: with Members, without counting lines.
func BenchmarkReaderTable(b *testing.B) {
	var buf bytes.Buffer
	if err := gentable.Write(&buf, 4e6, 1); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	for _, c := range []struct {
		name string
		opts jsonv.Options
	}{
		{"Members", jsonv.Options{Elements: true, Members: true, Offsets: true}},
		{"Lines", jsonv.Options{Elements: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			br := bytes.NewReader(in)
			r := jsonv.NewReader(br, c.opts)
			for b.Loop() {
				br.Reset(in)
				r.Reset(br, c.opts)
				for {
					if _, _, err := r.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkUnquote unquotes a JSON text held in a JSON string, as an MCP
// tool result carries it (json.dumps(indent=2) inside the message: an
// escape every few bytes), and checks a message that holds it:
// AppendString against jsontext.AppendUnquote, Checker.Valid against
// jsontext.Value.IsValid.
func BenchmarkUnquote(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var indented bytes.Buffer
	if err := benchIndent(&indented, benchPayload(rng, 64<<10)); err != nil {
		b.Fatal(err)
	}
	q, _ := jsontext.AppendQuote(nil, indented.Bytes())
	msg := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":`), q...), "}]}}"...)
	var dst []byte
	b.Run("AppendString", func(b *testing.B) {
		b.SetBytes(int64(len(q)))
		for b.Loop() {
			dst, _, _ = jsonv.AppendString(dst[:0], q)
		}
	})
	b.Run("jsontext.AppendUnquote", func(b *testing.B) {
		b.SetBytes(int64(len(q)))
		for b.Loop() {
			dst, _ = jsontext.AppendUnquote(dst[:0], q)
		}
	})
	var c jsonv.Checker
	b.Run("Checker.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !c.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("jsontext.IsValid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			jsontext.Value(msg).IsValid()
		}
	})
}
