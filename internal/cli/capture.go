package cli

import "github.com/toonkit/toonkit/internal/capture"

// CaptureFlags are --port and --conn, which select the TCP connections
// of a packet capture that a command reads. Embedded in a command's
// options, cmd adds its flags; Check checks them.
type CaptureFlags struct {
	Ports []int  // --port: only the connections on these ports
	Conn  string // --conn: only this connection

	conn capture.ConnID // Conn, checked
}

// Check refuses a --port that is not a TCP port and a --conn that is not
// a connection's name.
func (cf *CaptureFlags) Check() error {
	for _, p := range cf.Ports {
		if p < 1 || p > 65535 {
			return UsageErrorf("", "--port %d: a TCP port is 1 to 65535", p)
		}
	}
	cf.conn = capture.ConnID{}
	if cf.Conn == "" {
		return nil
	}
	id, err := capture.ParseConn(cf.Conn)
	if err != nil {
		return UsageErrorf("--conn '10.0.0.1:51234>10.0.0.2:7000' (quoted: > is a redirection in the shell)", "--conn: %v", err)
	}
	cf.conn = id
	return nil
}

// Options are the capture.Options of the flags, with the largest frame.
func (cf *CaptureFlags) Options(maxFrameSize int) capture.Options {
	return capture.Options{MaxFrameSize: maxFrameSize, Ports: cf.Ports, Conn: cf.conn}
}
