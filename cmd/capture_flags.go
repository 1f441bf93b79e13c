package cmd

import "github.com/spf13/pflag"

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
