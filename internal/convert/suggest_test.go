package convert_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/convert"
)

// SuggestTo: JSON for what reads back as JSON (TOON, tables, frames), by
// the extension or, without a known one, the content; TOON otherwise.
func TestSuggestTo(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		want codec.Format
	}{
		{"p.toon", codec.JSON},
		{"cap.bin", codec.JSON},
		{"d.json", codec.TOON},
		{"e.ndjson", codec.TOON},
		{write("toontext", "a: 1\nb[2]: x,y\n"), codec.JSON},
		{write("table", "@toon 1.0\n@keys a\n1\n"), codec.JSON},
		{write("jsontext", `{"a":1}`), codec.TOON},
		{filepath.Join(dir, "missing"), codec.TOON},
		{"-", codec.TOON},
	} {
		if got := convert.SuggestTo(c.name); got != c.want {
			t.Errorf("SuggestTo(%s) = %s, want %s", c.name, got, c.want)
		}
	}
}
