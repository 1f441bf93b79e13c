package sign

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// dupCases are events with a member name twice in one object, § marking
// where the repeat that comes first begins (its opening quote), and the
// JSON pointer of the member.
var dupCases = []struct{ name, ev, ptr string }{
	{"payload", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"amount":666},§"payload":{"a":1},"meta":{"run_id":"r"}}`, "/payload"},
	{"payload-after-meta", `{"payload":{"a":1},"seq":1,"t":"x","actor":"a","type":"b","meta":{"run_id":"r"},§"payload":{"amount":666}}`, "/payload"},
	{"signature", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"r","signature":"aa"},"signature":"aa",§"signature":"bb"}`, "/signature"},
	{"meta-signature", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{},"meta":{"signature":"aa","run_id":"r",§"signature":"bb"}}`, "/meta/signature"},
	{"meta", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"r"},§"meta":{"run_id":"s"}}`, "/meta"},
	{"run_id", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"r",§"run_id":"s"}}`, "/meta/run_id"},
	{"seq", `{"seq":1,§"seq":2,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"r"}}`, "/seq"},
	{"deep", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"a":{"b":[0,{"c":1,§"c":2}]}},"meta":{"run_id":"r"}}`, "/payload/a/b/1/c"},
	{"escaped", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"a":1,§"\u0061":2},"meta":{"run_id":"r"}}`, "/payload/a"},
	{"escaped-first", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"\u00e9":1,§"é":2},"meta":{"run_id":"r"}}`, "/payload/é"},
	{"pointer-escapes", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"x/y~":1,§"x/y~":2},"meta":{"run_id":"r"}}`, "/payload/x~1y~0"},
	{"many", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{` + manyNames(40) + `,§"m07":0},"meta":{"run_id":"r"}}`, "/payload/m07"},
	{"first-in-bytes", `{"seq":1,"t":"x","actor":"a","type":"b","payload":{"q":{"z":1,§"z":2}},"payload":{},"meta":{"run_id":"r"}}`, "/payload/q/z"},
	{"spaced", "{\"seq\": 1, \"t\": \"x\", \"actor\": \"a\", \"type\": \"b\",\n \"payload\": {\"k\": 1,\n  §\"k\": 2}, \"meta\": {\"run_id\": \"r\"}}", "/payload/k"},
}

// noDupEvents have names alike but none twice in one object.
var noDupEvents = []string{
	`{"seq":1,"t":"x","actor":"a","type":"b","payload":{"a":1,"A":1,"ab":1,"b":{"a":1,"b":[{"a":1},{"a":2}]}},"meta":{"run_id":"r","a":1}}`,
	`{"seq":1,"t":"x","actor":"a","type":"b","payload":{"a":1,"\u0062":2,"\u00e9":3,"e":4,"ab\u0000":5,"ab":6},"meta":{"run_id":"r"}}`,
	`{"seq":1,"t":"x","actor":"a","type":"b","payload":{` + manyNames(100) + `},"meta":{"run_id":"r"}}`,
}

// fuzzSeeds are inputs for the fuzz targets of sign and verify: events
// with a name twice (dupCases, as a log and as an array), and fields whose
// size drives the work: a seq of 4300 digits (Python's limit) and one
// more, a seq past 64 bits, a string past the event limit of the stream
// and verify targets (4096 bytes), nesting at the parser's depth limit. With signed, the events are signed
// with the last copies of their names (signLast) where they can be.
func fuzzSeeds(t testing.TB, signed bool) [][]byte {
	event := func(seq, payload string) string {
		return `{"seq":` + seq + `,"t":"x","actor":"a","type":"b","payload":` + payload + `,"meta":{"run_id":"r"}}`
	}
	evs := []string{
		event(strings.Repeat("9", 4300), "{}"),
		event("1"+strings.Repeat("0", 4300), "{}"),
		event("18446744073709551616", `{"n":-`+strings.Repeat("1", 400)+`}`),
		event("2", `"`+strings.Repeat("x", 5000)+`"`),
		event("3", strings.Repeat("[", MaxDepth-2)+strings.Repeat("]", MaxDepth-2)),
	}
	for _, c := range dupCases {
		ev, _ := dupCase(c.ev)
		evs = append(evs, ev)
	}
	if signed {
		for i, ev := range evs {
			var p parser
			if p.parseDocument([]byte(ev)) == nil && p.tape[0].kind == kObject {
				if _, err := (&Signer{}).fields([]byte(ev), p.tape); err == nil {
					evs[i] = signLast(t, ev)
				}
			}
		}
	}
	return [][]byte{
		[]byte(strings.Join(evs, "\n") + "\n"),
		[]byte("[" + strings.Join(evs, ",\n") + "]"),
		[]byte(evs[len(evs)-1] + "\n" + evs[len(evs)-2] + "\n"),
	}
}

// manyNames is n members "m00":0, "m01":1... of an object, compact.
func manyNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(`"m%02d":%d`, i, i)
	}
	return strings.Join(names, ",")
}

// dupCase is a case's event without its mark, and the offset of the mark.
func dupCase(ev string) (string, int) {
	at := strings.Index(ev, "§")
	return strings.Replace(ev, "§", "", 1), at
}

