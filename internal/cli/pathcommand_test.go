package cli_test

import (
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
)

// A file's path where a command was expected gets the command that reads
// it, quoted for the shell; a word that is no path gets nothing.
func TestPathCommand(t *testing.T) {
	for _, c := range []struct {
		name   string
		exists bool
		want   string
	}{
		{"data.json", false, "to encode a file, run: toonkit encode data.json"},
		{"my data.json", true, "to encode a file, run: toonkit encode 'my data.json'"},
		{"it's.ndjson", false, `to encode a file, run: toonkit encode 'it'\''s.ndjson'`},
		{"out/p.TOON", false, "to decode a file, run: toonkit decode out/p.TOON"},
		{"cap.bin", false, "to decode a file, run: toonkit decode cap.bin"},
		{"s.pcapng", false, "to decode a file, run: toonkit decode s.pcapng"},
		{"README", true, "to encode a file, run: toonkit encode README"},
		{"README", false, ""},
		{"decod", false, ""},
		{"-x.json", false, ""},
		{"", true, ""},
	} {
		if got := cli.PathCommand(c.name, c.exists); got != c.want {
			t.Errorf("PathCommand(%q, %v) = %q, want %q", c.name, c.exists, got, c.want)
		}
	}
}
