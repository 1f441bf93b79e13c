package cmd

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/kado"
)

type runResult struct {
	code            int
	out, err, oFile string
}

func runJobs(t *testing.T, stdin []byte, dir string, args ...string) runResult {
	t.Helper()
	ios, in, out, errOut := Test()
	in.Write(stdin)
	code := Run(ios, args)
	r := runResult{code: code, out: out.String(), err: errOut.String()}
	for i, a := range args {
		if a == "-o" {
			b, _ := os.ReadFile(args[i+1])
			r.oFile = string(b)
			os.Remove(args[i+1])
		}
	}
	return r
}

// jobsCase tells whether a -j 1 against -j 4 comparison runs the case of
// input i with flag set j (of flags) from source s (0 the file, 1 standard
// input). test-slow runs every case. Under -short (make test) each input
// runs twice: with the first flag set from its file, and with flag set
// i mod flags from standard input; so every input, both sources and, with
// as many inputs as flag sets, every flag set run.
func jobsCase(i, j, s, flags int) bool {
	return !testing.Short() || (j == 0 && s == 0) || (j == i%flags && s == 1)
}

// jobsCaptures are frame streams, good and damaged, as files.
func jobsCaptures(t *testing.T) []string {
	dir := t.TempDir()
	names := []string{"../testdata/demo/capture.bin", "../testdata/demo/damaged.bin"}
	rng := rand.New(rand.NewPCG(4, 17))
	frames := func(n int) []byte {
		var b []byte
		for i := range n {
			p := fmt.Sprintf(`{"instruction": "step %d", "data": %q}`, i, strings.Repeat("xy", rng.IntN(1500)))
			b, _, _ = kado.AppendFrame(b, kado.Header{Version: 1, Type: kado.MessageType(1 + i%8), SequenceID: uint32(i)}, []byte(p), kado.CompressAuto)
		}
		return b
	}
	big := frames(900) // several batches
	add := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	add("big.bin", big)
	add("truncated.bin", big[:len(big)*2/3])
	garbage := bytes.Clone(big[:len(big)/2])
	garbage = append(garbage, "not a frame at all\x01\x09"...)
	add("garbage.bin", append(garbage, big[len(big)/2:]...))
	flipped := bytes.Clone(big)
	for i := range 12 {
		flipped[(i*7919*13)%len(flipped)] ^= 0x5A
	}
	add("flipped.bin", flipped)
	// Frames over 1 MiB, on the wire or decompressed, good and bad.
	large := frames(3)
	for _, p := range []string{`{"data": "` + strings.Repeat("ab", 700<<10) + `"}`, `{"data": "` + strings.Repeat("a", 3<<20) + `"}`, `{"data": ` + strings.Repeat("7", 2<<20) + `x}`} {
		large, _, _ = kado.AppendFrame(large, kado.Header{Version: 1, Type: kado.Instruction}, []byte(p), kado.CompressAuto)
		large = append(large, frames(2)...)
	}
	add("large.bin", large)
	return names
}

