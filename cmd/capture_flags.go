package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/internal/capture"
)

// CaptureFlags are --port and --conn, which select the TCP connections
// of a packet capture that a command reads. Embedded in a command's
// options, it is added by add and checked by check.
type CaptureFlags struct {
	Ports []int  // --port: only the connections on these ports
	Conn  string // --conn: only this connection

	conn capture.ConnID // Conn, checked
}

func (cf *CaptureFlags) add(f *pflag.FlagSet) {
	f.IntSliceVar(&cf.Ports, "port", nil, "captures: read only the TCP connections on port `N` (repeatable)")
	f.StringVar(&cf.Conn, "conn", "", "captures: read only the TCP connection `ADDR:PORT>ADDR:PORT`, as records name it (either end first; IPv6 in brackets)")
}

// check refuses a --port that is not a TCP port and a --conn that is not
// a connection's name.
func (cf *CaptureFlags) check() error {
	for _, p := range cf.Ports {
		if p < 1 || p > 65535 {
			return usageErrorf("", "--port %d: a TCP port is 1 to 65535", p)
		}
	}
	cf.conn = capture.ConnID{}
	if cf.Conn == "" {
		return nil
	}
	id, err := capture.ParseConn(cf.Conn)
	if err != nil {
		return usageErrorf("--conn '10.0.0.1:51234>10.0.0.2:7000' (quoted: > is a redirection in the shell)", "--conn: %v", err)
	}
	cf.conn = id
	return nil
}

// options are the capture.Options of the flags, with the largest frame.
func (cf *CaptureFlags) options(maxFrameSize int) capture.Options {
	return capture.Options{MaxFrameSize: maxFrameSize, Ports: cf.Ports, Conn: cf.conn}
}

// noConnError is a --conn or --port that selects no connection of the
// capture.
func noConnError(name string, err error) (error, bool) {
	var ne *capture.NoConnError
	if !errors.As(err, &ne) {
		return err, false
	}
	hint := "--conn takes one of the connections listed, either end first"
	switch {
	case len(ne.Conns) == 0:
		hint = "--port and --conn select among the TCP connections of a capture"
	case len(ne.Ports) > 0 && ne.Want.IsValid():
		hint = "with both, a connection is read when it is on a --port and is the --conn"
	case len(ne.Ports) > 0:
		hint = "--port takes a port of one of the connections listed"
	}
	return invalidError(fmt.Errorf("%s: %w", name, err), hint), true
}