// TestDuplicateMembers: an event with a name twice in one object, at any
// depth, is not signed, whichever way its bytes are read (Parse, a Reader
// of NDJSON or of an array, SignStream on one worker or two), at the
// repeat, with its pointer; nor does it verify (Log.Verify, one worker or
// four), though it was signed (by a signer that takes the last copy, as
// json.loads does).
func TestDuplicateMembers(t *testing.T) {
	sg := mustSigner(t, "test-key", SchemeSpec)
	for _, c := range dupCases {
		t.Run(c.name, func(t *testing.T) {
			ev, at := dupCase(c.ev)
			want := fmt.Sprintf("%d %s: duplicate object member name %q: readers disagree on which copy counts", at, c.ptr, dupName(c.ptr))
			_, err := sg.Parse([]byte(ev))
			if got := fieldErr(err); got != want {
				t.Errorf("Parse: %s\nwant          %s", got, want)
			}
			for _, in := range []string{"{}\n" + ev + "\n", "[{},\n" + ev + "]"} {
				rd := NewReader(strings.NewReader(in), 0)
				rd.Next()
				rec, err := rd.Next()
				if err != nil {
					t.Fatal(err)
				}
				_, err = sg.Event(rec)
				if got := fieldErr(err); got != want {
					t.Errorf("Reader %.10q: %s\nwant %s", in, got, want)
				}
			}
			line, col := secondLine(ev, at)
			wantPos := fmt.Sprintf("%d:%d: event 2: %s", line, col, want[strings.IndexByte(want, ' ')+1:])
			good := `{"seq":1,"t":"x","actor":"a","type":"b","payload":{},"meta":{"run_id":"q"}}` + "\n"
			for _, workers := range []int{1, 2} {
				got := streamed(t, strings.NewReader(good+ev+"\n"+good), StreamOptions{Workers: workers, BatchBytes: 64})
				if !strings.Contains(got, "\n"+wantPos+"\n") || !strings.Contains(got, "bad 1\n") {
					t.Errorf("SignStream, %d workers:\n%s\nwant %s", workers, got, wantPos)
				}
			}
			signed := signLast(t, ev)
			// Signing moved the repeat (meta.signature added before it).
			_, err = sg.Parse([]byte(signed))
			fe, ok := err.(*FieldError)
			if !ok {
				t.Fatalf("the signed event: %v", err)
			}
			line, col = secondLine(signed, fe.Offset)
			for _, workers := range []int{1, 4} {
				r := verifyWith(t, [][]byte{[]byte(signLast(t, strings.TrimSpace(good)) + "\n" + signed + "\n")}, VerifyOptions{Workers: workers, BatchBytes: 64}, false, false)
				if len(r.Problems) != 1 || r.Counts[1] != 1 {
					t.Fatalf("Verify, %d workers: %+v", workers, r)
				}
				p := r.Problems[0]
				if got := fmt.Sprintf("%d:%d %s %s: %s", p.Line, p.Column, p.Code, p.Pointer, p.Msg); got != fmt.Sprintf("%d:%d %s %s", line, col, CodeEvent, want[strings.IndexByte(want, ' ')+1:]) {
					t.Errorf("Verify, %d workers: %s", workers, got)
				}
			}
		})
	}
	for _, ev := range noDupEvents {
		if _, err := sg.Parse([]byte(ev)); err != nil {
			t.Errorf("%.60s: %v", ev, err)
		}
	}
}

// secondLine is the line and column of ev[at], ev being the second line of
// a log.
func secondLine(ev string, at int) (line, col int) {
	line, col = 2, at+1
	if nl := strings.LastIndexByte(ev[:at], '\n'); nl >= 0 {
		line, col = line+strings.Count(ev[:at], "\n"), at-nl
	}
	return line, col
}

// dupName is the last token of a pointer, unescaped.
func dupName(ptr string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(ptr[strings.LastIndexByte(ptr, '/')+1:])
}

func fieldErr(err error) string {
	fe, ok := err.(*FieldError)
	if !ok {
		return fmt.Sprintf("not a *FieldError: %v", err)
	}
	return fmt.Sprintf("%d %s", fe.Offset, fe)
}

// signLast is ev with its signatures set to those of the last copies of
// its names (what json.loads reads), as a producer that does not look for
// repeats would sign it.
func signLast(t testing.TB, ev string) string {
	t.Helper()
	var p parser
	if err := p.parseDocument([]byte(ev)); err != nil {
		t.Fatal(err)
	}
	s := mustSigner(t, "test-key", SchemeSpec)
	e, err := s.fields([]byte(ev), p.tape)
	if err != nil {
		t.Fatal(err)
	}
	return string(AppendSigned(nil, e, bytes.Clone(s.Sign(e))))
}

// TestCanonicalKeepsLastCopy: Canonical is still json.dumps(json.loads(src)),
// for library callers: the last copy of a name is taken.
func TestCanonicalKeepsLastCopy(t *testing.T) {
	got, err := Canonical(nil, []byte(`{"b":1,"a":{"x":1,"x":2},"b":3}`), Style{SortKeys: true})
	if want := `{"a": {"x": 2}, "b": 3}`; err != nil || string(got) != want {
		t.Fatalf("%s %v, want %s", got, err, want)
	}
}