// decode -j 4 writes what -j 1 writes, byte for byte: stdout, stderr,
// -o FILE, exit status; from files and from standard input.
func TestDecodeJobsIdentical(t *testing.T) {
	dir := t.TempDir()
	flagSets := [][]string{nil, {"--payload"}, {"--keep-going"}, {"--keep-going", "--payload"},
		{"-o", filepath.Join(dir, "out.json")}, {"--keep-going", "-o", filepath.Join(dir, "out.json")}, {"--max-frame-size", "2KiB", "--keep-going"}}
	for i, name := range jobsCaptures(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for j, flags := range flagSets {
			for s, src := range []string{name, "-"} {
				if !jobsCase(i, j, s, len(flagSets)) {
					continue
				}
				args := append(append([]string{"decode"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%v: -j 4 differs from -j 1:\n-j 1: %d %.300q %.300q %.300q\n-j 4: %d %.300q %.300q %.300q", args,
						one.code, one.out, one.err, one.oFile, four.code, four.out, four.err, four.oFile)
				}
			}
		}
	}
}

// Several inputs: frame indices start again in each, the counts go on.
func TestDecodeJobsSeveralInputs(t *testing.T) {
	names := jobsCaptures(t)
	for _, kg := range []string{"--keep-going", "--payload"} {
		args := append([]string{"decode", kg}, names...)
		one := runJobs(t, nil, "", append(args, "-j", "1")...)
		four := runJobs(t, nil, "", append(args, "-j", "4")...)
		if one != four || one.code != cli.ExitInvalid {
			t.Errorf("%v: -j 4 differs from -j 1 (exit %d, %d)", args, one.code, four.code)
		}
	}
	// encode: the sequence ids go on from one file to the next.
	one := runJobs(t, nil, "", "decode", "-j", "1", names[2])
	dir := t.TempDir()
	nd := filepath.Join(dir, "big.ndjson")
	bare := filepath.Join(dir, "bare.ndjson")
	os.WriteFile(nd, []byte(one.out), 0o644)
	os.WriteFile(bare, []byte(strings.Repeat("{\"instruction\": \"go\"}\n", 30000)), 0o644)
	for _, seq := range []string{"1", "4294937000"} {
		args := []string{"encode", "--to", "binary", "--timestamp", "1", "--seq", seq, bare, nd, bare}
		one := runJobs(t, nil, "", append(args, "-j", "1")...)
		four := runJobs(t, nil, "", append(args, "-j", "4")...)
		if one != four || len(one.out) == 0 {
			t.Errorf("%v: -j 4 differs from -j 1 (exit %d, %d; %.200q, %.200q)", args, one.code, four.code, one.err, four.err)
		}
	}
}

func TestJobsFlag(t *testing.T) {
	ios, _, _, errOut := Test()
	if code := Run(ios, []string{"decode", "-j", "-1", "x.bin"}); code != cli.ExitUsage || !strings.Contains(errOut.String(), "--jobs") {
		t.Fatalf("decode -j -1: exit %d, %q", code, errOut.String())
	}
	var got int
	ios, _, _, _ = Test()
	c := newDecodeCmd(ios, func(o *convert.DecodeOptions) error { got = o.Jobs; return nil })
	c.SetArgs([]string{"x.bin"})
	if err := c.Execute(); err != nil || got < 1 {
		t.Fatalf("default --jobs %d, %v", got, err)
	}
}

// encode --to binary -j 4 writes what -j 1 writes, byte for byte, on
// compact and Python-formatted JSON, and on broken inputs whose error lies
// chunks into the stream.
func TestEncodeJobsIdentical(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	var records bytes.Buffer
	for i := range 6000 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&records, `{"instruction": "step %d", "context": {"files": ["a.go", "b.go"], "n": %d}}`+"\n", i, rng.IntN(1000))
		case 1:
			fmt.Fprintf(&records, `{"header":{"version":1,"type":%d,"timestamp":%d,"sequenceId":%d},"payload":{"status":"ok","note":%q}}`+"\n", 1+i%8, i, i, strings.Repeat("é", rng.IntN(900)))
		default:
			fmt.Fprintf(&records, `{"success": true, "data": %q, "duration": 1.50}`+"\n", strings.Repeat("ab", rng.IntN(800)))
		}
	}
	good := records.Bytes()
	if len(good) < 3*convert.EncodeChunk {
		t.Fatalf("the input is %d bytes: not several chunks", len(good))
	}
	late := len(good) * 3 / 4
	late += bytes.IndexByte(good[late:], '\n') + 1
	inputs := map[string][]byte{
		"compact.ndjson":   good,
		"bom.ndjson":       append([]byte("\xEF\xBB\xBF"), good...),
		"syntax.ndjson":    append(append(bytes.Clone(good[:late]), `{"instruction": "x", }`+"\n"...), good[late:]...),
		"rule.ndjson":      append(append(bytes.Clone(good[:late]), `{"header":{"type":"x"},"payload":{}}`+"\n"...), good[late:]...),
		"unknown.ndjson":   append(append(bytes.Clone(good[:late]), `{"neither": "a type"}`+"\n"...), good[late:]...),
		"truncated.ndjson": good[:len(good)-40],
		"longline.ndjson":  append(append(bytes.Clone(good[:late]), `{"instruction": "`+strings.Repeat("x", 2*convert.EncodeChunkMax)+`"} {"status": "a"}`+"\n"...), good[late:]...),
		"values.json":      bytes.ReplaceAll(good, []byte("\n"), []byte(" ")),
	}
	for _, style := range [][]string{nil, {"--indent", "2", "--crlf"}} {
		name := "python" + strings.Join(style, "") + ".ndjson"
		inputs[name] = pyjson.Dumps(t, good, style...)
	}
	flagSets := [][]string{nil, {"--seq", "4294966000"}, {"--compress", "always"}, {"--max-frame-size", "1KiB"}}
	for i, name := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[name]
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for j, flags := range flagSets {
			for s, src := range []string{path, "-"} {
				if !jobsCase(i, j, s, len(flagSets)) {
					continue
				}
				args := append(append([]string{"encode", "--to", "binary", "--timestamp", "1"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q\n-j 4: %d %d bytes %.300q", name, flags,
						one.code, len(one.out), one.err, four.code, len(four.out), four.err)
				}
			}
		}
	}
}
