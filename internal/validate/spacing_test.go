package validate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/pyjson"
)

// pyFormats are the ways Python services write JSON (scripts/pyjson.py's
// flags): json.dumps' defaults (", " and ": "), indent=2, with CRLF line
// ends, with tabs, and with a space before each line break.
var pyFormats = append(slices.Clone(pyjson.Styles),
	pyjson.Style{Name: "indent2", Flags: []string{"--indent", "2"}},
	pyjson.Style{Name: "tabs", Flags: []string{"--indent", "tab"}},
	pyjson.Style{Name: "trailing-space", Flags: []string{"--indent", "2", "--trailing-space", "--crlf"}},
)

// pyFormat writes each input (a stream of JSON values) in each of
// pyFormats, with python3 (one run a format, for all the inputs); out[i]
// is nil for an input that is not JSON toonkit reads. out[i][0] is
// json.dumps' default formatting.
func pyFormat(tb testing.TB, inputs []string) [][]string {
	tb.Helper()
	// All the values of all the inputs, compact, one a line; counts[i]
	// says how many are the i-th input's.
	var all []byte
	counts := make([]int, len(inputs))
	for i, in := range inputs {
		rd := jsonv.NewReader(strings.NewReader(in), jsonv.Options{})
		var vals []byte
		for {
			v, _, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				counts[i], vals = -1, nil
				break
			}
			vals = append(append(vals, jsonv.CompactInPlace(v)...), '\n')
			counts[i]++
		}
		all = append(all, vals...)
	}
	out := make([][]string, len(inputs))
	for _, style := range pyFormats {
		py := pyjson.Dumps(tb, all, style.Flags...)
		nl := "\n"
		if slices.Contains(style.Flags, "--crlf") {
			nl = "\r\n"
		}
		rd := jsonv.NewReader(bytes.NewReader(py), jsonv.Options{})
		for i, n := range counts {
			if n < 0 {
				continue
			}
			var text strings.Builder
			for range n {
				v, _, err := rd.Next()
				if err != nil {
					tb.Fatalf("python3's %s output: %v", style.Name, err)
				}
				text.Write(v)
				text.WriteString(nl)
			}
			out[i] = append(out[i], text.String())
		}
	}
	return out
}

// spacingInputs are the Chiffon and trace inputs of the tests: the valid
// seeds, every message that breaks one field rule (the inputs of
// testdata/script/validate_rules.txtar), the stream scripts' files and the
// demo logs.
func spacingInputs(t *testing.T) (names, inputs []string) {
	add := func(name, text string) {
		names = append(names, name)
		inputs = append(inputs, text)
	}
	for _, proto := range []string{"chiffon", "trace"} {
		for i, s := range ruleSeeds[proto] {
			add(fmt.Sprintf("%s seed %d", proto, i), s+"\n")
			for j, mu := range mutations(s) {
				add(fmt.Sprintf("%s seed %d mutation %d (%s)", proto, i, j, mu.pointer), mu.msg+"\n")
			}
		}
	}
	for _, script := range []string{"validate_protocols.txtar", "validate_rules.txtar"} {
		ar, err := txtar.ParseFile(filepath.Join("../../testdata/script", script))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".json") || strings.HasSuffix(f.Name, ".ndjson") {
				add(script+" "+f.Name, string(f.Data))
			}
		}
	}
	for _, f := range []string{"chiffon.ndjson", "messages.ndjson", "audit.ndjson", "tampered.ndjson", "session.ndjson"} {
		b, err := os.ReadFile(filepath.Join("../../testdata/demo", f))
		if err != nil {
			t.Fatal(err)
		}
		add("demo "+f, string(b))
	}
	return names, inputs
}

func runValidator(v func(io.Reader, string, Options, Emit) (int, error), in string) ([]Finding, int) {
	var got []Finding
	n, err := v(strings.NewReader(in), "in", Options{}, func(f Finding) bool { got = append(got, f); return true })
	if err != nil {
		got = append(got, Finding{Code: "ERR", Message: err.Error()})
	}
	return got, n
}

// valueAt decodes the JSON value that starts at off in text, for comparing
// what two findings point at; nil when no value starts there.
func valueAt(text string, off int64) any {
	b := []byte(text)
	if off < 0 || off >= int64(len(b)) {
		return nil
	}
	end := jsonv.SkipValue(b, int(off))
	if end < 0 {
		return nil
	}
	v, err := decodeAny(b[off:end])
	if err != nil {
		return nil
	}
	return v
}

// lineCol is the 1-based line and column (in characters) of off in text.
func lineCol(text string, off int64) (int, int) {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	return line, utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
}

