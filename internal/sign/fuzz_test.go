package sign

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"testing"
)

// pyValue is a JSON value as Python holds it after json.loads: a dict
// (the last of repeated names wins, order of first appearance), a list,
// a str (as WTF-8 bytes, lone surrogates kept), an int (exact), a float,
// True/False/None. It is built from the tape independently of the writer.
type pyValue any

type pyDict struct {
	order []string
	vals  map[string]pyValue
}

func toPy(src []byte, t []node, i int32) pyValue {
	n := t[i]
	switch n.kind {
	case kNull:
		return nil
	case kTrue:
		return true
	case kFalse:
		return false
	case kInt:
		v, ok := new(big.Int).SetString(string(src[n.start:n.end]), 10)
		if !ok {
			panic("bad int")
		}
		return v.String()
	case kFloat, kNaN, kInf, kNegInf:
		var f float64
		switch n.kind {
		case kNaN:
			f = math.NaN()
		case kInf:
			f = math.Inf(1)
		case kNegInf:
			f = math.Inf(-1)
		default:
			f, _ = strconv.ParseFloat(string(src[n.start:n.end]), 64)
		}
		if f != f {
			return "float:nan"
		}
		return fmt.Sprintf("float:%x", math.Float64bits(f))
	case kString:
		return "str:" + string(decodeString(nil, src[n.start:n.end]))
	case kArray:
		l := []pyValue{}
		for j := i + 1; j < n.next; j = t[j].next {
			l = append(l, toPy(src, t, j))
		}
		return l
	}
	d := &pyDict{vals: map[string]pyValue{}}
	for j := i + 1; j < n.next; j = t[j+1].next {
		k := string(decodeString(nil, src[t[j].start:t[j].end]))
		if _, ok := d.vals[k]; !ok {
			d.order = append(d.order, k)
		}
		d.vals[k] = toPy(src, t, j+1)
	}
	return d
}

func loads(b []byte) (pyValue, error) {
	var p parser
	if err := p.parseDocument(b); err != nil {
		return nil, err
	}
	return toPy(b, p.tape, 0), nil
}

