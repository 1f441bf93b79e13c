package capturetest

import (
	"bytes"
	"io"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TCPPayloads reads a pcapng of TCP packets in order (as `toonkit tap -w`
// writes it) and returns the payloads of each direction, joined: c2s the
// packets to serverPort, s2c the others.
func TCPPayloads(t testing.TB, pcapng []byte, serverPort int) (c2s, s2c []byte) {
	t.Helper()
	r, err := pcapgo.NewNgReader(bytes.NewReader(pcapng), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, _, err := r.ReadPacketData()
		if err == io.EOF {
			return c2s, s2c
		}
		if err != nil {
			t.Fatal(err)
		}
		tcp, ok := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok {
			t.Fatal("a packet without TCP")
		}
		if int(tcp.DstPort) == serverPort {
			c2s = append(c2s, tcp.Payload...)
		} else {
			s2c = append(s2c, tcp.Payload...)
		}
	}
}
