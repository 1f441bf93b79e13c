package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// convertJobsInputs are JSON arrays and NDJSON streams of records, good
// and bad, several batches long, as files: compact, as Python writes them,
// with CRLF line ends, with keys that change, lossy and deep cells, and
// records that break the table late in the input.
func convertJobsInputs(t *testing.T) map[string][]byte {
	rng := rand.New(rand.NewPCG(17, 4))
	n, m := 7000, 5000
	if raceflag.Enabled {
		n, m = 1500, 1500 // the race detector is slow: a batch or two
	}
	var nd bytes.Buffer
	for i := range n {
		switch {
		case i%500 == 7:
			fmt.Fprintf(&nd, `{"id": %d, "name": "late, %d", "extra": "only here"}`+"\n", i, i)
		case i%97 == 3:
			fmt.Fprintf(&nd, `{"name": "swapped", "id": %d, "score": 1.50}`+"\n", i)
		case i%1000 == 11:
			fmt.Fprintf(&nd, `{"id": %d, "name": "%d", "score": [1, [2]], "tags": {"a": {"b": 1}}}`+"\n", i, i)
		default:
			fmt.Fprintf(&nd, `{"id": %d, "name": "user %d \u00e9\\n%s", "score": %d.25, "ok": %v, "note": null}`+"\n", i, i, strings.Repeat("x, y", rng.IntN(20)), i, i%2 == 0)
		}
	}
	good := nd.Bytes()
	var clean bytes.Buffer
	for i := range m {
		fmt.Fprintf(&clean, `{"id": %d, "name": "user %d, \u00e9\n", "score": %d.25, "ok": %v, "tags": [%d, "a"]}`+"\n", i, i, i, i%3 == 0, i)
	}
	lines := bytes.SplitAfter(good, []byte("\n"))
	array := func(ls [][]byte) []byte {
		var b bytes.Buffer
		b.WriteString("[")
		for i, l := range ls {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.Write(bytes.TrimSuffix(l, []byte("\n")))
		}
		b.WriteString("]\n")
		return b.Bytes()
	}
	n = len(lines) - 1 // the last is empty
	late := n * 3 / 4
	with := func(extra string) [][]byte {
		ls := append([][]byte{}, lines[:late]...)
		ls = append(ls, []byte(extra+"\n"))
		return append(ls, lines[late:n]...)
	}
	arr := array(lines[:n])
	inputs := map[string][]byte{
		"records.ndjson":      good,
		"clean.ndjson":        clean.Bytes(),
		"clean.json":          array(bytes.SplitAfter(bytes.TrimSuffix(clean.Bytes(), []byte("\n")), []byte("\n"))),
		"records.json":        arr,
		"crlf.json":           bytes.ReplaceAll(arr, []byte("\n"), []byte("\r\n")),
		"nonobject.json":      array(with(`[1, 2]`)),
		"nonobject.ndjson":    bytes.Join(with(`"text"`), nil),
		"syntax.json":         array(with(`{"id": 1, "name": tru}`)),
		"duplicate.ndjson":    bytes.Join(with(`{"id": 1, "id": 2}`), nil),
		"truncated.json":      arr[:len(arr)-300],
		"unclosed.json":       arr[:len(arr)-2],
		"bom.json":            append([]byte("\xEF\xBB\xBF"), arr...),
		"after.json":          append(bytes.Clone(arr), `{"id": 1}`...),
		"lossy.json":          array(with(`{"id": "42", "name": "", "score": "true"}`)),
		"oneline.json":        bytes.ReplaceAll(arr, []byte(",\n"), []byte(", ")),
		"toolarge.ndjson":     bytes.Join(with(`{"id": 1, "name": "`+strings.Repeat("z", 3<<20)+`"}`), nil),
		"unicodeafter.ndjson": append(bytes.Clone(good), "{\"id\": 1, \"name\": \"\xff\"}\n"...),
	}
	inputs["python.json"] = pyjson.Dumps(t, arr)
	inputs["python-indent-crlf.json"] = pyjson.Dumps(t, arr, "--indent", "2", "--crlf")
	inputs["python.ndjson"] = pyjson.Dumps(t, good)
	inputs["python-tabs.ndjson"] = pyjson.Dumps(t, good, "--indent", "tab", "--trailing-space")
	if raceflag.Enabled {
		// The race detector is slow: a few inputs, a batch or two each;
		// the whole set runs without it.
		for name := range inputs {
			switch name {
			case "clean.json", "records.ndjson", "nonobject.json", "python.json", "syntax.json":
			default:
				delete(inputs, name)
			}
		}
		return inputs
	}
	for _, name := range []string{"users.json", "orders.json", "data.json", "events.ndjson"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "demo", name))
		if err != nil {
			t.Fatal(err)
		}
		inputs["demo-"+name] = b
	}
	return inputs
}

