package host

import (
	"fmt"
	"strings"
	"testing"
)

// The examples of RFC 7396: section 3, and every test case of appendix A.
func TestMergePatchRFC7396(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		// Section 3.
		{`{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}`,
			`{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}`,
			`{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}`},
		// Appendix A.
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		// Beyond the RFC's table: no target at all, null inside an array
		// (a value, not a deletion), literals kept as written, white space
		// dropped, a deletion of what is not there.
		{``, `{"a":{"b":null}}`, `{"a":{}}`},
		{`{"a":1}`, `{"a":[null,{"x":null}]}`, `{"a":[null,{"x":null}]}`},
		{`{"n":1}`, `{"n":1.50, "big":12345678901234567890, "e":"\u00e9"}`, `{"n":1.50,"big":12345678901234567890,"e":"é"}`},
		{`{"a":1}`, `{"gone":null}`, `{"a":1}`},
	}
	for _, c := range cases {
		got, err := MergePatch([]byte(c.target), []byte(c.patch))
		if err != nil || string(got) != c.want {
			t.Errorf("MergePatch(%s, %s) = %s, %v; want %s", c.target, c.patch, got, err, c.want)
		}
	}
}

// A session state takes patch after patch: objects merge recursively
// (what a patch does not name is kept), a patch's objects are not shared
// with the state, and a bad patch changes nothing.
func TestStateMerges(t *testing.T) {
	s, err := NewState([]byte(` {"flags": {"torchLit": false, "door": "closed"}, "inventory": ["torch"], "hp": null} `))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		`{"flags":{"torchLit":true}}`,
		`{"inventory":["torch","key"],"room":{"name":"hall"}}`,
		`{"room":{"lit":true},"hp":10}`,
		`{"flags":{"door":null}}`,
	} {
		if err := s.Merge([]byte(p)); err != nil {
			t.Fatalf("Merge(%s): %v", p, err)
		}
	}
	want := `{"flags":{"torchLit":true},"inventory":["torch","key"],"hp":10,"room":{"name":"hall","lit":true}}`
	if got := string(s.AppendJSON(nil)); got != want {
		t.Fatalf("state %s\nwant  %s", got, want)
	}
	for _, bad := range []string{`["not","an","object"]`, `{"a":`, `{"a":1,"a":2}`, `null`} {
		if err := s.Merge([]byte(bad)); err == nil {
			t.Errorf("Merge(%s) did not fail", bad)
		}
	}
	if got := string(s.AppendJSON(nil)); got != want {
		t.Fatalf("a bad patch changed the state: %s", got)
	}
	if got := string(s.AppendIndented(nil, "")); !strings.HasPrefix(got, "{\n  \"flags\": {\n    \"torchLit\": true\n  },") {
		t.Fatalf("indented: %s", got)
	}
	for _, bad := range []string{`[]`, `1`, `{"a"}`} {
		if _, err := NewState([]byte(bad)); err == nil {
			t.Errorf("NewState(%s) did not fail", bad)
		}
	}
	if s, err := NewState(nil); err != nil || string(s.AppendJSON(nil)) != "{}" {
		t.Fatalf("NewState(nil) = %v, %v", s, err)
	}
}

// An object of many members keeps an index: members are found, replaced
// and deleted, in order, past the size at which it starts.
func TestStateManyMembers(t *testing.T) {
	s, _ := NewState(nil)
	var patch, want strings.Builder
	patch.WriteString("{")
	want.WriteString("{")
	for i := range 3 * indexFrom {
		if i > 0 {
			patch.WriteString(",")
		}
		fmt.Fprintf(&patch, `"k%d":%d`, i, i)
	}
	patch.WriteString("}")
	if err := s.Merge([]byte(patch.String())); err != nil {
		t.Fatal(err)
	}
	// Delete the even members, replace every third one, add one.
	patch.Reset()
	patch.WriteString(`{"new":true`)
	for i := 0; i < 3*indexFrom; i++ {
		switch {
		case i%2 == 0:
			fmt.Fprintf(&patch, `,"k%d":null`, i)
		case i%3 == 0:
			fmt.Fprintf(&patch, `,"k%d":"x"`, i)
		}
	}
	patch.WriteString("}")
	if err := s.Merge([]byte(patch.String())); err != nil {
		t.Fatal(err)
	}
	first := true
	for i := 0; i < 3*indexFrom; i++ {
		if i%2 == 0 {
			continue
		}
		if !first {
			want.WriteString(",")
		}
		first = false
		if i%3 == 0 {
			fmt.Fprintf(&want, `"k%d":"x"`, i)
		} else {
			fmt.Fprintf(&want, `"k%d":%d`, i, i)
		}
	}
	want.WriteString(`,"new":true}`)
	if got := string(s.AppendJSON(nil)); got != want.String() {
		t.Fatalf("state %s\nwant  %s", got, want.String())
	}
}