// Python-formatted messages give the findings of the same messages written
// compactly: the same records, pointers, codes, severities and messages, at
// the same values, each position that of the value in the input as it is.
func TestFindingsSameInAnyFormatting(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	names, inputs := spacingInputs(t)
	formatted := pyFormat(t, inputs)
	validators := []struct {
		name string
		v    func(io.Reader, string, Options, Emit) (int, error)
	}{{"chiffon", Chiffon}, {"trace", Trace}}
	compared, withFindings := 0, 0
	for i := range inputs {
		if formatted[i] == nil {
			continue // not JSON Python reads (a syntax error test)
		}
		// The compact form of what Python wrote (floats as their repr):
		// the reference.
		compact, ok := pyCompact(formatted[i][0])
		if !ok {
			t.Fatalf("%s: Python wrote what toonkit cannot read:\n%s", names[i], formatted[i][0])
		}
		for _, val := range validators {
			want, wantN := runValidator(val.v, compact)
			if len(want) > 0 {
				withFindings++
			}
			for k, form := range pyFormats {
				text := formatted[i][k]
				got, n := runValidator(val.v, text)
				compared++
				where := fmt.Sprintf("%s, --as %s, Python %s", names[i], val.name, form.Name)
				if n != wantN || len(got) != len(want) {
					t.Errorf("%s: %d records, %d findings; compact: %d records, %d findings\n got %v\nwant %v", where, n, len(got), wantN, len(want), texts(got), texts(want))
					continue
				}
				for j := range got {
					g, w := got[j], want[j]
					if g.Record != w.Record || g.Pointer != w.Pointer || g.Code != w.Code || g.Severity != w.Severity || g.Message != w.Message || g.Frame != w.Frame {
						t.Errorf("%s: finding %d is\n %s\nwant\n %s", where, j, g.Text(), w.Text())
						continue
					}
					if gv, wv := valueAt(text, g.Offset), valueAt(compact, w.Offset); gv == nil || !reflect.DeepEqual(gv, wv) {
						t.Errorf("%s: finding %d (%s) is at byte %d, on %.40q; compact: on %.40q", where, j, g.Text(), g.Offset, text[min(int(g.Offset), len(text)):], compact[min(int(w.Offset), len(compact)):])
					}
					if l, c := lineCol(text, g.Offset); g.Line != l || g.Column != c {
						t.Errorf("%s: finding %d is at %d:%d, its offset %d at %d:%d", where, j, g.Line, g.Column, g.Offset, l, c)
					}
				}
			}
		}
	}
	if compared < 1000 || withFindings < 300 {
		t.Fatalf("only %d comparisons, %d inputs with findings", compared, withFindings)
	}
}

// pyCompact is the compact form of each value of a stream, one a line;
// false when the stream is not JSON.
func pyCompact(text string) (string, bool) {
	rd := jsonv.NewReader(strings.NewReader(text), jsonv.Options{})
	var b []byte
	for {
		v, _, err := rd.Next()
		if err == io.EOF {
			return string(b), true
		}
		if err != nil {
			return "", false
		}
		b = append(b, jsonv.CompactInPlace(v)...)
		b = append(b, '\n')
	}
}

func texts(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Text())
	}
	return out
}

// Messages written by Python in any of pyFormats are checked by the fast
// path: none is decoded into Go values. (Before, any white space between
// the members of an object sent a message to the slow path.)
func TestAnyFormattingTakesFastPath(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	var protos []string
	for _, proto := range []string{"chiffon", "trace"} {
		for _, s := range fastSeeds[proto] {
			inputs = append(inputs, s+"\n")
			protos = append(protos, proto)
		}
	}
	formatted := pyFormat(t, inputs)
	for i := range inputs {
		for k, form := range pyFormats {
			text := formatted[i][k]
			if !strings.Contains(text, ": ") {
				t.Fatalf("Python %s wrote %q", form.Name, text)
			}
			v := Chiffon
			if protos[i] == "trace" {
				v = Trace
			}
			want, _ := runValidator(v, inputs[i])
			before := slowPaths.Load()
			got, n := runValidator(v, text)
			if len(got) != len(want) || n != 1 {
				t.Fatalf("%s seed %d, Python %s: %d records, findings %v, compact: %v", protos[i], i, form.Name, n, texts(got), texts(want))
			}
			if d := slowPaths.Load() - before; d != 0 {
				t.Errorf("%s seed %d, Python %s: decoded %d times (the slow path):\n%s", protos[i], i, form.Name, d, text)
			}
			raw := []byte(strings.TrimSpace(text))
			if !fastValid(&splitCache{}, protos[i], raw) {
				t.Errorf("%s seed %d, Python %s: the fast checker is not sure of\n%s", protos[i], i, form.Name, raw)
			}
		}
	}
}