// convert --to tabular -j 4 writes what -j 1 writes, byte for byte:
// stdout, stderr, -o FILE (not made on failure), exit status; from files
// and from standard input; and over several inputs.
func TestConvertTableJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs convert -j 1 and -j 4 over every table input")
	dir := t.TempDir()
	inputs := convertJobsInputs(t)
	var paths []string
	for name, data := range inputs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		flagSets := [][]string{nil, {"--lossy"}, {"-o", filepath.Join(dir, "out.toon")}, {"--max-frame-size", "2MiB"}}
		if raceflag.Enabled {
			flagSets = flagSets[:1]
		}
		for _, flags := range flagSets {
			for _, src := range []string{path, "-"} {
				args := append(append([]string{"convert", "--to", "tabular"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q %d bytes\n-j 4: %d %d bytes %.300q %d bytes", name, flags,
						one.code, len(one.out), one.err, len(one.oFile), four.code, len(four.out), four.err, len(four.oFile))
				}
				if flags == nil && strings.HasPrefix(name, "clean") && (one.code != 0 || !strings.HasPrefix(one.out, "@toon 1.0\n@keys id,name,score,ok,tags\n")) {
					t.Errorf("%s: exit %d, %q", name, one.code, one.err)
				}
			}
		}
	}
	args := append([]string{"convert", "--to", "tabular", "--lossy"}, paths...)
	one := runJobs(t, nil, dir, append(args, "-j", "1")...)
	four := runJobs(t, nil, dir, append(args, "-j", "4")...)
	if one != four {
		t.Errorf("several inputs: -j 4 differs from -j 1 (exit %d, %d; %.300q, %.300q)", one.code, four.code, one.err, four.err)
	}
}

// convert --to json, json -c and ndjson -j 4 write what -j 1 writes, from
// JSON arrays and NDJSON, good and bad, files and standard input.
func TestConvertStreamJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs convert -j 1 and -j 4 over every stream input")
	dir := t.TempDir()
	for name, data := range convertJobsInputs(t) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		flagSets := [][]string{{"--to", "json"}, {"--to", "json", "-c", "-o", filepath.Join(dir, "out.json")}, {"--to", "ndjson"}}
		if raceflag.Enabled {
			flagSets = flagSets[2:]
		}
		for _, flags := range flagSets {
			for _, src := range []string{path, "-"} {
				args := append(append([]string{"convert"}, flags...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q %d bytes\n-j 4: %d %d bytes %.300q %d bytes", name, flags,
						one.code, len(one.out), one.err, len(one.oFile), four.code, len(four.out), four.err, len(four.oFile))
				}
				if strings.HasPrefix(name, "clean") && (one.code != 0 || len(one.out)+len(one.oFile) < len(data)/2) {
					t.Errorf("%s %v: exit %d, %q", name, flags, one.code, one.err)
				}
			}
		}
	}
}

