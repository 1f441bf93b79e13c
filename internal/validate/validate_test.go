package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// FuzzValidate: no bytes make the validators panic or hang, and every
// finding has a place, a code and a message.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		"\x01\x06\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00{}",
		"\x01\x04\x0e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00{\"progress\":2}",
		"\x01\x06\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00Z{\xff \x00}",
		"@toon 1.0\n@keys a,b\n1,2\n3\nx\\q,1\n",
		"@toon 2\n",
		`{"protocol_version":"1.0","type":"work_status","payload":{"progress_percent":150}}`,
		`[{"seq":1,"t":"x","actor":"agent","type":"reasoning","payload":{},"meta":{"run_id":"r"}}]`,
		"{\"version\":\"0\",\"type\":\"done\",\"ok\":true}\r\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		check := func(fd Finding) bool {
			if fd.Code == "" || fd.Message == "" || fd.File != "in" || fd.Offset < 0 || fd.Offset > int64(len(in)) {
				t.Fatalf("finding %+v", fd)
			}
			return true
		}
		if _, err := Binary(bytes.NewReader(in), "in", Options{MaxFrameSize: 1 << 16}, check); err != nil {
			t.Fatal(err)
		}
		for _, v := range []func(io.Reader, string, Options, Emit) (int, error){Tabular, Chiffon, Trace, Narratoria} {
			if _, err := v(bytes.NewReader(in), "in", Options{MaxFrameSize: 1 << 16}, check); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Every schema compiles, has a title, and gives each of its rules a code.
func TestSchemas(t *testing.T) {
	if err := loadSchemas(); err != nil {
		t.Fatal(err)
	}
	names := SchemaNames()
	for _, want := range []string{"binary-status", "binary-heartbeat", "chiffon"} {
		if !slices.Contains(names, want) {
			t.Fatalf("schemas %v: no %s", names, want)
		}
	}
	for _, n := range names {
		b, _ := Schema(n)
		if !bytes.Contains(b, []byte(`"title"`)) || !bytes.Contains(b, []byte(`"x-code"`)) {
			t.Errorf("%s: no title or no x-code", n)
		}
	}
	if _, err := Schema("nope"); err == nil || !strings.Contains(err.Error(), "binary-status") {
		t.Errorf("err = %v", err)
	}
}

func TestSummaryLine(t *testing.T) {
	s := Summary{Files: 3, Records: 1204, Errors: 3, Warnings: 1}
	if s.Line() != "checked 3 files, 1204 records: 3 errors, 1 warning" || s.OK() {
		t.Fatalf("%q %v", s.Line(), s.OK())
	}
	s = Summary{Files: 1, Records: 1, Warnings: 2}
	if !s.OK() {
		t.Fatal("warnings alone failed")
	}
	if s.Strict = true; s.OK() {
		t.Fatal("--strict passed warnings")
	}
}

func TestGitHubEscapes(t *testing.T) {
	var b bytes.Buffer
	WriteGitHub(&b, Finding{File: "a,b:c.toon", Line: 2, Column: 3, Frame: -1, Code: "TAB002", Message: "50% done\nnext"})
	if b.String() != "::error file=a%2Cb%3Ac.toon,line=2,col=3,title=TAB002::50%25 done%0Anext\n" {
		t.Fatalf("%q", b.String())
	}
}

func TestUUIDKey(t *testing.T) {
	k, ok := uuidKey([]byte("550e8400-e29b-41d4-a716-446655440001"))
	if !ok || fmt.Sprintf("%x", k) != "550e8400e29b41d4a716446655440001" {
		t.Fatalf("%x %v", k, ok)
	}
	for _, bad := range []string{"550E8400-E29B-41D4-A716-446655440001", "550e8400e29b41d4a716446655440001", "x"} {
		if _, ok := uuidKey([]byte(bad)); ok {
			t.Errorf("%q kept as a UUID key", bad)
		}
	}
	var s idSet[int32]
	s.add([]byte("550e8400-e29b-41d4-a716-446655440001"), 1)
	s.add([]byte("not-a-uuid"), 2)
	if v, ok := s.get([]byte("550e8400-e29b-41d4-a716-446655440001")); !ok || v != 1 {
		t.Fatal("uuid lost")
	}
	if v, ok := s.get([]byte("not-a-uuid")); !ok || v != 2 {
		t.Fatal("other id lost")
	}
	if _, ok := s.get([]byte("550e8400-e29b-41d4-a716-446655440002")); ok {
		t.Fatal("a new id was seen")
	}
}

// idTable keeps what a map keeps, across its growths, for ids that
// differ in any byte (sequential ones, as generators write them, too).
func TestUUIDTableIsAMap(t *testing.T) {
	var tab idTable[int32]
	want := map[[16]byte]int32{}
	key := func(i int) [16]byte {
		var k [16]byte
		switch i % 3 {
		case 0:
			binary.BigEndian.PutUint32(k[12:], uint32(i)) // the last bytes count up
		case 1:
			binary.BigEndian.PutUint32(k[:], uint32(i)) // the first bytes
		default:
			sum := sha256.Sum256(fmt.Append(nil, i))
			copy(k[:], sum[:])
		}
		return k
	}
	for i := range 100000 {
		k := key(i % 70000) // the last 30000 are repeats
		prev, seen := tab.add(k, int32(i))
		w, wseen := want[k]
		if seen != wseen || seen && prev != w {
			t.Fatalf("add %d: %d %v, want %d %v", i, prev, seen, w, wseen)
		}
		if !wseen {
			want[k] = int32(i)
		}
	}
	if tab.n != len(want) {
		t.Fatalf("%d ids, want %d", tab.n, len(want))
	}
	for k, w := range want {
		if v, ok := tab.get(k); !ok || v != w {
			t.Fatalf("get %x: %d %v, want %d", k, v, ok, w)
		}
	}
	if _, ok := tab.get(key(70001)); ok {
		t.Fatal("an id never added was found")
	}
}