// FuzzCanonical: the canonical form of any JSON that Python accepts reads
// back as the same value; it is its own canonical form; sorted output has
// its names in strictly increasing order, unsorted output in the order
// they first appeared; and it is ASCII.
func FuzzCanonical(f *testing.F) {
	_, cases := loadVectors(f)
	for _, c := range cases {
		f.Add([]byte(c.Input))
	}
	f.Add([]byte(`{"a":1,"b":{"d":[1,2.5e-7,"\u00e9\ud83d"],"c":NaN},"a":-0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := loads(data)
		if err != nil {
			if _, err := Canonical(nil, data, Style{SortKeys: true}); err == nil {
				t.Fatal("Canonical accepts what the parser rejects")
			}
			return
		}
		for _, st := range []Style{{SortKeys: true}, {}, {SortKeys: true, Compact: true}} {
			out, err := Canonical(nil, data, st)
			if err != nil {
				t.Fatalf("%+v: %v", st, err)
			}
			for _, c := range out {
				if c >= 0x80 || c < 0x20 {
					t.Fatalf("%+v: non-ASCII byte %#x in %q", st, c, out)
				}
			}
			back, err := loads(out)
			if err != nil {
				t.Fatalf("%+v: the output does not read back: %v\n%q", st, err, out)
			}
			if !reflect.DeepEqual(norm(v, st.SortKeys), norm(back, st.SortKeys)) {
				t.Fatalf("%+v: value changed\nin  %q\nout %q", st, data, out)
			}
			again, err := Canonical(nil, out, st)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("%+v: not its own canonical form: %q -> %q", st, out, again)
			}
		}
	})
}

// norm is a value with each dict as its names in output order and the
// values: sorted by name (code point order: WTF-8 byte order), or in the
// order of first appearance.
func norm(v pyValue, sorted bool) pyValue {
	switch x := v.(type) {
	case []pyValue:
		out := make([]pyValue, len(x))
		for i := range x {
			out[i] = norm(x[i], sorted)
		}
		return out
	case *pyDict:
		names := append([]string(nil), x.order...)
		if sorted {
			sortStrings(names)
		}
		out := []pyValue{}
		for _, k := range names {
			out = append(out, "name:"+k, norm(x.vals[k], sorted))
		}
		return out
	}
	return v
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// FuzzSignReader: the event reader never fails but with an error, and a
// log whose events all sign reads back, once signed, as the same number
// of events, each with a valid signature.
func FuzzSignReader(f *testing.F) {
	f.Add([]byte(unsignedLog))
	f.Add([]byte(prettyArray))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"seq":1,"t":"","actor":"","type":"","payload":NaN,"meta":{"run_id":"\ud800"}}`))
	// Signed in meta.signature only, in Python's spacing; at the top level only.
	f.Add([]byte(`{"seq": 1, "t": "", "actor": "", "type": "", "payload": {}, "meta": {"run_id": "r", "signature": "0f"}}` + "\n"))
	f.Add([]byte(`[{"seq": 1, "t": "", "actor": "", "type": "", "payload": {}, "meta": {"run_id": "r"}, "signature": "0f"}]`))
	f.Add([]byte("{\"seq\":-0,\"t\":\"\",\"actor\":\"\",\"type\":\"\",\"payload\":[],\"meta\":{\"run_id\":\"x\",\"signature\":1}} \r\n\t"))
	for _, s := range fuzzSeeds(f, false) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sg := mustSigner(t, "k", SchemeSpec)
		rd := NewReader(bytes.NewReader(data), 1<<16)
		var out []byte
		n := 0
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				out = append(out, rd.Tail()...)
				break
			}
			if err != nil {
				return
			}
			ev, err := sg.Event(rec)
			if err != nil {
				return
			}
			out = append(out, rec.Gap...)
			out = AppendSigned(out, ev, sg.Sign(ev))
			n++
		}
		l := &Log{Signer: mustSigner(t, "k", SchemeSpec), Emit: func(p Problem) {
			switch p.Code {
			case CodeMismatch, CodeUnsigned, CodeOneCopy, CodeTopDiffer, CodeEvent:
				t.Fatalf("signed log: %s %s\nin  %q\nout %q", p.Code, p.Msg, data, out)
			}
		}}
		rd = NewReader(bytes.NewReader(out), 1<<17)
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("signed log does not read: %v\n%q", err, out)
			}
			ev, err := l.Signer.Event(rec)
			if err != nil {
				t.Fatalf("signed event: %v\n%q", err, out)
			}
			l.Check(ev, Where{Index: rec.Index})
		}
		l.Finish()
		if l.Events != n {
			t.Fatalf("%d events signed, %d read back", n, l.Events)
		}
	})
}

// FuzzSafeSpan checks the 8-bytes-at-a-time scan against the table.
func FuzzSafeSpan(f *testing.F) {
	f.Add([]byte("hello, world \" and more"))
	f.Add([]byte("abcdefgh\x7fabc\x1f\xc3\xa9"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for want < len(b) && safe[b[want]] {
			want++
		}
		if got := safeSpan(b); got != want {
			t.Fatalf("safeSpan(%q) = %d, want %d", b, got, want)
		}
	})
}

// FuzzPlainFloat: the shortcut for plain decimal literals writes what
// reading the float and writing its repr writes.
func FuzzPlainFloat(f *testing.F) {
	for _, s := range []string{"0.82", "-0.050", "99.99", "0.0001", "0.00001", "123456789012345.6", "1234567890123456.0", "-0.0", "0.000", "100.10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var p parser
		if p.parseDocument([]byte(lit)) != nil || p.tape[0].kind != kFloat {
			return
		}
		lit = lit[p.tape[0].start:p.tape[0].end]
		if got, ok := appendPlainFloat(nil, []byte(lit)); ok {
			if want := appendFloatRepr(nil, []byte(lit)); string(got) != string(want) {
				t.Fatalf("%s: shortcut %s, repr %s", lit, got, want)
			}
		}
	})
}
