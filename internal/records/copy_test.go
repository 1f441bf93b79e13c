package records_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/kado"
)

// bigInput is n records, formatted as Python's json.dumps writes them (", "
// and ": "), as a JSON
// array or NDJSON, large enough to be cut into several batches; the
// record bad (from 1) is not valid JSON, or none with bad 0.
func bigInput(n, bad int, array bool) string {
	var b strings.Builder
	if array {
		b.WriteString("[")
	}
	for i := 1; i <= n; i++ {
		if array && i > 1 {
			b.WriteString(", ")
		}
		rec := fmt.Sprintf(`{"id": %d, "name": "user %d", "tags": ["a", "b"], "score": 1.5}`, i, i) // as json.dumps writes it
		if i == bad {
			rec = `{"id": tru}`
		}
		b.WriteString(rec)
		if !array {
			b.WriteString("\n")
		}
	}
	if array {
		b.WriteString("]\n")
	}
	return b.String()
}

// copyAll copies text, in format, to the sink newSink makes, on workers,
// and returns what the sink wrote, the count and the error (its message,
// with the place it names).
func copyAll(t *testing.T, text string, format codec.Format, regular bool, workers int, newSink func(w io.Writer) records.Sink) (string, int, string) {
	t.Helper()
	src, err := records.NewSource(strings.NewReader(text), "in", records.SourceOptions{Format: format, Regular: regular})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	snk := newSink(&out)
	n, err := records.Copy(context.Background(), src, snk, records.CopyOptions{Workers: workers})
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if err := snk.End(); err != nil {
		t.Fatal(err)
	}
	if ts, ok := snk.(*records.TableSink); ok && err == nil {
		var table bytes.Buffer
		if err := ts.Finish(&table, bytes.NewReader(out.Bytes()), nil); err != nil {
			t.Fatal(err)
		}
		return table.String(), n, msg
	}
	return out.String(), n, msg
}

// Copy on several workers writes what one worker writes, to every sink it
// spreads work for, from JSON arrays, NDJSON and tables, live or not; a bad
// record midway stops both at the same record with the same error.
func TestCopyWorkersMatchOne(t *testing.T) {
	sinks := map[string]func(w io.Writer) records.Sink{
		"json":    func(w io.Writer) records.Sink { return &records.JSONSink{W: w} },
		"compact": func(w io.Writer) records.Sink { return &records.JSONSink{W: w, Compact: true} },
		"ndjson":  func(w io.Writer) records.Sink { return &records.NDJSONSink{W: w} },
		"table":   func(w io.Writer) records.Sink { return &records.TableSink{Rows: w, Max: 5} },
		"function": func(w io.Writer) records.Sink {
			return records.SinkFunc(func(rec []byte) error { _, err := fmt.Fprintf(w, "%s;", rec); return err })
		},
	}
	var table bytes.Buffer
	ts := &records.TableSink{Rows: &table}
	src, _ := records.NewSource(strings.NewReader(bigInput(6000, 0, false)), "in", records.SourceOptions{Format: codec.NDJSON})
	if _, err := records.Copy(context.Background(), src, ts, records.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	var tableText bytes.Buffer
	if err := ts.Finish(&tableText, &table, nil); err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		name, text string
		format     codec.Format
	}{
		{"array", bigInput(6000, 0, true), codec.JSON},
		{"ndjson", bigInput(6000, 0, false), codec.NDJSON},
		{"array, bad record", bigInput(6000, 4000, true), codec.JSON},
		{"ndjson, bad record", bigInput(6000, 4000, false), codec.NDJSON},
		{"table", tableText.String(), codec.Tabular},
		{"table, bad row", strings.Replace(tableText.String(), "\n4000,", "\n4000,x,", 1), codec.Tabular},
	}
	for _, in := range inputs {
		for name, newSink := range sinks {
			for _, regular := range []bool{true, false} {
				one, n1, err1 := copyAll(t, in.text, in.format, regular, 1, newSink)
				many, n4, err4 := copyAll(t, in.text, in.format, regular, 4, newSink)
				if one != many || err1 != err4 || n1 != n4 {
					t.Errorf("%s to %s (regular %v): 4 workers wrote %d bytes, %d records, error %q; one worker %d bytes, %d records, error %q",
						in.name, name, regular, len(many), n4, err4, len(one), n1, err1)
				}
				if strings.Contains(in.name, "bad") == (err1 == "") {
					t.Errorf("%s to %s: error %q", in.name, name, err1)
				}
				if !strings.Contains(in.name, "bad") && n1 != 6000 {
					t.Errorf("%s to %s: %d records, want 6000", in.name, name, n1)
				}
			}
		}
	}
}

// The records before a bad one are written, and the error is the
// source's, with its place.
func TestCopyStopsAtBadRecord(t *testing.T) {
	src, _ := records.NewSource(strings.NewReader("{\"a\": 1}\n{\"a\": tru}\n{\"a\": 3}\n"), "log.ndjson", records.SourceOptions{Format: codec.NDJSON})
	var out bytes.Buffer
	n, err := records.Copy(context.Background(), src, &records.NDJSONSink{W: &out}, records.CopyOptions{Workers: 2})
	var re *records.Error
	if !errors.As(err, &re) || re.Kind != records.BadJSON || !strings.Contains(err.Error(), "log.ndjson") {
		t.Errorf("error %v, want a BadJSON *records.Error naming log.ndjson", err)
	}
	if out.String() != "{\"a\":1}\n" || n != 1 {
		t.Errorf("wrote %q (%d records), want the first record alone", out.String(), n)
	}
}

