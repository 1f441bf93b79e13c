package inspect

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzRender renders any bytes, with any limits, in every format: it must
// not panic, must account for every byte it read, and the plain view must
// hold no escape code whatever the payloads hold.
func FuzzRender(f *testing.F) {
	f.Add(goodCapture(f), uint16(0), uint16(0), uint16(0), false)
	f.Add(damagedCapture(f), uint16(0), uint16(0), uint16(0), true)
	f.Add(edgeCapture(f), uint16(1024), uint16(0), uint16(0), false)
	f.Add(goodCapture(f), uint16(0), uint16(78), uint16(160), false)
	f.Add([]byte{1, 1, 0, 0, 0, 0}, uint16(0), uint16(0), uint16(0), false)
	f.Add([]byte("\x01\x01\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00Z\xff{\x00\xff"), uint16(0), uint16(0), uint16(0), false)
	f.Fuzz(func(t *testing.T, data []byte, maxSize, skip, length uint16, asJSON bool) {
		opts := Options{MaxFrameSize: int(maxSize), Skip: int64(skip), Length: int64(length)}
		if asJSON {
			opts.Format = JSON
		}
		var out bytes.Buffer
		s, err := Render(&out, bytes.NewReader(data), "fuzz", opts)
		if err != nil {
			t.Fatal(err)
		}
		want := max(int64(len(data))-int64(skip), 0)
		if length > 0 {
			want = min(want, int64(length))
		}
		if s.Bytes != want {
			t.Errorf("summary counts %d bytes, the input has %d", s.Bytes, want)
		}
		if s.Frames != s.Valid+s.Invalid+s.Cut {
			t.Errorf("frames %d != valid %d + invalid %d + cut %d", s.Frames, s.Valid, s.Invalid, s.Cut)
		}
		if bytes.IndexByte(out.Bytes(), 0x1b) >= 0 {
			t.Errorf("output holds an escape code")
		}
		if !utf8.Valid(out.Bytes()) {
			t.Errorf("output is not UTF-8")
		}
		if asJSON {
			for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
				if !validJSON(line) {
					t.Errorf("not a JSON line: %s", line)
				}
			}
		}
	})
}

func validJSON(b []byte) bool { return jsontext.Value(b).IsValid() }
