package inspect

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/paint"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// ansi is the Style of the color goldens: the SGR codes of the colors cmd
// maps the roles to (with a plain reset), written out so that the files can
// be looked at with cat or less -R.
var ansi = map[paint.Role]string{
	paint.Title: "1", paint.Label: "1;4", paint.Dim: "2",
	paint.HeaderVersion: "1;35", paint.HeaderType: "1;36", paint.HeaderLength: "1;33", paint.HeaderTimestamp: "1;34", paint.HeaderSequence: "1;32",
	paint.ByteNull: "90", paint.BytePrintable: "36", paint.ByteWhitespace: "32", paint.ByteOther: "35", paint.ByteNonASCII: "33",
	paint.JSONKey: "34;1", paint.JSONString: "32", paint.JSONNumber: "", paint.JSONLiteral: "", paint.JSONNull: "90", paint.JSONPunct: "1",
	paint.OK: "32", paint.Broken: "1;31", paint.Caution: "33", paint.Invalid: "7;31",
}

func ansiStyle(r paint.Role, s string) string {
	code, ok := ansi[r]
	if !ok {
		panic("no color for role " + r.String())
	}
	if code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		input func(testing.TB) []byte
		opts  Options
	}{
		{"good", goodCapture, Options{}},
		{"good.color", goodCapture, Options{Style: ansiStyle}},
		{"good.ndjson", goodCapture, Options{Format: JSON}},
		{"damaged", damagedCapture, Options{}},
		{"damaged.color", damagedCapture, Options{Style: ansiStyle}},
		{"damaged.ndjson", damagedCapture, Options{Format: JSON}},
		{"edges", edgeCapture, Options{MaxFrameSize: 1024}},
		{"edges.ndjson", edgeCapture, Options{Format: JSON, MaxFrameSize: 1024}},
		{"window", goodCapture, Options{Skip: 78, Length: 160}},
		{"frame", damagedCapture, Options{OnlyFrame: true, Frame: 5}},
		{"mid-frame", goodCapture, Options{Skip: 96, Length: 117}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := Render(&out, bytes.NewReader(tt.input(t)), "capture.bin", tt.opts); err != nil {
				t.Fatal(err)
			}
			if tt.opts.Style == nil && bytes.Contains(out.Bytes(), []byte("\x1b")) {
				t.Errorf("plain output holds an escape code")
			}
			path := filepath.Join("testdata", "golden", tt.name+".txt")
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/inspect/ -run Golden -update)", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("output differs from %s (-want +got):\n%s", path, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists the lines that differ, with their numbers.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			sb.WriteString("-" + itoa(i+1) + ": " + strings.ToValidUTF8(a, "?") + "\n+" + itoa(i+1) + ": " + b + "\n")
		}
	}
	return sb.String()
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
