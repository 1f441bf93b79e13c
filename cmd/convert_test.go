package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/convert"
)

func TestConvertFlagParsing(t *testing.T) {
	ios, _, _, _ := Test()
	var got *convert.Options
	c := newConvertCmd(ios, func(o *convert.Options) error { got = o; return nil })
	c.SetArgs([]string{"--from", "jsonl", "--to", "A2A", "--lossy", "--stats", "--tokenizer", "cl100k_base", "-o", "t.toon", "a.ndjson", "-"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.From != codec.NDJSON || got.To != codec.Tabular || !got.Lossy || !got.Stats || got.Tokenizer != "cl100k_base" ||
		got.Output != "t.toon" || strings.Join(got.Inputs, " ") != "a.ndjson -" || got.MaxFrameSize != 64<<20 {
		t.Fatalf("options %+v", got)
	}
	c = newConvertCmd(ios, func(o *convert.Options) error { got = o; return nil })
	c.SetArgs([]string{"--to", "auto", "--verbose", "x.json"})
	if err := c.Execute(); err != nil || got.To != convert.Auto || !got.Verbose {
		t.Fatalf("auto: %+v, %v", got, err)
	}
}

// A regular file is read ahead in batches by a goroutine: records come out
// in order across batches, and an error stops the run with the position of
// the record that caused it.
func TestConvertReadsAheadInOrder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("[\n")
	const n = 20000 // several batches of 4096 records
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user %d, the %dth","ok":%t}`, i, i, i, i%2 == 0)
	}
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(b.String()+"\n]\n"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(b.String()+",\n7\n]\n"), 0o644)

	ios, _, out, errOut := Test()
	if code := Run(ios, []string{"convert", "--to", "tabular", good}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n+2 || lines[2] != "0,user 0\\c the 0th,true" || lines[n+1] != fmt.Sprintf("%d,user %d\\c the %dth,false", n-1, n-1, n-1) {
		t.Fatalf("%d lines; first row %q, last %q", len(lines), lines[2], lines[len(lines)-1])
	}
	for i, l := range lines[2:] {
		if !strings.HasPrefix(l, fmt.Sprintf("%d,", i)) {
			t.Fatalf("row %d is %q", i, l)
		}
	}

	ios, _, out, errOut = Test()
	if code := Run(ios, []string{"convert", "--to", "tabular", bad}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	want := fmt.Sprintf("toonkit: error: %s:%d:1: expected an object, found a number\n", bad, n+2)
	if !strings.HasPrefix(errOut.String(), want) || out.Len() != 0 {
		t.Fatalf("stderr %q, %d bytes of stdout; want %q", errOut, out.Len(), want)
	}
}
