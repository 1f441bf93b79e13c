package dissector_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/dissector"
	"github.com/toonkit/toonkit/kado"
)

func TestPorts(t *testing.T) {
	for _, tc := range []struct {
		ports []int
		want  []string // the registrations, in order
		err   string
	}{
		{nil, []string{`local ports = "7000"`}, ""},
		{[]int{9000, 80, 9000}, []string{`local ports = "9000,80"`}, ""},
		{[]int{65535, 1}, []string{`local ports = "65535,1"`}, ""},
		{[]int{0}, nil, "port 0 is outside 1-65535"},
		{[]int{7000, 65536}, nil, "port 65536 is outside 1-65535"},
	} {
		var b bytes.Buffer
		err := dissector.Write(&b, dissector.Options{Ports: tc.ports})
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ports %v: error %v, want %q", tc.ports, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(line, "local ports = ") {
				got = append(got, line)
			}
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("ports %v: registrations %q, want %q", tc.ports, got, tc.want)
		}
		if !strings.HasSuffix(b.String(), "\n") {
			t.Errorf("ports %v: the Lua does not end with a newline", tc.ports)
		}
	}
}

// The type names and the limits are kado's.
func TestFromBinaryTables(t *testing.T) {
	var b bytes.Buffer
	if err := dissector.Write(&b, dissector.Options{MaxPayload: 1234}); err != nil {
		t.Fatal(err)
	}
	lua := b.String()
	for _, typ := range kado.MessageTypes() {
		want := "[" + string(rune('0'+typ)) + `] = "` + typ.String() + `",`
		if !strings.Contains(lua, want) {
			t.Errorf("no %s in the Lua's type table", want)
		}
	}
	for _, want := range []string{"local HEADER_SIZE = 18\n", "local MAX_PAYLOAD = 1234\n", "local MAGIC = 0x5A\n"} {
		if !strings.Contains(lua, want) {
			t.Errorf("no %q in the Lua", want)
		}
	}
}