// respace writes the compact JSON c with white space from ws around its
// structural characters (one byte of ws a place, read in turn: 0-3 are
// none, a space, a tab, CR LF; the other values a newline and as many
// spaces).
func respace(c, ws []byte) []byte {
	var out []byte
	k := 0
	space := func() {
		if len(ws) == 0 {
			return
		}
		w := ws[k%len(ws)]
		k++
		switch w % 8 {
		case 0:
		case 1:
			out = append(out, ' ')
		case 2:
			out = append(out, '\t')
		case 3:
			out = append(out, '\r', '\n')
		default:
			out = append(out, '\n')
			out = append(out, bytes.Repeat([]byte{' '}, int(w%8))...)
		}
	}
	inString, escaped := false, false
	for _, ch := range c {
		if inString {
			out = append(out, ch)
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			continue
		}
		switch ch {
		case '"':
			inString = true
			out = append(out, ch)
		case '{', '[', ',', ':':
			out = append(out, ch)
			space()
		case '}', ']':
			space()
			out = append(out, ch)
		default:
			out = append(out, ch)
		}
	}
	return out
}

// FuzzFastPathAnyFormatting: a message written with any white space gets
// the fast checker's verdict and the validator's findings of the same
// message written compactly (at the same pointers); and the fast checker
// is sure of a message only when the schema library finds nothing. The
// messages are the seeds with a field's value replaced (as in
// FuzzFastPathIsSound), then spaced as ws says.
func FuzzFastPathAnyFormatting(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte(`150`), []byte{1, 1})
	f.Add(uint8(1), uint8(3), []byte(`"2026-02-30T04:21:04Z"`), []byte{4, 2, 3})
	f.Add(uint8(4), uint8(9), []byte(`{"a":[1,{}]}`), []byte{9, 0, 17})
	f.Add(uint8(5), uint8(12), []byte(`[]`), []byte{3})
	var all []struct{ name, msg string }
	for _, n := range []string{"chiffon", "trace"} {
		for _, m := range fastSeeds[n] {
			all = append(all, struct{ name, msg string }{n, m})
		}
	}
	validators := map[string]func(io.Reader, string, Options, Emit) (int, error){"chiffon": Chiffon, "trace": Trace}
	f.Fuzz(func(t *testing.T, which, field uint8, val, ws []byte) {
		if err := loadSchemas(); err != nil {
			t.Fatal(err)
		}
		c, err := jsonv.AppendCompact(nil, val)
		if err != nil {
			return
		}
		seed := all[int(which)%len(all)]
		var members []member
		var walk func(v []byte)
		walk = func(v []byte) {
			jsonv.Members(v, func(name []byte, escaped bool, val []byte) {
				members = append(members, member{name, val, escaped})
				if val[0] == '{' {
					walk(val)
				}
			})
		}
		msg := []byte(seed.msg)
		walk(msg)
		m := members[int(field)%len(members)]
		at := cap(msg) - cap(m.value) // m.value is a slice of msg
		compact := append(append(append([]byte{}, msg[:at]...), c...), msg[at+len(m.value):]...)
		if !jsonv.Valid(compact) {
			return // a duplicate name, say
		}
		spaced := respace(compact, ws)
		if !jsonv.Valid(spaced) {
			t.Fatalf("respace made invalid JSON: %q", spaced)
		}
		fastC := fastValid(&splitCache{}, seed.name, compact)
		if fastS := fastValid(&splitCache{}, seed.name, spaced); fastS != fastC {
			t.Fatalf("%s: the fast checker says %v of\n%s\nand %v of\n%s", seed.name, fastS, spaced, fastC, compact)
		}
		if fastC {
			v, _ := decodeAny(compact)
			if issues, _ := checkSchema(seed.name, v); len(issues) > 0 {
				t.Fatalf("%s: the fast path took %s, but the schema finds %v", seed.name, compact, issues)
			}
		}
		want, _ := runValidator(validators[seed.name], string(compact))
		got, _ := runValidator(validators[seed.name], string(spaced))
		if len(got) != len(want) {
			t.Fatalf("%s: findings\n%v\nof\n%s\nthe compact message's:\n%v", seed.name, texts(got), spaced, texts(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Pointer != w.Pointer || g.Code != w.Code || g.Message != w.Message || g.Severity != w.Severity {
				t.Fatalf("%s: finding %s of\n%s\nthe compact message's: %s", seed.name, g.Text(), spaced, w.Text())
			}
			if gv, wv := valueAt(string(spaced), g.Offset), valueAt(string(compact), w.Offset); !reflect.DeepEqual(gv, wv) {
				t.Fatalf("%s: finding %s is at byte %d of\n%s\nthe compact message's at byte %d", seed.name, g.Text(), g.Offset, spaced, w.Offset)
			}
		}
	})
}
