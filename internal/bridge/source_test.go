package bridge

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/records"
)

func TestSourceProtocol(t *testing.T) {
	chiffon := `{"protocol_version":"1.0","from_agent":"a","type":"x"}` + "\n"
	narratoria := `{"version":"0","type":"log","level":"info","message":"m"}` + "\n"
	for _, c := range []struct {
		name, in string
		from     codec.Format
		records  bool
		want     Protocol
		err      string
	}{
		{"chiffon", chiffon, "", false, Chiffon, ""},
		{"narratoria", narratoria, "", false, Narratoria, ""},
		{"named", chiffon, codec.Trace, false, Trace, ""},
		{"empty", "\n", "", false, Chiffon, ""},
		{"unknown", `{"a":1}` + "\n", "", false, "", "in: cannot tell the protocol: "},
		{"unknown records", `{"a":1}` + "\n", "", true, "", ""},
		{"table", "@toon 1.0\n@keys a\n1\n", "", false, "", "in: the input is tabular, not messages of a protocol"},
		{"table records", "@toon 1.0\n@keys a\n1\n", "", true, "", ""},
	} {
		src, err := records.NewSource(strings.NewReader(c.in), "in", records.SourceOptions{Blank: codec.NDJSON})
		if err != nil {
			t.Fatal(c.name, err)
		}
		p, err := SourceProtocol(src, c.from, c.records)
		var se *SourceError
		switch {
		case c.err == "" && (err != nil || p != c.want):
			t.Errorf("%s: %q, %v; want %q", c.name, p, err, c.want)
		case c.err != "" && (!errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s: %v, want a SourceError %q...", c.name, err, c.err)
		}
	}
}

func TestProtocolOf(t *testing.T) {
	for f, want := range map[codec.Format]Protocol{codec.Binary: Kado, codec.Chiffon: Chiffon, codec.Trace: Trace, codec.Narratoria: Narratoria, codec.JSON: ""} {
		if p, ok := ProtocolOf(f); p != want || ok != (want != "") {
			t.Errorf("ProtocolOf(%s) = %q, %v", f, p, ok)
		}
	}
}

// Any input: no panic; a protocol, or a *SourceError, or none when its
// records may stand as they are.
func FuzzSourceProtocol(f *testing.F) {
	f.Add([]byte(`{"protocol_version":"1.0","from_agent":"a"}`+"\n"), false)
	f.Add([]byte(`[{"seq":1,"actor":"a","meta":{}}]`), false)
	f.Add([]byte("@toon 1.0\n@keys a\n1\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, recs bool) {
		src, err := records.NewSource(bytes.NewReader(in), "in", records.SourceOptions{MaxSize: 1 << 16})
		if err != nil {
			return
		}
		p, err := SourceProtocol(src, "", recs)
		var se *SourceError
		switch {
		case err != nil && (!errors.As(err, &se) || recs):
			t.Fatalf("records %v: %T %v", recs, err, err)
		case err == nil && p != "" && p != Kado && p != Chiffon && p != Trace && p != Narratoria:
			t.Fatalf("protocol %q", p)
		}
	})
}
