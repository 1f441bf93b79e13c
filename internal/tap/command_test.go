package tap_test

import (
	"testing"

	"github.com/toonkit/toonkit/internal/tap"
)

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		listen bool
		want   string // "": valid
	}{
		{"127.0.0.1:7000", false, ""},
		{"[::1]:65535", false, ""},
		{"localhost:0", true, ""},
		{"localhost:0", false, "port 0 is not a port to connect to (1 to 65535)"},
		{"127.0.0.1:70000", false, "port 70000 is out of range (1 to 65535)"},
		{"127.0.0.1:http", false, `port "http" is not a number`},
		{"127.0.0.1:", false, "no port"},
		{"127.0.0.1", true, "missing port in address"},
	} {
		err := tap.CheckAddr(c.addr, c.listen)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckAddr(%q, %v) = %q, want %q", c.addr, c.listen, got, c.want)
		}
	}
}