// convert --to ndjson -j 4 passes a live stream on record by record, from
// NDJSON and from a JSON array written an element at a time.
func TestConvertJobsLive(t *testing.T) {
	for _, input := range []func(i int) []byte{
		func(i int) []byte { return fmt.Appendf(nil, "{\"a\": %d}\n", i) },
		func(i int) []byte {
			if i == 0 {
				return []byte("[{\"a\": 0}")
			}
			return fmt.Appendf(nil, ",\n{\"a\": %d}", i)
		},
	} {
		steps := make([][][]byte, 4)
		for i := range steps {
			steps[i] = [][]byte{input(i)}
		}
		if input(0)[0] == '[' {
			steps = append(steps, [][]byte{[]byte("]\n")}) // the array's end: no record
		}
		checkLive(t, []string{"convert", "--to", "ndjson", "-j", "4"}, steps, func(r *bufio.Reader, i int) error {
			if i == 4 {
				return nil
			}
			line, err := r.ReadString('\n')
			if want := fmt.Sprintf("{\"a\":%d}\n", i); err == nil && line != want {
				return fmt.Errorf("%q, want %q", line, want)
			}
			return err
		})
	}
}

// decode and convert --to json/ndjson read tables on N workers: -j 4
// writes what -j 1 writes, for good tables and for rows that break the
// rules late in a table, from files and standard input.
func TestTableDecodeJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs decode -j 1 and -j 4 over every table input")
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("@toon 1.0\n@keys id,name,score,ok,tags\n")
	rows := 12000
	if raceflag.Enabled {
		rows = 3000
	}
	for i := range rows {
		fmt.Fprintf(&b, "%d,user %d\\c é\\n,%d.5,%v,[%d\\c\"a\"]\n", i, i, i, i%2 == 0, i)
	}
	good := b.Bytes()
	late := len(good) * 3 / 4
	late += bytes.IndexByte(good[late:], '\n') + 1
	insert := func(row string) []byte {
		return append(append(bytes.Clone(good[:late]), row...), good[late:]...)
	}
	inputs := map[string][]byte{
		"good.toon":      good,
		"crlf.toon":      bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")),
		"short.toon":     insert("1,2\n"),
		"escape.toon":    insert("1,x\\q,2,true,\n"),
		"utf8.toon":      insert("1,\xff,2,true,\n"),
		"longline.toon":  insert("1," + strings.Repeat("x", 3<<20) + ",2,true,\n"),
		"nonewline.toon": good[:len(good)-1],
		"badheader.toon": append([]byte("@toon 3.0\n"), good[10:]...),
	}
	for _, name := range []string{"users.toon", "orders.toon"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "demo", name)); err == nil && bytes.HasPrefix(b, []byte("@toon")) {
			inputs["demo-"+name] = b
		}
	}
	for name, data := range inputs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmds := [][]string{{"decode"}, {"decode", "-o", filepath.Join(dir, "out.json")}, {"convert", "--to", "ndjson", "--max-frame-size", "2MiB"}, {"convert", "--to", "json"}, {"convert", "--to", "json", "-c"}}
		if raceflag.Enabled {
			if name != "good.toon" && name != "short.toon" {
				continue // the race detector is slow: two inputs, one command
			}
			cmds = cmds[:1]
		}
		for _, cmd := range cmds {
			for _, src := range []string{path, "-"} {
				args := append(append([]string{}, cmd...), src)
				one := runJobs(t, data, dir, append(args, "-j", "1")...)
				four := runJobs(t, data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q %d bytes\n-j 4: %d %d bytes %.300q %d bytes", name, cmd,
						one.code, len(one.out), one.err, len(one.oFile), four.code, len(four.out), four.err, len(four.oFile))
				}
				if name == "good.toon" && (one.code != 0 || len(one.out)+len(one.oFile) < len(data)) {
					t.Errorf("%s %v: exit %d, %q", name, cmd, one.code, one.err)
				}
			}
		}
	}
}
