package inspect

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/kado"
)

// The one-line view of the damaged demo capture: a line per frame, a
// marked line per bad frame and per skip, long payloads cut with "...",
// no summary.
func TestOneLine(t *testing.T) {
	data, err := os.ReadFile("../../testdata/demo/damaged.bin")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s, err := Render(&out, bytes.NewReader(data), "damaged.bin", Options{Format: OneLine})
	if err != nil {
		t.Fatal(err)
	}
	want := `==> damaged.bin <==
     0          0  INSTRUCTION      seq 1           60 B      {"instruction":"Write unit tests for the UserService class"}
     1         78  CONTEXT_REQUEST  seq 2           45 B      {"type":"file","path":"src/services/user.ts"}
     2        141  CONTEXT_RESPONSE seq 3         1256 B rle  {"type":"file","path":"src/services/user.ts","content":"export c...
     3       1415  ! version: expected 1, found 2 (0x02)
     -       1415  ~ skipped 56 bytes to the next plausible header at byte 1471
     4       1471  TOOL_CALL        seq 5           68 B      {"toolName":"file_read","args":{"path":"src/services/user.test.t...
     5       1557  ! version: expected 1, found 71 (0x47 'G')
     -       1557  ~ skipped 7 bytes to the next plausible header at byte 1564
     6       1564  TOOL_RESULT      seq 6           42 B      {"success":false,"data":null,"duration":3}
     7       1624  ERROR            seq 7           76 B      {"code":"TOOL_FAILED","message":"File not found: src/services/us...
     8       1718  HEARTBEAT        seq 8            2 B      {}
     9       1738  TOOL_CALL        seq 9         1390 B rle  {"toolName":"file_write","args":{"path":"src/services/user.test....
    10       3146  TOOL_RESULT      seq 10          94 B      {"success":true,"data":{"bytesWritten":2048,"path":"src/services...
    11       3258  ! payloadLength: expected 32 payload bytes, found only 22 bytes remain
     -       3258  ~ skipped 40 bytes: no further frame found
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	if s.Valid != 9 || s.Invalid != 3 {
		t.Errorf("summary %+v", s)
	}
}

// A payload is cut at a character boundary.
func TestPreview(t *testing.T) {
	js := []byte(`"` + string(bytes.Repeat([]byte("é"), 40)) + `"`)
	p := preview(js)
	if len(p) != 63+len("...") || p[len(p)-3:] != "..." {
		t.Errorf("preview %q", p)
	}
	if preview([]byte(`{}`)) != `{}` {
		t.Error("a short payload is cut")
	}
}

// appendFrameLine, which writes a good frame's line without fmt, pads and
// cuts its fields as the fmt verbs of renderOneLine's other lines do, for
// numbers of every width (past the columns too), every type and a
// payload cut inside a multi-byte character.
func TestFrameLineIsFmt(t *testing.T) {
	var times capture.TimeCache
	src := &source{conn: "10.0.0.1:4000>10.0.0.2:7000", dir: capture.S2C, time: time.Unix(1767323045, 123456789)}
	payloads := [][]byte{[]byte(`{}`), []byte(`{"text":"` + strings.Repeat("é", 40) + `"}`)}
	for i, n := range []uint64{0, 7, 42, 999, 99999, 999999, 1000000, 123456789, 9999999999, 12345678901, 1<<32 - 1} {
		for _, typ := range append(kado.MessageTypes(), 0, 200) {
			h := kado.Header{Type: typ, SequenceID: uint32(n), PayloadLength: uint32(n >> (i % 3))}
			for _, js := range payloads {
				src := []*source{src, nil}[i%2]
				compressed := i%3 == 0
				got := string(appendFrameLine(nil, int(n), int64(n)*3, src, h, compressed, js, &times))
				want := fmt.Sprintf("%6d %10d  ", n, int64(n)*3)
				if src != nil {
					want += capture.TimeString(src.time) + " " + src.where() + "  "
				}
				want += fmt.Sprintf("%-16s", h.Type.String()) + fmt.Sprintf(" seq %-6s %9s ", strconv.FormatUint(uint64(h.SequenceID), 10), strconv.FormatUint(uint64(h.PayloadLength), 10)+" B")
				if compressed {
					want += "rle  "
				} else {
					want += "     "
				}
				want += preview(js)
				if got != want {
					t.Errorf("got  %q\nwant %q", got, want)
				}
			}
		}
	}
}
