package capture_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
)

// Options.Conn selects one connection, spelt either way round, IPv4 or
// IPv6; a connection the capture does not hold is an error listing those
// it holds.
func TestConn(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	ends := [][2]string{{"10.0.0.1:50000", "10.0.0.2:7000"}, {"[fd00::1]:50001", "[fd00::2]:7000"}, {"10.0.0.1:50002", "10.0.0.2:7000"}}
	for i, e := range ends {
		c := b.Conn(e[0], e[1])
		c.Handshake()
		c.Send(capturetest.C2S, 0, frame("c2s", i))
		c.Send(capturetest.S2C, 0, frame("s2c", i))
	}
	for _, tc := range []struct {
		spec string
		i    int
	}{
		{"10.0.0.1:50002>10.0.0.2:7000", 2},
		{"10.0.0.2:7000>10.0.0.1:50002", 2},
		{"[fd00::1]:50001>[fd00::2]:7000", 1},
		{"[fd00::2]:7000>[fd00::1]:50001", 1},
		{"[::ffff:10.0.0.1]:50000>10.0.0.2:7000", 0},
	} {
		id, err := capture.ParseConn(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := collect(t, b.Bytes(), capture.Options{Conn: id})
		if err != nil {
			t.Fatal(err)
		}
		name := ends[tc.i][0] + ">" + ends[tc.i][1]
		pkt := 3 + 5*tc.i
		want := []string{frameLine(b, pkt, name, "c2s", tc.i, 0), frameLine(b, pkt+1, name, "s2c", tc.i, 0),
			fmt.Sprintf("note  c2s %s 10 packets skipped: 10 TCP not selected by --port or --conn", stamp(b, 14))}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: records (-want +got):\n%s", tc.spec, diff)
		}
	}
	id, _ := capture.ParseConn("10.0.0.1:50009>10.0.0.2:7000")
	got, _, err := collect(t, b.Bytes(), capture.Options{Conn: id})
	var ne *capture.NoConnError
	if !errors.As(err, &ne) || len(got) != 0 {
		t.Fatalf("err %v, records %q", err, got)
	}
	want := "no connection 10.0.0.1:50009>10.0.0.2:7000 in the capture; it holds 3: 10.0.0.1:50000>10.0.0.2:7000, [fd00::1]:50001>[fd00::2]:7000, 10.0.0.1:50002>10.0.0.2:7000"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	_, _, err = collect(t, (&capturetest.Builder{}).Bytes(), capture.Options{Conn: id})
	if err == nil || err.Error() != "no connection 10.0.0.1:50009>10.0.0.2:7000 in the capture: it holds no TCP connection" {
		t.Errorf("empty capture: %v", err)
	}
}

// Options.Ports that no connection is on are an error listing those the
// capture holds, as an Options.Conn it does not hold is; with both, a
// connection is read when it is on a port and is the Conn.
func TestPortsNoConn(t *testing.T) {
	b := &capturetest.Builder{File: capturetest.PcapNanos}
	c := b.Conn("10.0.0.1:50000", "10.0.0.2:7000")
	c.Handshake()
	c.Send(capturetest.C2S, 0, frame("c2s", 0))
	all := "it holds 1: 10.0.0.1:50000>10.0.0.2:7000"
	id, _ := capture.ParseConn("10.0.0.1:50000>10.0.0.2:7000")
	for _, tc := range []struct {
		opts capture.Options
		want string // "": records, no error
	}{
		{capture.Options{Ports: []int{9999}}, "no connection on port 9999 in the capture; " + all},
		{capture.Options{Ports: []int{9999, 80}}, "no connection on ports 9999 or 80 in the capture; " + all},
		{capture.Options{Ports: []int{9999}, Conn: id}, "no connection 10.0.0.1:50000>10.0.0.2:7000 on port 9999 in the capture; " + all},
		{capture.Options{Ports: []int{9999, 7000}, Conn: id}, ""},
		{capture.Options{Ports: []int{50000}}, ""},
	} {
		got, _, err := collect(t, b.Bytes(), tc.opts)
		var ne *capture.NoConnError
		switch {
		case tc.want == "" && (err != nil || len(got) == 0):
			t.Errorf("%+v: err %v, records %q", tc.opts, err, got)
		case tc.want != "" && (!errors.As(err, &ne) || len(got) != 0 || err.Error() != tc.want):
			t.Errorf("%+v: err %v, records %q; want %s", tc.opts, err, got, tc.want)
		}
	}
	_, _, err := collect(t, (&capturetest.Builder{}).Bytes(), capture.Options{Ports: []int{7000}})
	if err == nil || err.Error() != "no connection on port 7000 in the capture: it holds no TCP connection" {
		t.Errorf("empty capture: %v", err)
	}
}

func TestParseConn(t *testing.T) {
	for _, bad := range []string{"", "10.0.0.1:1", "10.0.0.1>10.0.0.2:7000", "fd00::1:1>[fd00::2]:2", "10.0.0.1:1>10.0.0.2:99999"} {
		if _, err := capture.ParseConn(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	id, err := capture.ParseConn(" [fd00::1]:51234 > 10.0.0.2:7000")
	if err != nil || fmt.Sprint(id) != "[fd00::1]:51234>10.0.0.2:7000" {
		t.Errorf("%v %v", id, err)
	}
}