// A sink's error stops the copy and is returned as it is.
func TestCopySinkError(t *testing.T) {
	for _, workers := range []int{1, 4} {
		src, _ := records.NewSource(strings.NewReader(bigInput(6000, 0, false)), "in", records.SourceOptions{Format: codec.NDJSON})
		n, err := records.Copy(context.Background(), src, &records.TableSink{Rows: failing{}}, records.CopyOptions{Workers: workers})
		if !errors.Is(err, errStop) {
			t.Errorf("workers %d: error %v, want the sink's", workers, err)
		}
		if n == 6000 {
			t.Errorf("workers %d: went on to the end", workers)
		}
		src, _ = records.NewSource(strings.NewReader(`[{"a":1},2]`), "in", records.SourceOptions{Format: codec.JSON})
		_, err = records.Copy(context.Background(), src, &records.TableSink{Rows: io.Discard}, records.CopyOptions{Workers: workers})
		var row *records.RowError
		if !errors.As(err, &row) || !errors.Is(err, tabular.ErrNotObject) {
			t.Errorf("workers %d: a record that is no object: error %v, want a *RowError", workers, err)
		}
	}
}

var errStop = errors.New("stop")

// failing is a writer whose writes fail.
type failing struct{}

func (failing) Write(p []byte) (int, error) { return 0, errStop }

// Record sees every record, in order, before the sink, and Idle is called
// as a live input runs dry.
func TestCopyRecordAndIdle(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "{\"n\": 1}\n")
		io.WriteString(pw, "{\"n\": 2}\n")
		pw.Close()
	}()
	src, err := records.NewSource(pr, "pipe", records.SourceOptions{Format: codec.NDJSON})
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	snk := records.SinkFunc(func(rec []byte) error { log = append(log, "write "+string(rec)); return nil })
	_, err = records.Copy(context.Background(), src, snk, records.CopyOptions{Workers: 4,
		Record: func(rec []byte) { log = append(log, "record "+string(rec)) },
		Idle:   func() error { log = append(log, "idle"); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(log, "; ")
	if !strings.HasPrefix(got, `record {"n":1}; write {"n":1}; idle; record {"n":2}; write {"n":2}`) {
		t.Errorf("calls: %s", got)
	}
}

// framesInput is n binary frames (some compressed), with frame bad (from
// 1) made bad (its version byte), or none with bad 0.
func framesInput(t *testing.T, n, bad int) string {
	t.Helper()
	var b bytes.Buffer
	w := kado.NewWriter(&b, kado.CompressAuto)
	var offsets []int
	for i := 1; i <= n; i++ {
		offsets = append(offsets, b.Len())
		payload := fmt.Sprintf(`{"id":%d,"text":"%s"}`, i, strings.Repeat("ab", i%300))
		if _, err := w.WriteFrame(kado.Header{Version: 1, Type: kado.Status, Timestamp: uint64(i), SequenceID: uint32(i)}, []byte(payload)); err != nil {
			t.Fatal(err)
		}
	}
	out := b.Bytes()
	if bad > 0 {
		out[offsets[bad-1]] = 2
	}
	return string(out)
}

// Binary frames are decoded on the workers into what one worker gives:
// the records or the payloads, the same error at the first bad frame, or,
// with Skip, the same frames skipped with the same moves.
func TestCopyFramesWorkersMatchOne(t *testing.T) {
	run := func(text string, workers int, payload, skip bool, json bool) (string, int, string, string) {
		src, err := records.NewSource(strings.NewReader(text), "in.bin", records.SourceOptions{Format: codec.Binary, Regular: true})
		if err != nil {
			t.Fatal(err)
		}
		src.Payload = payload
		var skipped strings.Builder
		if skip {
			src.Skip = func(e *records.Error, m *kado.Moved) { fmt.Fprintf(&skipped, "%v %+v;", e, *m) }
		}
		var out bytes.Buffer
		var snk records.Sink = &records.NDJSONSink{W: &out}
		if json {
			snk = &records.JSONSink{W: &out}
		}
		n, err := records.Copy(context.Background(), src, snk, records.CopyOptions{Workers: workers})
		msg := ""
		if err != nil {
			var e *records.Error
			if !errors.As(err, &e) || e.Kind != records.BadFrame {
				t.Errorf("error %v: want a BadFrame *records.Error", err)
			}
			msg = err.Error()
		}
		return out.String(), n, msg, skipped.String()
	}
	for _, bad := range []int{0, 2500} {
		text := framesInput(t, 4000, bad)
		for _, payload := range []bool{false, true} {
			for _, skip := range []bool{false, true} {
				for _, json := range []bool{false, true} {
					o1, n1, e1, s1 := run(text, 1, payload, skip, json)
					o4, n4, e4, s4 := run(text, 4, payload, skip, json)
					if o1 != o4 || n1 != n4 || e1 != e4 || s1 != s4 {
						t.Errorf("bad %d, payload %v, skip %v, json %v: 4 workers %d bytes, %d records, error %q, skipped %q; one worker %d bytes, %d records, error %q, skipped %q",
							bad, payload, skip, json, len(o4), n4, e4, s4, len(o1), n1, e1, s1)
					}
					want := 4000
					if bad > 0 && skip {
						want = 3999
					} else if bad > 0 {
						want = bad - 1
					}
					if n1 != want || (bad > 0) != (e1 != "" || s1 != "") {
						t.Errorf("bad %d, payload %v, skip %v: %d records, error %q, skipped %q; want %d", bad, payload, skip, n1, e1, s1, want)
					}
				}
			}
		}
	}
}
