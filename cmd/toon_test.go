package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/toon"
)

// bigUsers writes n users as JSON.stringify(v, null, 2) does: a table, or
// with a tags array each, a list.
func bigUsers(n int, tags bool) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  {\n    \"id\": %d,\n    \"name\": \"User %d\",\n    \"email\": \"user%d@example.com\",\n    \"score\": %d.5", i, i, i, i%100)
		if tags {
			b.WriteString(",\n    \"tags\": [\n      \"a\",\n      \"b\"\n    ]")
		}
		b.WriteString("\n  }")
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

// TestEncodeTOONMapped checks encode --to toon on files large enough to be
// mapped into memory (a table, a list, and broken ones) against the same
// bytes from standard input, which are read: the same output, or the same
// error, and nothing written on error.
func TestEncodeTOONMapped(t *testing.T) {
	dir := t.TempDir()
	table, list := bigUsers(20000, false), bigUsers(12000, true)
	if len(table) < records.MapThreshold || len(list) < records.MapThreshold {
		t.Fatalf("documents of %d and %d bytes: too small to be mapped", len(table), len(list))
	}
	cut := bytes.Clone(table[:len(table)-3])
	dup := bytes.Replace(table, []byte(`"name": "User 19999"`), []byte(`"id": "User 19999"`), 1)
	bad := bytes.Replace(list, []byte(`"id": 11999,`), []byte(`"id": 11999.,`), 1)
	if bytes.Equal(dup, table) || bytes.Equal(bad, list) {
		t.Fatal("the broken documents are not broken")
	}
	// And documents encoded in bounded memory (records.StreamFrom bytes or
	// more), from a file mapped lazily or from standard input written to
	// a temporary file.
	bigTable, bigList := bigUsers(180000, false), bigUsers(120000, true)
	if len(bigTable) < records.StreamFrom || len(bigList) < records.StreamFrom {
		t.Fatalf("documents of %d and %d bytes: too small to be streamed", len(bigTable), len(bigList))
	}
	bigBad := bytes.Replace(bigList, []byte(`"id": 119999,`), []byte(`"id": 119999.,`), 1)
	bigDup := bytes.Replace(bigTable, []byte(`"name": "User 17"`), []byte(`"id": "User 17"`), 1)
	t.Setenv("TMPDIR", t.TempDir())
	cases := []struct {
		name string
		doc  []byte
		ok   bool
	}{{"table", table, true}, {"list", list, true}, {"cut", cut, false}, {"dup", dup, false}, {"bad", bad, false},
		{"big table", bigTable, true}, {"big list", bigList, true}, {"big cut", bigList[:len(bigList)-5], false},
		{"big bad", bigBad, false}, {"big dup", bigDup, false}}
	if testing.Short() {
		// make test: internal/records's stream tests are the quick
		// counterpart of the big ones, which take seconds here.
		cases = cases[:5]
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(path, c.doc, 0o644); err != nil {
			t.Fatal(err)
		}
		ios, _, out, errOut := Test()
		code := Run(ios, []string{"encode", "--to", "toon", "--delimiter", "pipe", path})
		sios, in, sout, serrOut := Test()
		in.Write(c.doc)
		scode := Run(sios, []string{"encode", "--to", "toon", "--delimiter", "pipe"})
		got := strings.ReplaceAll(errOut.String(), path, "<stdin>")
		if code != scode || out.String() != sout.String() || got != serrOut.String() {
			t.Errorf("%s: exit %d, %d bytes out, stderr %q\nfrom stdin: exit %d, %d bytes out, stderr %q",
				c.name, code, out.Len(), errOut, scode, sout.Len(), serrOut)
		}
		if (code == 0) != c.ok || !c.ok && out.Len() > 0 {
			t.Errorf("%s: exit %d with %d bytes of output", c.name, code, out.Len())
		}
		if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) > 0 {
			t.Errorf("%s: %d temporary files left", c.name, len(left))
		}
		if !c.ok && !strings.Contains(errOut.String(), path+":") {
			t.Errorf("%s: the error does not name the place: %q", c.name, errOut)
		}
		if c.ok {
			var want bytes.Buffer
			// toon.FromJSON's text, and the newline the CLI ends it with.
			if err := toon.FromJSON(&want, c.doc, toon.MarshalOptions{Delimiter: toon.Pipe}); err != nil || out.String() != want.String()+"\n" {
				t.Errorf("%s: the output differs from toon.FromJSON's and a newline (%v)", c.name, err)
			}
		}
	}
}
