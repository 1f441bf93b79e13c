package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/pkg/capture"
)

// addPortFlag adds --port N (repeatable): the TCP connections of a packet
// capture that are read.
func addPortFlag(f *pflag.FlagSet, ports *[]int) {
	f.IntSliceVar(ports, "port", nil, "captures: read only the TCP connections on port `N` (repeatable)")
}

// checkPorts refuses a --port that is not a TCP port.
func checkPorts(ports []int) error {
	for _, p := range ports {
		if p < 1 || p > 65535 {
			return usageErrorf("", "--port %d: a TCP port is 1 to 65535", p)
		}
	}
	return nil
}

// addConnFlag adds --conn A>B: the one TCP connection of a packet capture
// that is read.
func addConnFlag(f *pflag.FlagSet, conn *string) {
	f.StringVar(conn, "conn", "", "captures: read only the TCP connection `ADDR:PORT>ADDR:PORT`, as records name it (either end first; IPv6 in brackets)")
}

// parseConn checks --conn; "" selects every connection.
func parseConn(s string) (capture.ConnID, error) {
	if s == "" {
		return capture.ConnID{}, nil
	}
	id, err := capture.ParseConn(s)
	if err != nil {
		return id, usageErrorf("--conn 10.0.0.1:51234>10.0.0.2:7000 (quote it: > is a redirection in the shell)", "--conn: %v", err)
	}
	return id, nil
}

// noConnError is a --conn that names no connection of the capture.
func noConnError(name string, err error) (error, bool) {
	var ne *capture.NoConnError
	if !errors.As(err, &ne) {
		return err, false
	}
	hint := "--conn takes one of the connections listed, either end first"
	if len(ne.Conns) == 0 {
		hint = "--port and --conn select among the TCP connections of a capture"
	}
	return invalidError(fmt.Errorf("%s: %w", name, err), hint), true
}
