package bridge

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
)

// sorted is v with the members of every object sorted by name: the
// mapping puts the members the spec names in the spec's order.
func sorted(n *node) []byte {
	if !n.isObject() {
		return n.raw
	}
	ms := slices.Clone(n.obj().m)
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
	b := []byte{'{'}
	for i, m := range ms {
		b = append(jsonv.AppendName(b, i, m.k), sorted(m.v)...)
	}
	return append(b, '}')
}

// FuzzConvert: any message, of any protocol, converts without a panic to
// valid JSON, or is refused; and what converts comes back, converted back,
// as the same JSON value (member order aside); the message indented with
// CRLF line ends converts to the same bytes.
func FuzzConvert(f *testing.F) {
	g := newGen(9)
	for _, typ := range []string{"INSTRUCTION", "STATUS", "TOOL_RESULT", "ERROR", "TOOL_CALL"} {
		f.Add(uint8(0), g.kado(typ))
	}
	for _, typ := range []string{"work_request", "work_status", "work_result", "error"} {
		f.Add(uint8(2), g.chiffon(typ))
	}
	for _, typ := range []string{"log", "state_patch", "asset", "ui_event", "error", "done"} {
		f.Add(uint8(6), g.narratoria(typ))
	}
	f.Add(uint8(3), g.trace("action_request", g.uuid()))
	f.Add(uint8(1), `{"type":"work_status","payload":{"task_id":"t","step":{"number":1,"output":"ab","output_chunk":"bytes 0-2 of 2"}}}`)
	f.Add(uint8(128+4), `{"type":"work_status","payload":{"task_id":"t","step":{"number":1,"output":"ab","output_chunk":"bytes 0-2 of 2"}}}`)
	dirs := [][2]Protocol{{Kado, Chiffon}, {Chiffon, Kado}, {Kado, Trace}, {Trace, Kado}, {Chiffon, Trace}, {Trace, Chiffon}, {Narratoria, Trace}, {Trace, Narratoria}}
	f.Fuzz(func(t *testing.T, dir uint8, msg string) {
		d := dirs[int(dir)%len(dirs)]
		where := func() string { return "fuzz" }
		// Chiffon chunks are joined when dir's high bit is set (a message
		// that is a whole output's one chunk comes back as that chunk), and
		// kept as they are otherwise.
		there, err := New(Options{From: d[0], To: d[1], Deterministic: true, Now: fixedNow, NoReassemble: dir < 128})
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		if err := there.Convert([]byte(msg), where, func(b []byte) error { out = append(out, bytes.Clone(b)); return nil }); err != nil || len(out) != 1 {
			return // refused, held (a chunk), or not a type the target has
		}
		// The message indented, with CRLF line ends (as json.dumps(indent=2)
		// writes it on Windows), converts to the same, checked or not.
		if c, err := jsonv.AppendCompact(nil, []byte(msg)); err == nil {
			pretty := bytes.ReplaceAll(jsonv.AppendIndent(nil, c, "", "  "), []byte("\n"), []byte("\r\n"))
			for _, checked := range []bool{false, true} {
				c2, _ := New(Options{From: d[0], To: d[1], Deterministic: true, Now: fixedNow, NoReassemble: dir < 128, Checked: checked})
				var got [][]byte
				if err := c2.Convert(pretty, where, func(b []byte) error { got = append(got, bytes.Clone(b)); return nil }); err != nil || len(got) != 1 || !bytes.Equal(got[0], out[0]) {
					t.Fatalf("%s indented converts to %q (%v), compact to %s", msg, got, err, out[0])
				}
			}
		}
		back, err := New(Options{From: d[1], To: d[0], Deterministic: true, Now: fixedNow, NoReassemble: true})
		if err != nil {
			t.Fatal(err)
		}
		var again [][]byte
		if err := back.Convert(out[0], where, func(b []byte) error { again = append(again, bytes.Clone(b)); return nil }); err != nil {
			t.Fatalf("%s -> %s gave %s, which does not convert back: %v", d[0], d[1], out[0], err)
		}
		if len(again) != 1 {
			t.Fatalf("%s -> %s gave %s, which converts back to %d messages", d[0], d[1], out[0], len(again))
		}
		a, err := parse([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		b, err := parse(again[0])
		if err != nil {
			t.Fatalf("not JSON: %s", again[0])
		}
		if d[0] == Kado {
			// The type, by number or name; the rest follows from it and
			// from the frame written.
			if typeOf(Kado, a) != typeOf(Kado, b) {
				t.Fatalf("kado type %s came back as %s", typeOf(Kado, a), typeOf(Kado, b))
			}
			for _, n := range []*node{a, b} {
				for _, p := range append(ignored[Kado], "header.type") {
					if n.get("header").isObject() {
						n.del(p)
					}
				}
			}
		}
		if !bytes.Equal(sorted(a), sorted(b)) {
			t.Fatalf("%s -> %s -> %s:\n in:   %s\n %s: %s\n back: %s", d[0], d[1], d[0], msg, d[1], out[0], again[0])
		}
	})
}
