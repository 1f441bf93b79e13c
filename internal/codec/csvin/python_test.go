package csvin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/csvin"
	"github.com/toonkit/toonkit/internal/needs"
)

// pyCSV writes tables with Python's csv module (quotes where needed,
// doubled quotes, line ends within cells, CRLF rows: what a real producer
// writes), then reads each file back with csv.DictReader, printing its rows
// as JSON with every cell a string.
const pyCSV = `
import csv, json, random, sys
random.seed(33)
out = sys.argv[1]
cells = ['1', '-2.5', '007', 'true', '', 'a,b', 'say "hi"', 'two\nlines', 'tab\there', 'é ü', ' x ', 'null', '1e-7', '"']
for i in range(20):
    delim = '\t' if i % 4 == 3 else ','
    name = '%s/t%02d.%s' % (out, i, 'tsv' if delim == '\t' else 'csv')
    cols = ['id', 'name', 'note', 'v%d' % i][: 2 + i % 3]
    with open(name, 'w', newline='') as f:
        w = csv.writer(f, delimiter=delim)
        w.writerow(cols)
        for r in range(1 + i % 7):
            w.writerow([random.choice(cells) for _ in cols])
`

const pyRead = `
import csv, json, sys
for name in sys.argv[1:]:
    delim = '\t' if name.endswith('.tsv') else ','
    with open(name, newline='', encoding='utf-8-sig') as f:
        rd = csv.reader(f, delimiter=delim)
        rows, header, ragged = [], None, 0
        for r in rd:
            if not r:
                continue
            if header is None:
                header = r
            elif len(r) != len(header):
                ragged = rd.line_num
                break
            else:
                rows.append(dict(zip(header, r)))
    print(json.dumps({'path': name, 'rows': rows if header else None, 'ragged': ragged}))
`

// The rows toonkit reads (--csv-strings) are the rows Python's csv module
// reads, on tables Python's csv module wrote and on the CSV files this
// machine's packages ship.
func TestPythonCSV(t *testing.T) {
	py := needs.Program(t, "python3", "the CSV comparison runs Python's csv module")
	dir := t.TempDir()
	if out, err := exec.Command(py, "-c", pyCSV, dir).CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	real, _ := filepath.Glob("/usr/share/distro-info/*.csv")
	files = append(files, real...)
	out, err := exec.Command(py, append([]string{"-c", pyRead}, files...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	compared := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var want struct {
			Path   string
			Rows   []map[string]string
			Ragged int // the line of the first row whose cells are not the header's
		}
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(want.Path)
		if err != nil {
			t.Fatal(err)
		}
		opts := csvin.Options{Strings: true}
		if strings.HasSuffix(want.Path, ".tsv") {
			opts.Comma = '\t'
		}
		r := csvin.NewReader(bytes.NewReader(data), opts)
		var got []map[string]string
		for {
			rec, _, err := r.Next()
			if err == io.EOF {
				break
			}
			var e *csvin.Error
			if errors.As(err, &e) && e.Kind == csvin.Ragged && e.Syntax.Pos.Line == want.Ragged {
				break // Python's csv module reads ragged rows too; a table is refused
			}
			if err != nil {
				t.Fatalf("%s: %v (python: ragged at line %d)", want.Path, err, want.Ragged)
			}
			var m map[string]string
			if err := json.Unmarshal(rec, &m); err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want.Rows)
		if want.Rows == nil || len(want.Rows) == 0 && got == nil {
			w = []byte("null")
		}
		if !bytes.Equal(g, w) {
			// encoding/csv reads a CRLF inside a quoted cell as LF
			// (docs/formats/csv.md); Python keeps it.
			if bytes.Equal(g, bytes.ReplaceAll(w, []byte(`\r\n`), []byte(`\n`))) {
				compared++
				continue
			}
			t.Errorf("%s:\n toonkit %s\n python  %s", want.Path, g, w)
			continue
		}
		compared++
	}
	if compared < 20 {
		t.Errorf("only %d tables compared", compared)
	}
}
