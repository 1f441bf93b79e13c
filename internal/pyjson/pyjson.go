// Package pyjson gives tests and benchmarks JSON as Python services write
// it, written by CPython's own json.dumps (scripts/pyjson.py run with
// python3), not by a Go imitation of it: the default separators ", " and
// ": ", indent=2 with CRLF line ends, or tabs with a space before each line
// break.
package pyjson

import (
	"bytes"
	"crypto/sha256"
	"github.com/toonkit/toonkit/internal/needs"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// Style is one way a Python service writes JSON: the flags of
// scripts/pyjson.py.
type Style struct {
	Name  string
	Flags []string
}

// Styles are the formattings a fast path must take as it takes compact
// JSON: json.dumps's defaults (one value a line); indent=2 with CRLF line
// ends; tabs, with a space before each line break after a comma (indent
// "\t" and separators (", ", ": "), as Python before 3.4 indented).
var Styles = []Style{
	{Name: "dumps"},
	{Name: "indent2-crlf", Flags: []string{"--indent", "2", "--crlf"}},
	{Name: "tabs-trailing-space", Flags: []string{"--indent", "tab", "--trailing-space"}},
}

// script is scripts/pyjson.py, found from this file's place in the module.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pyjson.py")
}

// dumped holds what Dumps wrote, by input and flags, for the test process:
// tests that rewrite the same input the same way run python3 once.
var dumped struct {
	sync.Mutex
	out map[[sha256.Size]byte][]byte
}

// Dumps rewrites in, one JSON document or NDJSON, with python3
// scripts/pyjson.py and flags. Python writes each float as its repr
// (1.50 becomes 1.5): Pair gives the compact text to compare it with.
// Without python3 on the PATH the test is skipped, saying so. The same
// input and flags are rewritten once per test process; each call gets a
// copy of its own.
func Dumps(tb testing.TB, in []byte, flags ...string) []byte {
	tb.Helper()
	py := needs.Program(tb, "python3", "the comparison with what Python writes is skipped")
	key := sha256.Sum256(append([]byte(strings.Join(flags, "\x00")+"\x00\x00"), in...))
	dumped.Lock()
	out, ok := dumped.out[key]
	dumped.Unlock()
	if ok {
		return bytes.Clone(out)
	}
	out = dumps(tb, py, in, flags)
	dumped.Lock()
	if dumped.out == nil {
		dumped.out = map[[sha256.Size]byte][]byte{}
	}
	dumped.out[key] = bytes.Clone(out)
	dumped.Unlock()
	return out
}

func dumps(tb testing.TB, py string, in []byte, flags []string) []byte {
	tb.Helper()
	cmd := exec.Command(py, append([]string{script()}, flags...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("python3 scripts/pyjson.py %v: %v\n%s", flags, err, stderr.Bytes())
	}
	return out
}

// Pair is the values of in written twice: as style writes them, and
// compact, each value of Python's text compacted (strings and numbers as
// Python wrote them) on a line of its own, so that both hold the same data.
func Pair(tb testing.TB, in []byte, style Style) (compact, py []byte) {
	tb.Helper()
	py = Dumps(tb, in, style.Flags...)
	for _, v := range Values(tb, py, false) {
		compact = append(append(compact, jsonv.CompactInPlace(v)...), '\n')
	}
	return compact, py
}

// Text is JSON written one way: its name ("compact", or a Style's) and
// its bytes.
type Text struct {
	Name string
	JSON []byte
}

// Texts is the values of in compact (as Pair gives them) and as each of
// Styles writes them, for benchmarks that compare the formattings.
func Texts(tb testing.TB, in []byte) []Text {
	tb.Helper()
	compact, _ := Pair(tb, in, Styles[0])
	texts := []Text{{"compact", compact}}
	for _, s := range Styles {
		texts = append(texts, Text{s.Name, Dumps(tb, in, s.Flags...)})
	}
	return texts
}

// Values is the JSON values of text (NDJSON, or values back to back), each
// a copy, as jsonv.Reader gives them; with elements, a top-level array
// gives its elements.
func Values(tb testing.TB, text []byte, elements bool) [][]byte {
	tb.Helper()
	r := jsonv.NewReader(bytes.NewReader(text), jsonv.Options{MaxValueSize: 1 << 40, Elements: elements})
	var values [][]byte
	for {
		v, _, err := r.Next()
		if err == io.EOF {
			return values
		}
		if err != nil {
			tb.Fatalf("JSON values: %v", err)
		}
		values = append(values, bytes.Clone(v))
	}
}
