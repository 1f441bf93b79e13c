package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/bridge"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/records"
)

// chiffonLog is n Chiffon messages of one trace, formatted as Python's
// json.dumps writes them.
func chiffonLog(n, from int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, `{"protocol_version": "1.0", "type": "work_request", "timestamp": "2026-01-19T04:21:%02dZ", "trace_id": "550e8400-e29b-41d4-a716-446655440002", "from_agent": "orchestrator", "payload": {"task_id": "t%d", "work_type": "run_playbook"}}`+"\n", i%60, i)
	}
	return b.String()
}

// copyInputs converts the inputs (name, text) with one Inputs to trace
// events on workers, and returns the NDJSON written and the error.
func copyInputs(t *testing.T, workers int, to bridge.Protocol, inputs ...[2]string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	in := &bridge.Inputs{Options: bridge.Options{To: to, Deterministic: true, Checked: true}}
	snk := &records.NDJSONSink{W: &out}
	for _, text := range inputs {
		src, err := records.NewSource(strings.NewReader(text[1]), text[0], records.SourceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Copy(context.Background(), src, snk, records.CopyOptions{Workers: workers}); err != nil {
			return out.String(), err
		}
	}
	return out.String(), nil
}

// The inputs of one protocol in a row are one run: their events are
// numbered on from one input to the next, as the messages of one input
// would be; on several workers, the same bytes.
func TestInputsOneRun(t *testing.T) {
	whole, err := copyInputs(t, 1, bridge.Trace, [2]string{"all.ndjson", chiffonLog(3000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 4} {
		split, err := copyInputs(t, workers, bridge.Trace, [2]string{"a.ndjson", chiffonLog(1000, 0)}, [2]string{"b.ndjson", chiffonLog(2000, 1000)})
		if err != nil {
			t.Fatal(err)
		}
		if split != whole {
			t.Errorf("workers %d: two inputs give %d bytes, one input of the same messages %d", workers, len(split), len(whole))
		}
	}
	if !strings.Contains(whole, `{"seq":3000,`) {
		t.Errorf("the events are not numbered on: %.200s", whole[len(whole)-400:])
	}
}

// For Kado, records that are no protocol's messages pass as they are; an
// input of the target's protocol, or of none that converts to it, is an
// error that names it; a message that is not JSON is the source's error,
// after the events of the messages before it.
func TestInputsErrors(t *testing.T) {
	got, err := copyInputs(t, 1, bridge.Kado, [2]string{"r.ndjson", `{"header":{"type":1},"payload":{"x":1}}` + "\n"})
	if err != nil || got != `{"header":{"type":1},"payload":{"x":1}}`+"\n" {
		t.Errorf("records for frames: %q, %v; want them as they are", got, err)
	}
	var pe *bridge.PairError
	_, err = copyInputs(t, 1, bridge.Chiffon, [2]string{"c.ndjson", chiffonLog(1, 0)})
	if !errors.As(err, &pe) || pe.Name != "c.ndjson" || pe.From != bridge.Chiffon || err.Error() != "c.ndjson: the input is chiffon already" {
		t.Errorf("chiffon to chiffon: %v, want a *PairError", err)
	}
	_, err = copyInputs(t, 1, bridge.Narratoria, [2]string{"c.ndjson", chiffonLog(1, 0)})
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "c.ndjson: no mapping from chiffon to narratoria") {
		t.Errorf("chiffon to narratoria: %v, want a *PairError", err)
	}
	var se *bridge.SourceError
	_, err = copyInputs(t, 1, bridge.Trace, [2]string{"t.toon", "@toon 1.0\n@keys a\n1\n"})
	if !errors.As(err, &se) || se.Format != codec.Tabular {
		t.Errorf("a table: %v, want a *SourceError", err)
	}
	var re *records.Error
	got, err = copyInputs(t, 4, bridge.Trace, [2]string{"c.ndjson", chiffonLog(2, 0) + `{"type": tru}` + "\n"})
	if !errors.As(err, &re) || re.Kind != records.BadJSON || strings.Count(got, "\n") != 2 {
		t.Errorf("a message that is not JSON: %v, after %q; want the source's *records.Error after two events", err, got)
	}
}

// A conversion maps messages when its target is a protocol, or frames
// from a protocol or from an input whose protocol is to be detected.
func TestApplies(t *testing.T) {
	for _, c := range []struct {
		from, to codec.Format
		want     bool
	}{
		{"", codec.Trace, true}, {codec.Chiffon, codec.Trace, true}, {codec.JSON, codec.Narratoria, true},
		{"", codec.Binary, true}, {codec.Trace, codec.Binary, true},
		{codec.JSON, codec.Binary, false}, {codec.Tabular, codec.Binary, false},
		{"", codec.JSON, false}, {codec.Chiffon, codec.NDJSON, false}, {"", codec.Tabular, false},
	} {
		if got := bridge.Applies(c.from, c.to); got != c.want {
			t.Errorf("Applies(%q, %q) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
